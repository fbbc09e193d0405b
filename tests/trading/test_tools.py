"""Every order tool speaks the one protocol (``tui.trading.tools.OrderTool``), and the app reaches them through the
session's list: a new tool that forgets a member fails here, not on a trader's quit."""

from __future__ import annotations

import pytest

from tui.trading.chase import ChaseRunner
from tui.trading.oco import OcoRunner
from tui.trading.tools import OrderTool
from tui.trading.trailing import TrailRunner
from tui.trading.twap import TwapRunner

RUNNERS = [TwapRunner, TrailRunner, ChaseRunner, OcoRunner]


@pytest.mark.parametrize("runner", RUNNERS, ids=[r.__name__ for r in RUNNERS])
def test_each_runner_is_an_order_tool(runner: type) -> None:
    members = ("name", "protective", "on_exit", "jobs", "left_if_ended", "owned_cloids", "end_all", "uncovered")
    assert [m for m in members if not hasattr(runner, m)] == []
    assert isinstance(runner.name, str) and runner.on_exit.endswith(".")  # type: ignore[attr-defined]


def test_the_protective_tools_are_the_trailing_stop_and_the_oco() -> None:
    assert {r.__name__ for r in RUNNERS if r.protective} == {"TrailRunner", "OcoRunner"}  # type: ignore[attr-defined]


def test_the_protocol_is_checked_at_run_time() -> None:
    class Half:
        name = "Half"

    assert not isinstance(Half(), OrderTool)
