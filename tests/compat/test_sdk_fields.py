"""Every answer of ``xtui sim`` holds what the pinned SDKs' types require, read mechanically from the SDKs:
the Python SDK's dataclasses (``sdk_py_shapes.py`` in its own environment) and the TypeScript SDK's ``.d.ts``
files (``sdk_shapes.read_ts_shapes``), checked against real answers of a running sim, for an ordinary
account with a position, an order, a transfer and a vault deposit, and for a vault's own account.

A required field missing is a failure. Where a type's kind of value contradicts the exchange interface (which
the sim follows), the difference is listed in DISAGREEMENTS and must stay exactly that: a new pin that agrees
with the interface, or differs anew, fails here until the list is brought up to date.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import DRIVER_S, HERE
from .sdk_shapes import Shape, problems, read_ts_declaration, read_ts_shapes

# TypeScript InfoClient methods whose Python SDK name is not their snake_case
TS_TO_ANSWER = {"tradeHistory": "fills", "agents": "all_agents"}
# an answer for the vault's own account is checked against the account_summary types
SAME_TYPE = {"account_summary.vault": "account_summary"}
# (SDK, answer, problem with list indexes as [i]): the interface says otherwise, and the sim follows it
DISAGREEMENTS = {
    ("python", "orderbook", "bids[i].price: a number, not a string"),  # interface: {price number, size number}
    ("python", "orderbook", "bids[i].size: a number, not a string"),
    ("typescript", "orderbook", "bids[i].price: a number, not a string"),
    ("typescript", "orderbook", "bids[i].size: a number, not a string"),
    ("typescript", "supported_collateral", "[i].coll_risk: a object, not a list"),  # interface: an object
}


def _answer_name(ts_method: str) -> str:
    return TS_TO_ANSWER.get(ts_method) or re.sub(r"[A-Z]", lambda m: "_" + m.group(0).lower(), ts_method)


@pytest.fixture(scope="module")
def answers(sim_url: Callable[[str], str], drive: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    r = drive("drive_queries.py", sim_url("testnet"), "http", "testnet")
    assert {k: x["error"] for k, x in r.items() if not x["ok"] and k != "bad_query"} == {}
    return {k: x["value"] for k, x in r.items() if x["ok"]}


@pytest.fixture(scope="module")
def python_shapes(sdk_python: Path) -> dict[str, Shape]:
    done = subprocess.run(
        [str(sdk_python), str(HERE / "sdk_py_shapes.py")], capture_output=True, text=True, timeout=DRIVER_S
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {method: found["shape"] for method, found in json.loads(done.stdout).items()}


def _found(sdk: str, shapes: dict[str, Shape], answers: dict[str, Any]) -> set[tuple[str, str, str]]:
    found = set()
    for name, value in answers.items():
        shape = shapes.get(SAME_TYPE.get(name, name))
        if shape is not None:
            found |= {(sdk, SAME_TYPE.get(name, name), re.sub(r"\[\d+\]", "[i]", p)) for p in problems(shape, value)}
    return found


def test_answers_hold_the_python_sdks_required_fields(answers: dict[str, Any], python_shapes: dict[str, Shape]) -> None:
    """Every info method the Python SDK has a type for is answered, with every field the type requires."""
    called = set(answers) - {"address"}
    assert set(python_shapes) <= {SAME_TYPE.get(n, n) for n in called}, "a typed method the driver does not call"
    assert len(python_shapes) >= 30  # the pin's InfoClient: all its methods have a type
    assert _found("python", python_shapes, answers) == {d for d in DISAGREEMENTS if d[0] == "python"}


def test_answers_hold_the_typescript_sdks_required_fields(answers: dict[str, Any], ts_dist: Path) -> None:
    """Every InfoClient method of the TypeScript SDK (read from info.api.d.ts) is answered, with every field
    its response interface requires (read from the methods' .d.ts files)."""
    shapes = {_answer_name(method): shape for method, shape in read_ts_shapes(ts_dist).items()}
    assert len(shapes) >= 29 and set(shapes) <= set(answers), sorted(set(shapes) - set(answers))
    assert _found("typescript", shapes, answers) == {d for d in DISAGREEMENTS if d[0] == "typescript"}


def test_the_vault_summary_is_checked_with_its_fields(answers: dict[str, Any]) -> None:
    """The vault's own summary carries the object the TypeScript type describes (an ordinary account: null)."""
    assert answers["account_summary"]["vault_summary"] is None
    summary = answers["account_summary.vault"]["vault_summary"]
    assert set(summary) == {"apr", "lock_in_period", "shares", "equity_daily", "daily_nav_changes"}
    assert summary["lock_in_period"] == 86_400_000 and summary["shares"] > 0


def test_a_missing_field_and_a_wrong_kind_are_found() -> None:
    """The reader and the checker on a declaration written here: optional, nested, Record, arrays, unions."""
    shape = read_ts_declaration(
        """export interface IThing {
            name: string; size?: number; tags: string[]; side: 'b' | 's';
            legs: { price: number; note?: string }[];
            book: Record<string, { balance: number }>;
            anything: {};
        }""",
        "IThing",
    )
    good = {
        "name": "x",
        "tags": [],
        "side": "b",
        "legs": [{"price": 1}],
        "book": {"USDC": {"balance": 2}},
        "anything": 3,
    }
    assert problems(shape, good) == []
    bad = {"tags": ["a", 1], "side": "x", "size": "9", "legs": [{"price": "1"}], "book": {"USDC": {}}, "anything": 0}
    assert problems(shape, bad) == [
        "name: missing",
        "size: a string, not a number",
        "tags[1]: a number, not a string",
        "side: 'x' is none of ['b', 's']",
        "legs[0].price: a string, not a number",
        "book['USDC'].balance: missing",
    ]
