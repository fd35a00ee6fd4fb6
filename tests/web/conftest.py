"""Browser tests: Playwright driving Debian's Chromium against a real server on loopback.

Skipped, with one line saying why, where the ``playwright`` package or
``/usr/bin/chromium`` is missing (``.ci/run`` installs both). Playwright never
downloads a browser here: it is always given Debian's executable.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CRIBSQUARES_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}

try:
    from playwright.async_api import Browser, Page, async_playwright
except ImportError:  # pragma: no cover - depends on the machine
    async_playwright = None

WHY_SKIP = (
    "the playwright package is not installed"
    if async_playwright is None
    else f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM))
    else None
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if WHY_SKIP is None:
        return
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.skip(reason=WHY_SKIP))


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """One Chromium per test (a fresh temporary profile); each player gets its own context."""
    assert async_playwright is not None
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield launched
        finally:
            await launched.close()


class PageErrors:
    """Every uncaught error and console error of the pages a test opened."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Page) -> None:
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))
        page.on(
            "console",
            lambda msg: (
                self.errors.append(f"{page.url}: console {msg.text}")
                if msg.type == "error"
                and "WebSocket connection" not in msg.text
                and "Failed to load resource" not in msg.text
                else None
            ),
        )


@pytest.fixture
def page_errors() -> PageErrors:
    return PageErrors()


async def open_page(
    browser: Browser, url: str, errors: PageErrors | None = None, viewport: dict[str, int] = DESKTOP
) -> Page:
    context = await browser.new_context(viewport=viewport)
    page = await context.new_page()
    if errors is not None:
        errors.watch(page)
    await page.goto(url)
    return page


async def sign_in(page: Page, name: str, *, guest: bool = False) -> None:
    await page.fill("#signin-name", name)
    if guest:
        await page.get_by_role("button", name="Play as a guest").click()
    else:
        await page.get_by_role("button", name="Sign in", exact=True).click()
    await page.wait_for_selector("nav.top .me")


async def player(browser: Browser, http: str, name: str, errors: PageErrors | None = None,
                 viewport: dict[str, int] = DESKTOP, path: str = "/") -> Page:  # fmt: skip
    page = await open_page(browser, http + path, errors, viewport)
    await sign_in(page, name)
    return page


async def store(page: Page, expression: str) -> Any:
    """A value of the page's model (``window.cribsquares.store``)."""
    return await page.evaluate(
        f"() => {{ const s = window.cribsquares.store; return {expression}; }}"
    )


async def wait_store(page: Page, condition: str, timeout: float = 20_000) -> None:
    """Wait until the page's model meets ``condition`` and the screen shows it: the
    client redraws on the next animation frame after a change, so wait for that too."""
    await page.wait_for_function(
        "() => { const s = window.cribsquares && window.cribsquares.store;"
        f" return s && ({condition}); }}",
        timeout=timeout,
    )
    await page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


async def box(locator: Any) -> dict[str, float]:
    """Where an element is on the screen (asked again if a redraw replaced it meanwhile)."""
    for _ in range(20):
        found = await locator.bounding_box()
        if found is not None:
            return found  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(f"{locator} is not on the screen")


async def place_one(page: Page, turn: int, how: str = "click") -> str:
    """Wait for card ``turn`` and place it on its first legal cell by ``how``
    (click, keys: arrows to it and Enter, type: its name, drag)."""
    await page.wait_for_selector(f"#to-place-h:text-is('Card {turn} of 16')", timeout=20_000)
    cell = await page.get_attribute("button.cell.legal", "data-cell")
    assert cell is not None
    target = page.locator(f'button.cell[data-cell="{cell}"]')
    if how == "click":
        await target.click()
    elif how == "tap":
        await target.tap()
    elif how == "type":
        await page.locator("h1").first.click()  # nothing focused that takes text
        await page.keyboard.type(cell)
    elif how == "keys":
        focused = page.locator('button.cell[tabindex="0"]')
        await focused.focus()
        start = await focused.get_attribute("data-cell")
        assert start is not None
        for _ in range(abs(ord(cell[0]) - ord(start[0]))):
            await page.keyboard.press("ArrowRight" if cell[0] > start[0] else "ArrowLeft")
        for _ in range(abs(int(cell[1]) - int(start[1]))):
            await page.keyboard.press("ArrowDown" if cell[1] > start[1] else "ArrowUp")
        await page.keyboard.press("Enter")
    elif how == "drag":
        # as a hand does it: press on the card, move onto the cell in steps, let go
        source = await box(page.locator(".next-card .card"))
        goal = await box(target)
        await page.mouse.move(source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
        await page.mouse.down()
        await page.mouse.move(
            goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2, steps=8
        )
        await page.mouse.up()
    else:
        raise ValueError(how)
    try:
        await wait_store(page, f"s.match && s.match.placements.some((p) => p.turn === {turn})")
    except Exception as exc:
        said = await page.evaluate("() => (document.querySelector('.to-place') || {}).innerText")
        raise AssertionError(
            f"card {turn} placed by {how} on {cell}: not placed; the page: {said}"
        ) from exc
    return cell


async def custom_game(page: Page) -> None:
    """Open the lobby's Custom game (its forms: a new room, quick play, an invite
    code, a challenge), by a click on its summary as a person would."""
    if not await page.locator("#new-name").is_visible():
        await page.locator("summary", has_text="Custom game").click()
    await page.wait_for_selector("#new-name")


async def new_room(page: Page, name: str, **options: str) -> None:
    """Create a room from the lobby's form: ``options`` are its fields by id
    without the ``new-`` (``pace="race"``, ``deal="120"``, ``private="yes"``)."""
    await custom_game(page)
    await page.fill("#new-name", name)
    for key, value in options.items():
        field = page.locator(f"#new-{key}")
        kind = await field.evaluate("(el) => el.tagName + ':' + (el.type || '')")
        if kind == "SELECT:select-one":
            await field.select_option(value)
        elif kind.endswith("checkbox"):
            await field.check()
        else:
            await field.fill(value)
    await page.get_by_role("button", name="Create the room").click()
    await page.wait_for_selector("text=Waiting for players")


async def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    """With CRIBSQUARES_SHOTS=DIR, save a screenshot of ``page`` as DIR/NAME.png
    (to look at what a test saw; nothing is saved otherwise)."""
    folder = os.environ.get("CRIBSQUARES_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=full_page)


# axe-core, the accessibility checker, from npm (tests/web/package.json pins it;
# .ci/run installs it, and so does the first test that needs it where npm is at hand).
HERE = Path(__file__).resolve().parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"


def axe_source() -> str:
    """axe-core's script, installed here first if it is missing (skips if it cannot be)."""
    if not AXE.exists() and shutil.which("npm"):
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--no-package-lock"],
            cwd=HERE, check=False, timeout=300, capture_output=True,
        )  # fmt: skip
    if not AXE.exists():
        pytest.skip("axe-core is not installed (npm install in tests/web)")
    return AXE.read_text("utf-8")


_AXE_RUN = """async () => {
  const found = await axe.run(document, { resultTypes: ["violations"] });
  return found.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")} :: ${n.failureSummary || ""}`),
  }));
}"""


async def axe_violations(page: Page, source: str) -> list[dict[str, Any]]:
    """What axe-core finds wrong on the page as it is now, every impact (the page's
    own strict CSP stays on: the checker is run through the browser's devtools)."""
    if not await page.evaluate("() => typeof window.axe === 'object'"):
        await page.evaluate(source)
    found: list[dict[str, Any]] = await page.evaluate(_AXE_RUN)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
