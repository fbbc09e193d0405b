"""Every dialog of the dashboard at 80x24 shows its hint whole: what Enter does and how to leave is never cut
mid-word nor pushed off the screen (a bracket with its PnL lines is taller than 24 rows: its fields scroll, the
hint stays). Read from what the terminal would show (the screenshot's text), not from the widgets."""

from __future__ import annotations

import html
import re

import pytest

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)
HINTS = re.compile(r"(Enter: [a-z ]+|Tab: next field|Escape: cancel|No \(n\)|Yes \(y\)|Cancel \(esc\))")
# (the key that opens it, what its hint must say whole)
DIALOGS = [
    ("b", ["Cancel (esc)"]),
    ("a", ["Tab: next field", "Escape: cancel"]),
    ("o", ["Tab: next field", "Escape: cancel"]),
    ("c", ["Tab: next field", "Escape: cancel"]),
    ("l", ["Tab: next field", "Escape: cancel"]),
    ("S", ["Tab: next field", "Escape: cancel"]),
    ("C", ["No (n)"]),
    ("P", ["No (n)", "PANIC (y)"]),
    ("ctrl+r", ["No (n)", "Reverse (y)"]),
]


def screen_lines(svg: str) -> list[str]:
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(m[2]), []).append((float(m[1]), html.unescape(m[3])))
    return ["".join(t for _, t in sorted(v)).replace("\xa0", " ") for _, v in sorted(rows.items())]


@pytest.mark.parametrize(("key", "hints"), DIALOGS, ids=[k for k, _ in DIALOGS])
async def test_each_dialog_shows_its_hint_whole_at_80x24(
    sim: LocalExchange, clock: FrozenClock, trader: Client, key: str, hints: list[str]
) -> None:
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
        await pilot.press("3", key)
        await settle(pilot, lambda: app.screen is not app.main, what=f"the dialog of {key}")
        await pilot.pause(0.1)
        lines = screen_lines(app.export_screenshot())
        text = "\n".join(lines)
        missing = [h for h in hints if h not in text]
        assert not missing, f"{missing} not whole on the screen:\n{text}"
