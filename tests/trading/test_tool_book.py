"""The file that lets a trailing stop and an OCO outlive the terminal (``tui.trading.tool_book``): written whole, read
back equal; a damaged or hostile file is set aside with a notice (never used in part, never written over), and the
book starts empty. Tried: not JSON, nested 10,000 deep, 1 MB, a wrong version, an extra field, a bad address, symbol,
cloid, side, id, a number that is not one (NaN, Infinity, 1e999, negative, a float), too many trails, random bytes,
a trail's placing stop with an extra field, a bad cloid, NaN, or not an object; a leg's resize (placing) with an
extra field, a bad cloid or NaN;
for an OCO: an extra or missing leg field, legs on two sides or with one cloid, a take-profit with a trigger, a stop
without one, a bad instrument or whole flag, too many OCOs. A file with no "ocos" (the trail-only builds) is read."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.trading.orders import OrderPlan
from tui.trading.tool_book import (
    MAX_FILE_BYTES,
    MAX_KEPT,
    KeptLeg,
    KeptOco,
    KeptResize,
    KeptStop,
    KeptTrail,
    ToolBook,
    tool_book_path,
)
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


def oco(i: int = 1, **over: object) -> KeptOco:
    fields: dict[str, object] = {
        "account": ACCOUNT, "id": i, "symbol": "BTC-PERP", "instrument_id": 1, "whole": True, "size": D("0.1"),
        "take_profit": KeptLeg(f"oc{i}x1733000000-t1", "sell", D(110000), None, D("0.1")),
        "stop": KeptLeg(f"oc{i}x1733000000-s1", "sell", D("88200"), D(90000), D("0.1")),
    }  # fmt: skip
    return KeptOco(**(fields | over))  # type: ignore[arg-type]


def raw_leg(tag: str = "t", **over: object) -> dict[str, object]:
    price, trigger = ("110000", None) if tag == "t" else ("88200", "90000")
    return {"cloid": f"oc1x1733000000-{tag}1", "side": "sell", "price": price, "trigger": trigger, "size": "0.1"} | over


def raw_oco(i: int = 1, **over: object) -> dict[str, object]:
    return {
        "account": ACCOUNT, "id": i, "symbol": "BTC-PERP", "instrument": 1, "whole": True, "size": "0.1",
        "take_profit": raw_leg("t"), "stop": raw_leg("s"),
    } | over  # fmt: skip


def sending(**stop: object) -> bytes:
    """A file with one trail whose stop being sent is ``stop``."""
    return json.dumps({"version": 1, "trails": [raw(placing=stop)]}).encode()


def resizing(**placing: object) -> bytes:
    """A file with one OCO whose stop's resize is sending ``placing``."""
    return book_of([raw_oco(stop=raw_leg("s", placing=placing))])


def book_of(ocos: list[object], trails: list[object] | None = None) -> bytes:
    return json.dumps({"version": 1, "trails": trails or [], "ocos": ocos}).encode()


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


def test_the_stop_a_trail_is_sending_is_read_back_with_it(tmp_path: Path) -> None:
    """Kept before it is sent (a kill may come before its answer): a move's new stop beside the one it replaces."""
    path = tool_book_path(tmp_path, "LOCAL")
    moving = trail(1, placing=KeptStop("tr1x1733000000-2", D("97500"), D("0.03")))
    ToolBook.load(path).keep(ACCOUNT, [moving, trail(2)])
    assert ToolBook.load(path).trails == [moving, trail(2)]
    assert "placing" not in json.loads(path.read_text())["trails"][1]  # nothing being sent: the field is left out


def test_a_legs_resize_under_way_is_read_back_and_found_resting(tmp_path: Path) -> None:
    """A stop being resized: its new order kept beside the old one. Read back equal; as the exchange shows it, the new
    order is the leg when it rests (the old one named when it rests too), else the old one is."""
    path = tool_book_path(tmp_path, "LOCAL")
    pair = oco(1)
    stop = msgspec.structs.replace(pair.stop, placing=KeptResize("oc1x1733000000-s2", D("0.3")))
    pair = msgspec.structs.replace(pair, stop=stop)
    ToolBook.load(path).keep_ocos(ACCOUNT, [pair, oco(2)])
    assert ToolBook.load(path).ocos == [pair, oco(2)]
    tp, old, new = pair.take_profit.cloid, stop.cloid, "oc1x1733000000-s2"
    both, replaced = pair.as_resting({tp, old, new})
    assert (both.stop.cloid, both.stop.size, both.stop.placing, replaced) == (new, D("0.3"), None, [old])
    assert both.stop.trigger == stop.trigger and both.take_profit == pair.take_profit
    gone_old, replaced = pair.as_resting({tp, new})
    assert (gone_old.stop.cloid, replaced) == (new, [])
    not_sent, replaced = pair.as_resting({tp, old})  # killed before it was sent: the old one is the leg
    assert not_sent == oco(1) and replaced == []


def test_another_accounts_trails_are_left_as_they_are(tmp_path: Path) -> None:
    path = tool_book_path(tmp_path, "LOCAL")
    book = ToolBook.load(path)
    other = trail(5, account="0x" + "cd" * 20)
    book.keep(other.account, [other])
    book.keep(ACCOUNT, [trail(1)])
    book.keep(ACCOUNT, [])
    assert ToolBook.load(path).trails == [other]


def test_kept_ocos_are_read_back_as_written_beside_the_trails(tmp_path: Path) -> None:
    path = tool_book_path(tmp_path, "LOCAL")
    book = ToolBook.load(path)
    part = oco(2, whole=False, size=D("0.04"), stop=KeptLeg("oc2x1733000000-s3", "sell", D(0), D(90000), D("0.04")))
    book.keep_ocos(ACCOUNT, [oco(1), part])
    book.keep(ACCOUNT, [trail(1)])
    again = ToolBook.load(path)
    assert again.ocos == [oco(1), part] and again.trails == [trail(1)] and again.problem == ""
    assert again.ocos_of(ACCOUNT.upper().replace("0X", "0x")) == again.ocos
    assert again.ocos[0].words() == (
        "OCO 1: SELL 0.1 BTC-PERP, take-profit at 110,000, stop trigger 90,000, for the whole position"
    )
    assert "for 0.04 of the position" in again.ocos[1].words()
    book.keep_ocos(ACCOUNT, [])
    assert ToolBook.load(path).ocos == [] and ToolBook.load(path).trails == [trail(1)]


def test_a_kept_leg_places_what_the_oco_placed() -> None:
    """A leg read back is the plan the OCO places again when it resizes: a reduce-only limit, a reduce-only stop
    market bounded by its price."""
    tp = OrderPlan(1, "BTC-PERP", "sell", "limit", D(110000), D("0.1"), D(110000), reduce_only=True, cloid="c1")
    stop = OrderPlan(
        1, "BTC-PERP", "sell", "stop", D(88200), D("0.1"), D(90000), reduce_only=True, trigger=D(90000), market=True,
        cloid="c2",
    )  # fmt: skip
    assert KeptLeg.of("c1", tp).plan(1, "BTC-PERP") == tp
    assert KeptLeg.of("c2", stop).plan(1, "BTC-PERP") == stop


def test_a_file_written_before_ocos_were_kept_is_read(tmp_path: Path) -> None:
    path = tool_book_path(tmp_path, "LOCAL")
    path.write_text(json.dumps({"version": 1, "trails": [raw()]}))
    book = ToolBook.load(path)
    assert book.trails == [trail()] and book.ocos == [] and book.problem == ""


def test_a_full_book_at_its_longest_fits_the_file_limit(tmp_path: Path) -> None:
    """MAX_KEPT trails and MAX_KEPT OCOs, every field at its longest, are written and read back: the limit never
    sets aside a file xtui wrote itself."""
    path = tool_book_path(tmp_path, "LOCAL")
    big, name, cid = D("-0." + "9" * 37).copy_abs(), "X" * 40, "c" * 64
    leg = KeptLeg(cid, "sell", big, big, big, KeptResize("e" * 64, big))
    ocos = [oco(999_999, symbol=name, size=big, take_profit=KeptLeg("d" * 64, "sell", big, None, big), stop=leg)
            for _ in range(MAX_KEPT)]  # fmt: skip
    trails = [trail(999_999, spec=TrailSpec(name, "sell", big, True, "mark"), peak=big, cloid=cid, trigger=big,
                    size=big, placing=KeptStop(cid, big, big)) for _ in range(MAX_KEPT)]  # fmt: skip
    book = ToolBook.load(path)
    book.keep_ocos(ACCOUNT, ocos)
    book.keep(ACCOUNT, trails)
    assert path.stat().st_size <= MAX_FILE_BYTES
    again = ToolBook.load(path)
    assert again.problem == "" and len(again.ocos) == len(again.trails) == MAX_KEPT


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
    ("placing extra", sending(cloid="a", trigger="1", size="1", oid=3), "placing stop"),
    ("placing cloid", sending(cloid="\x1b[2J", trigger="1", size="1"), "placing cloid"),
    ("placing NaN", sending(cloid="a", trigger="NaN", size="1"), "out of range"),
    ("placing list", json.dumps({"version": 1, "trails": [raw(placing=["a"])]}).encode(), "placing stop"),
    ("leg placing extra", resizing(cloid="a", size="1", x=1), "placing has the fields"),
    ("leg placing cloid", resizing(cloid="a b", size="1"), "placing cloid"),
    ("leg placing NaN", resizing(cloid="a", size="NaN"), "out of range"),
    ("top-level key", json.dumps({"version": 1, "trails": [], "evil": []}).encode(), "expected"),
    ("ocos not a list", json.dumps({"version": 1, "trails": [], "ocos": {}}).encode(), "expected"),
    ("oco extra field", book_of([raw_oco(evil=1)]), "fields"),
    ("oco missing leg", book_of([{k: v for k, v in raw_oco().items() if k != "stop"}]), "fields"),
    ("leg extra field", book_of([raw_oco(stop=raw_leg("s", oid=7))]), "stop has the fields"),
    ("leg not a dict", book_of([raw_oco(take_profit=["x"])]), "take_profit has the fields"),
    ("oco address", book_of([raw_oco(account="0x" + "g" * 40)]), "address"),
    ("oco symbol", book_of([raw_oco(symbol="BTC\x07")]), "instrument name"),
    ("oco id", book_of([raw_oco(id=0)]), "id"),
    ("oco instrument", book_of([raw_oco(instrument="1")]), "instrument id"),
    ("oco whole", book_of([raw_oco(whole=1)]), "true or false"),
    ("leg cloid", book_of([raw_oco(stop=raw_leg("s", cloid="\x1b]52;c;"))]), "client order id"),
    ("leg side", book_of([raw_oco(stop=raw_leg("s", side="short"))]), "side"),
    ("two sides", book_of([raw_oco(stop=raw_leg("s", side="buy"))]), "one side"),
    ("one cloid", book_of([raw_oco(stop=raw_leg("s", cloid="oc1x1733000000-t1"))]), "two cloids"),
    ("tp trigger", book_of([raw_oco(take_profit=raw_leg("t", trigger="1"))]), "trigger"),
    ("stop no trigger", book_of([raw_oco(stop=raw_leg("s", trigger=None))]), "trigger"),
    ("leg NaN", book_of([raw_oco(take_profit=raw_leg("t", price="NaN"))]), "out of range"),
    ("leg negative", book_of([raw_oco(stop=raw_leg("s", price="-1"))]), "out of range"),
    ("tp price 0", book_of([raw_oco(take_profit=raw_leg("t", price="0"))]), "out of range"),
    ("leg float", book_of([raw_oco(stop=raw_leg("s", size=0.1))]), "as a string"),
    ("oco size 1e999", book_of([raw_oco(size="1e999")]), "out of range"),
    ("too many ocos", book_of([raw_oco(i) for i in range(1, MAX_KEPT + 2)]), "more than"),
    ("bad oco, good trail", book_of([raw_oco(whole=None)], [raw()]), "true or false"),
]


@pytest.mark.parametrize(("name", "body", "said"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_bad_file_is_set_aside_with_a_notice_and_never_used(
    tmp_path: Path, name: str, body: bytes, said: str
) -> None:
    path = tool_book_path(tmp_path, "LOCAL")
    path.write_bytes(body)
    book = ToolBook.load(path)
    assert book.trails == [] and book.ocos == []
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
    assert book.problem or all(isinstance(o, KeptOco) for o in book.ocos)
