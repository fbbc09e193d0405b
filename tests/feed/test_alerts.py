"""Price alerts: when each kind fires, that it fires once, and the file that keeps them across restarts."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from tui.feed.alerts import Alert, AlertBook, alerts_path

D = Decimal


def prices(btc: str, source: str = "last") -> dict[tuple[str, str], Decimal]:
    return {("BTC-PERP", source): D(btc)}


def test_above_and_below_fire_once_then_disarm(tmp_path: Path) -> None:
    book = AlertBook(tmp_path / "a.json")
    book.put(Alert(1, "BTC-PERP", "last", "above", D(101_000)))
    book.put(Alert(2, "BTC-PERP", "mark", "below", D(99_000), bell=False))
    assert book.check(prices("100500"), 0) == []
    [fired] = book.check(prices("101000"), 1)  # at the level counts
    assert fired.alert.id == 1 and fired.text() == "BTC-PERP last price above 101,000: now 101,000"
    assert book.check(prices("102000"), 2) == []  # disarmed: once
    assert book.check(prices("99000"), 3) == []  # the mark alert watches the mark, not the last price
    [low] = book.check(prices("98999.5", "mark"), 4)
    assert low.alert.id == 2 and not low.alert.bell
    assert [a.armed for a in AlertBook.load(book.path).alerts] == [False, False]  # disarmed on disk too
    book.toggle(1)
    assert [f.alert.id for f in book.check(prices("101500"), 5)] == [1]  # armed again: it fires again


def test_a_move_within_its_window(tmp_path: Path) -> None:
    book = AlertBook(tmp_path / "a.json")
    book.put(Alert(1, "BTC-PERP", "index", "move", D(2), window_s=600))
    assert book.check(prices("100000", "index"), 0) == []
    assert book.check(prices("101000", "index"), 100) == []  # 1%
    [up] = book.check(prices("102000", "index"), 200)  # 2% from 100,000 within ten minutes
    assert up.text().endswith("100,000 → 102,000 (+2.00%)") and up.alert.armed
    assert book.check(prices("102500", "index"), 300) == []  # the window started afresh at 102,000
    assert book.check(prices("100000", "index"), 1000) == []  # 2.4% down, but 102,000 is 800 s ago: out
    [down] = book.check(prices("97900", "index"), 1100)  # 2.1% under 100,000 (seen 100 s ago)
    assert down.since == D(100000)


def test_alerts_survive_a_restart_and_a_bad_file_is_kept_aside(tmp_path: Path) -> None:
    path = alerts_path(tmp_path, "My Profile/x")
    assert path.name == "alerts-my_profile_x.json"
    book = AlertBook.load(path)
    book.put(Alert(book.next_id(), "ETH-PERP", "last", "below", D("3000.5")))
    again = AlertBook.load(path)
    assert again.alerts == book.alerts and again.problem == ""
    for text in ("{not json", json.dumps({"alerts": [{"id": 1, "symbol": "X", "source": "last"}]}),
                 json.dumps({"alerts": [{"id": 1, "symbol": "X", "source": "last", "condition": "above",
                                         "level": "-5"}]})):  # fmt: skip
        path.write_text(text)
        bad = AlertBook.load(path)
        assert bad.alerts == [] and "could not be read" in bad.problem and not path.exists()
        [aside] = [p for p in tmp_path.iterdir() if p.name.startswith(path.name + ".bad-")]
        assert aside.read_text() == text  # nothing lost: the trader's file is still there, beside
        aside.unlink()
