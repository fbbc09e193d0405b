"""``xtui --seed N``: the dashboard's built-in exchange plays the market of seed N; a bad seed, or a seed for an
exchange that is not the built-in one, is refused with a message that says why."""

from __future__ import annotations

import pytest

from tests.waiting import until_sync
from tui.cli.main import MAX_SEED, build_parser, main
from tui.config.errors import StartupError
from tui.config.launch import Flags
from tui.ui.run import local_exchange, prepare


def test_the_seed_reaches_the_built_in_exchange() -> None:
    args = build_parser().parse_args(["--seed", "42"])
    launch = prepare(None, Flags(seed=args.dashboard_seed))
    exchange = local_exchange(launch)
    assert exchange is not None
    exchange.start()
    try:  # it says its seed before it serves; the line is read off its standard error by a thread
        until_sync(lambda: exchange.seed is not None, "the seed line")
        assert exchange.seed == 42
    finally:
        exchange.stop()


def test_without_a_seed_the_market_is_fresh() -> None:
    assert build_parser().parse_args([]).dashboard_seed is None
    assert prepare(None, Flags()).flags.seed is None


@pytest.mark.parametrize("bad", ["abc", "-1", "1.5", "1e3", "٣", "", str(MAX_SEED + 1)])
def test_a_bad_seed_is_refused(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--seed", bad])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    said = f"--seed: the seed must be a whole number from 0 to {MAX_SEED}, not {bad!r}"
    assert err == f"xtui: error: {said} (xtui --help)\n"  # one line


@pytest.mark.parametrize("where", [{"url": "http://127.0.0.1:9"}, {"testnet": True}])
def test_a_seed_for_another_exchange_is_refused(where: dict[str, object]) -> None:
    with pytest.raises(StartupError, match="only the built-in exchange plays a seeded market"):
        prepare(None, Flags(seed=3, **where))  # type: ignore[arg-type]


def test_the_command_line_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "3", "--url", "http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("xtui: --seed 3: only the built-in exchange") and err.count("\n") == 1
