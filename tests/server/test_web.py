"""The web client's files as the server serves them: versioned, cached,
under a strict Content-Security-Policy, nothing outside its folder, installed
with the package; and its WebSocket admitted from the page's own origin."""

from __future__ import annotations

import gzip
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import aiohttp
import pytest
import websockets

from protocol.fields import NODE_ID_PATTERN
from server.shell.web import ROOT, content_security_policy, load
from tests.server.live import running_server

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


async def test_the_page_and_its_assets(tmp_path: Path) -> None:
    client = load()
    async with running_server(tmp_path / "db.sqlite") as live, aiohttp.ClientSession() as http:
        async with http.get(live.http + "/") as page:
            assert page.status == 200
            assert page.headers["Content-Type"].startswith("text/html")
            assert page.headers["Cache-Control"] == "no-cache"
            html = await page.text()
            policy = page.headers["Content-Security-Policy"]
            for header in ("X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"):
                assert header in page.headers
        port = live.http.rsplit(":", 1)[1]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        # the addresses it listens on (loopback: each of its names but ::1, which a
        # policy cannot hold), not the Host header
        sockets = f"ws://127.0.0.1:{port} ws://localhost:{port}"
        assert f"connect-src 'self' {sockets};" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "frame-ancestors 'none'" in policy
        # no inline script or style anywhere in the page
        assert re.search(r"<script(?![^>]*\bsrc=)", html) is None
        assert "style=" not in html and "<style" not in html
        assert re.search(r"\son[a-z]+\s*=", html) is None  # no inline event handler
        urls = re.findall(r'(?:src|href)="(/assets/[^"]+)"', html)
        assert urls and all(u.startswith(f"/assets/{client.version}/") for u in urls)
        async with http.get(live.http + urls[-1]) as asset:
            assert asset.status == 200
            assert asset.headers["Content-Type"].startswith("text/javascript")
            assert "immutable" in asset.headers["Cache-Control"]
            assert "max-age=31536000" in asset.headers["Cache-Control"]
            etag = asset.headers["ETag"]
        async with http.get(live.http + urls[-1], headers={"If-None-Match": etag}) as again:
            assert again.status == 304
        for bad in (
            f"/assets/{client.version}/../web.py",
            f"/assets/{client.version}/js/%2e%2e/%2e%2e/web.py",
            f"/assets/{client.version}/index.html",
            "/assets/000000000000/js/app.js",  # another version: not this one's
            f"/assets/{client.version}/js/nope.js",
        ):
            async with http.get(live.http + bad) as refused:
                assert refused.status == 404, bad


async def test_the_socket_admits_the_page_origin_only(tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        own = await websockets.connect(live.url, origin=websockets.Origin(live.http))
        await own.close()
        try:
            await websockets.connect(live.url, origin=websockets.Origin("http://evil.example"))
        except websockets.InvalidStatus as exc:
            assert exc.response.status_code == 403
        else:
            raise AssertionError("a foreign origin was admitted")


async def test_the_policy_comes_from_the_configured_addresses_never_from_host(
    tmp_path: Path,
) -> None:
    public = ("https://play.example.org", "http://lan.example:8000/path")
    async with (
        running_server(tmp_path / "db.sqlite", public_urls=public) as live,
        aiohttp.ClientSession() as http,
    ):
        port = live.http.rsplit(":", 1)[1]
        for host in ("evil.example:666", "x; script-src *", "127.0.0.1:1", "[::1]:8765"):
            async with http.get(live.http + "/", headers={"Host": host}) as page:
                policy = page.headers["Content-Security-Policy"]
            connect = policy.split("connect-src ", 1)[1].split(";", 1)[0].split()
            assert connect == [
                "'self'",
                f"ws://127.0.0.1:{port}",
                "ws://lan.example:8000",
                f"ws://localhost:{port}",
                "wss://play.example.org",
            ], host
            assert "evil" not in policy and "script-src *" not in policy


def test_a_policy_holds_only_the_sources_it_is_given() -> None:
    assert "connect-src 'self';" in content_security_policy()
    assert "connect-src 'self' wss://a.example;" in content_security_policy(["wss://a.example"])


def test_every_file_of_the_client_is_installed_with_the_package() -> None:
    data = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["server"]
    files = [p.relative_to(ROOT.parent).as_posix() for p in ROOT.rglob("*") if p.is_file()]
    assert files
    missing = [
        f
        for f in files
        if not any(fnmatch(f, pat) and f.count("/") == pat.count("/") for pat in patterns)
    ]
    assert missing == []


def test_the_version_follows_the_contents(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text('<script src="/assets/@VERSION@/a.js"></script>')
    (tmp_path / "a.js").write_text("1")
    first = load(tmp_path)
    assert first.version.encode() in first.page
    (tmp_path / "a.js").write_text("2")
    assert load(tmp_path).version != first.version


def test_the_client_never_writes_markup() -> None:
    """Text from other players reaches the page only as text: no script of the
    client assigns HTML or an inline style (the policy would refuse both)."""
    forbidden = re.compile(
        r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\.setAttribute\(\s*[\"']style"
    )
    scripts = sorted(ROOT.rglob("*.js"))
    assert len(scripts) >= 10
    for script in scripts:
        assert forbidden.search(script.read_text("utf-8")) is None, script.name


def test_the_client_checks_node_ids_as_the_server_does() -> None:
    """The web client refuses a ``node_hint`` whose node the server's own pattern
    (``protocol.fields.NODE_ID_PATTERN``) would refuse, and keeps no other one: its
    pattern is the same text."""
    script = (ROOT / "js" / "nodes.js").read_text("utf-8")
    found = re.search(r"^const NODE = /\^(.+)\$/;$", script, re.M)
    assert found is not None
    assert found[1] == NODE_ID_PATTERN


async def test_text_is_sent_compressed_to_a_browser_that_takes_it(tmp_path: Path) -> None:
    client = load()
    app_js = f"/assets/{client.version}/js/app.js"
    async with (
        running_server(tmp_path / "db.sqlite") as live,
        aiohttp.ClientSession(auto_decompress=False) as http,
    ):
        for path, plain in (("/", client.page), (app_js, client.assets["js/app.js"].body)):
            async with http.get(live.http + path, headers={"Accept-Encoding": "br, gzip"}) as r:
                assert r.headers["Content-Encoding"] == "gzip"
                assert r.headers["Vary"] == "Accept-Encoding"
                packed = await r.read()
                assert gzip.decompress(packed) == plain and len(packed) < len(plain) / 2
                etag = r.headers.get("ETag")
            for refusing in ("identity", "gzip;q=0", ""):
                async with http.get(live.http + path, headers={"Accept-Encoding": refusing}) as r:
                    assert "Content-Encoding" not in r.headers, refusing
                    assert r.headers["Vary"] == "Accept-Encoding"
                    assert await r.read() == plain
                    assert path == "/" or r.headers["ETag"] != etag  # another representation
        # the compressed one's tag answers a revalidation of the compressed one
        got = {"Accept-Encoding": "gzip", "If-None-Match": etag or ""}
        async with http.get(live.http + app_js, headers=got) as again:
            assert again.status == 304


def test_the_page_preloads_every_module_the_client_imports() -> None:
    client = load()
    page = client.page.decode()
    preloaded = re.findall(r'<link rel="modulepreload" href="/assets/[0-9a-f]+/([^"]+)">', page)
    modules = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.js"))
    # every module but the entry (loaded by its script tag) is imported, and preloaded
    assert sorted([*preloaded, "js/app.js"]) == modules
    assert "@PRELOAD@" not in page and "@VERSION@" not in page
