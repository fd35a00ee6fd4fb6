"""Every numeric option is checked: one line on stderr and a non-zero exit, never a
traceback, a wrapped-around port or a negative time accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from client_cli.cli import main
from tests.client_cli.commands.helpers import Runner, assert_one_line_error


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["serve", "--port", "99999"], "--port: 1 to 65535"),
        (["serve", "--port", "-5"], "--port: 1 to 65535"),
        (["serve", "--port", "65536"], "--port: 1 to 65535"),
        (["serve", "--port", "eighty"], "--port: 1 to 65535"),
        (["serve", "--grace", "-1"], "--grace: a number of seconds, 0 or more"),
        (["serve", "--grace", "nan"], "--grace"),
        (["serve", "--grace", "inf"], "--grace"),
        (["history", "--limit", "-5"], "--limit: 1 or more"),
        (["bot", "--strategy", "greedy", "--room", "x", "--games", "0"], "--games"),
        (["bot", "--strategy", "greedy", "--room", "x", "--seats", "99"], "--seats: 1 to 8"),
        (["bot", "--strategy", "greedy", "--room", "x", "--wait", "-3"], "--wait"),
        (["bot", "--strategy", "greedy", "--quickplay", "--bot-after", "-1"], "--bot-after"),
        (["tournament", "create", "t", "--max-players", "9999"], "--max-players"),
        (["tournament", "create", "t", "--card-clock", "-1"], "--card-clock"),
        (["tournament", "create", "t", "--rounds", "0"], "--rounds"),
        (["tournament", "create", "t", "--start-in", "-5"], "--start-in"),
        (["tournament", "create", "t", "--bots", "-2"], "--bots"),
        # The protocol's schema names the formats and the deals a table may play.
        (["tournament", "create", "t", "--format", "arena"], "--format: input should be"),
        (["tournament", "create", "t", "--best-of", "4"], "--best-of: input should be 1, 3 or 5"),
    ],
)
def test_out_of_range_options_are_one_line_errors(
    run_cli: Runner, argv: list[str], fragment: str
) -> None:
    assert_one_line_error(run_cli(*argv), fragment)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("rate_burst = -3\n", "rate_burst: more than 0"),
        ("grace_ms = -1\n", "grace_ms: 0 or more"),
        ("port = 70000\n", "port: 1 to 65535"),
        ("nosuch = 1\n", "no setting 'nosuch'"),
        ('rooms_per_address = "5/week"\n', "rooms_per_address"),
        ('max_waiting_rooms = "many"\n', "max_waiting_rooms: a whole number"),
        ("[unclosed\n", "is not TOML"),
    ],
)
def test_a_bad_config_file_is_a_one_line_error(
    run_cli: Runner, tmp_path: Path, text: str, fragment: str
) -> None:
    path = tmp_path / "server.toml"
    path.write_text(text)
    assert_one_line_error(run_cli("serve", "--config", str(path)), fragment)


def test_the_config_file_and_the_options_make_the_settings(run_cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text('rooms_per_address = "5/min"\nmax_waiting_rooms = 300\nport = 9000\n')
    result = run_cli("serve", "--config", str(path), "--port", "0", "--grace", "1.5",
                     "--print-config")  # fmt: skip
    assert result.code == 0, result.err
    lines = set(result.out.splitlines())
    assert {'rooms_per_address = "5/min"', "max_waiting_rooms = 300", "port = 0",
            "grace_ms = 1500"} <= lines  # fmt: skip
    # What it prints is a config file it reads back unchanged.
    again = tmp_path / "again.toml"
    again.write_text(result.out)
    assert run_cli("serve", "--config", str(again), "--print-config").out == result.out


def test_serve_defaults_print_as_documented(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--print-config"]) == 0
    out = capsys.readouterr().out
    assert "port = 8765\n" in out and "grace_ms = 60000\n" in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["serve", "--store", "mysql://u@h/db"], "a path, sqlite:///PATH or postgresql://"),
        (["serve", "--store", "sqlite://"], "a SQLite URL is sqlite:///PATH"),
        (["serve", "--store", "postgresql://u:hunter2@127.0.0.1:1/"], "name the database"),
        (["serve", "--db", "a.db", "--store", "b.db"], "--db and --store both name the store"),
        # Nothing listens on port 1: refused before the server starts, in one line.
        (["serve", "--store", "postgresql://u@127.0.0.1:1/db"], "cannot open the database db"),
    ],
)
def test_a_store_that_cannot_be_one_is_a_one_line_error(
    run_cli: Runner, argv: list[str], fragment: str
) -> None:
    result = run_cli(*argv)
    assert_one_line_error(result, fragment)
    assert "hunter2" not in result.err  # a password is never printed


def test_the_store_is_set_by_the_config_file_and_checked_there_too(
    run_cli: Runner, tmp_path: Path
) -> None:
    path = tmp_path / "server.toml"
    path.write_text('store = "postgresql://cribsquares@db.example.org:5432/cribsquares"\n')
    result = run_cli("serve", "--config", str(path), "--print-config")
    assert result.code == 0, result.err
    assert 'store = "postgresql://cribsquares@db.example.org:5432/cribsquares"' in result.out
    path.write_text('store = "ftp://example.org/db"\n')
    assert_one_line_error(run_cli("serve", "--config", str(path)), "store:")


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["tournament", "show", "-zhCnJuv"], "cribsquares tournament show -- -zhCnJuv"),
        (
            ["tournament", "export", "-zhCnJuv", "--format", "json"],
            "cribsquares tournament export --format json -- -zhCnJuv",
        ),
        (["analyze", "-3KdKZAjbkuO"], "cribsquares analyze -- -3KdKZAjbkuO"),
    ],
)
def test_an_id_beginning_with_a_dash_gets_a_hint_to_use_double_dash(
    run_cli: Runner, argv: list[str], shown: str
) -> None:
    result = run_cli(*argv)
    assert result.code == 2 and result.out == ""
    error, hint = result.err.splitlines()
    assert error.startswith("cribsquares")
    assert hint == f"hint: an id beginning with '-' goes last, after '--': {shown}"


@pytest.mark.parametrize(
    "argv",
    [["history", "--match", "-3KdKZAjbkuO"], ["history", "--match", "--", "-3KdKZAjbkuO"]],
)
def test_an_option_s_id_beginning_with_a_dash_gets_a_hint_to_join_it(
    run_cli: Runner, argv: list[str], tmp_path: Path
) -> None:
    result = run_cli(*argv)
    assert result.code == 2 and result.out == ""
    error, hint = result.err.splitlines()
    assert error.startswith("cribsquares")
    shown = "cribsquares history --match=-3KdKZAjbkuO"
    assert hint == f"hint: an id beginning with '-' is joined to its option with '=': {shown}"
    # The form shown is read as the id (the database asked for is missing: one line).
    missing = tmp_path / "none.db"
    joined = run_cli("history", "--match=-3KdKZAjbkuO", "--db", str(missing))
    assert joined.code != 0 and "expected one argument" not in joined.err
    assert str(missing) in joined.err


def test_an_unknown_short_option_gets_no_id_hint(run_cli: Runner) -> None:
    assert_one_line_error(run_cli("hand", "5H", "TD", "QS", "TC", "-x"), "cribsquares")
