"""The file that lets a trailing stop outlive the terminal (``tui.trading.tool_book``): written whole, read back
equal; a damaged or hostile file is set aside with a notice (never used in part, never written over), and the book
starts empty. Tried: not JSON, nested 10,000 deep, 1 MB, a wrong version, an extra field, a bad address, symbol,
cloid, side, id, a number that is not one (NaN, Infinity, 1e999, negative, a float), too many trails, random bytes."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.trading.tool_book import MAX_KEPT, KeptTrail, ToolBook, tool_book_path
from tui.trading.trail_plan import TrailSpec

D = Decimal
ACCOUNT = "0x" + "ab" * 20


def trail(i: int = 1, **over: object) -> KeptTrail:
    fields: dict[str, object] = {
        "account": ACCOUNT, "id": i, "spec": TrailSpec("BTC-PERP", "sell", D(3), True, "mark"), "peak": D(100250),
        "cloid": f"tr{i}x1733000000-1", "trigger": D("97242.5"), "size": D("0.03"),
    }  # fmt: skip
    return KeptTrail(**(fields | over))  # type: ignore[arg-type]


def raw(i: int = 1, **over: object) -> dict[str, object]:
    return {
        "account": ACCOUNT, "id": i, "symbol": "BTC-PERP", "side": "sell", "distance": "3", "percent": True,
        "source": "mark", "peak": "100250", "cloid": f"tr{i}x1733000000-1", "trigger": "97242.5", "size": "0.03",
    } | over  # fmt: skip


def test_kept_trails_are_read_back_as_written(tmp_path: Path) -> None:
    path = tool_book_path(tmp_path, "LOCAL")
    book = ToolBook.load(path)
    assert book.trails == [] and book.problem == ""
    book.keep(ACCOUNT, [trail(1), trail(2, peak=D(3500), spec=TrailSpec("ETH-PERP", "buy", D(25)))])
    again = ToolBook.load(path)
    assert again.trails == book.trails and again.problem == ""
    assert again.of(ACCOUNT.upper().replace("0X", "0x")) == again.trails
    assert again.trails[0].words() == (
        "trailing stop 1: SELL 0.03 BTC-PERP stop at 97242.5, 3% behind the mark, peak 100250"
    )
    assert "trough" in again.trails[1].words()


def test_another_accounts_trails_are_left_as_they_are(tmp_path: Path) -> None:
    path = tool_book_path(tmp_path, "LOCAL")
    book = ToolBook.load(path)
    other = trail(5, account="0x" + "cd" * 20)
    book.keep(other.account, [other])
    book.keep(ACCOUNT, [trail(1)])
    book.keep(ACCOUNT, [])
    assert ToolBook.load(path).trails == [other]


HOSTILE = [
    ("not json", b"{trails", "Expecting property name"),
    ("nested", b'{"version": 1, "trails": ' + b"[" * 5_000 + b"]" * 5_000 + b"}", "nested more than 6 deep"),
    ("1 MB", b'{"version": 1, "trails": ["' + b"x" * (1 << 20) + b'"]}', "more than the"),
    ("version", json.dumps({"version": 2, "trails": []}).encode(), "expected"),
    ("extra field", json.dumps({"version": 1, "trails": [raw(evil=1)]}).encode(), "fields"),
    ("address", json.dumps({"version": 1, "trails": [raw(account="0x12")]}).encode(), "address"),
    ("symbol", json.dumps({"version": 1, "trails": [raw(symbol="\x1b[2J")]}).encode(), "instrument name"),
    ("cloid", json.dumps({"version": 1, "trails": [raw(cloid="a b")]}).encode(), "client order id"),
    ("side", json.dumps({"version": 1, "trails": [raw(side="both")]}).encode(), "side"),
    ("id", json.dumps({"version": 1, "trails": [raw(i=True, id=True)]}).encode(), "id"),
    ("NaN", json.dumps({"version": 1, "trails": [raw(trigger="NaN")]}).encode(), "out of range"),
    ("Infinity", json.dumps({"version": 1, "trails": [raw(size="Infinity")]}).encode(), "out of range"),
    ("1e999", json.dumps({"version": 1, "trails": [raw(distance="1e999")]}).encode(), "out of range"),
    ("negative", json.dumps({"version": 1, "trails": [raw(size="-0.03")]}).encode(), "out of range"),
    ("float", json.dumps({"version": 1, "trails": [raw(trigger=97000.5)]}).encode(), "as a string"),
    ("too many", json.dumps({"version": 1, "trails": [raw(i) for i in range(1, MAX_KEPT + 2)]}).encode(), "more than"),
    ("bytes", b"\xff\xfe\x00garbage", "could not be read"),
]


@pytest.mark.parametrize(("name", "body", "said"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_bad_file_is_set_aside_with_a_notice_and_never_used(
    tmp_path: Path, name: str, body: bytes, said: str
) -> None:
    path = tool_book_path(tmp_path, "LOCAL")
    path.write_bytes(body)
    book = ToolBook.load(path)
    assert book.trails == []
    assert said in book.problem and "it was kept as" in book.problem
    [aside] = path.parent.glob(path.name + ".bad-*")
    assert aside.read_bytes() == body  # never lost
    book.keep(ACCOUNT, [trail()])  # the next save starts a fresh file
    assert ToolBook.load(path).trails == [trail()]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.binary(max_size=600) | st.text(max_size=600).map(str.encode))
def test_any_bytes_give_a_book_or_a_notice(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "tools-any.json"
    for old in tmp_path.glob("tools-any.json*"):
        old.unlink()
    path.write_bytes(body)
    book = ToolBook.load(path)
    assert book.problem or all(isinstance(t, KeptTrail) for t in book.trails)
