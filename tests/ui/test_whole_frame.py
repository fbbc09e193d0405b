"""What the terminal already shows is not written again (``tui.ui.render.whole_frame``), and the terminal ends up
exactly as if every frame had been written: checked cell by cell on a terminal emulator (pyte), over the
frames the real dashboard renders while the market moves and dialogs open and close, and on frames built to
reach each rule (a chop the terminal shows, one it does not, a chop written in part, a row named twice)."""

from __future__ import annotations

import gc
from typing import Any, ClassVar

import pyte
import pytest
from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, frames_handed, settle
from tests.ui.screen_steps import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.app import XtuiApp
from tui.ui.render.lean_app import LeanApp
from tui.ui.render.whole_frame import TerminalLines, first_row
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.order_form import OrderFormScreen
from tui.ui.widgets.pane import FollowsFeed

WIDTH, ROWS = 20, 3
CONSOLE = Console(color_system="truecolor", width=WIDTH, force_terminal=True)
RED, BLUE = Style(color="#ff0000"), Style(color="#0000ff", bold=True)
ALICE = Signer(ALICE_KEY)


def record(app: LeanApp[Any]) -> TerminalLines:
    """What ``app`` holds the terminal shows."""
    return app._on_terminal  # private: the app's record of the terminal, which no frame written shows


def hand(app: LeanApp[Any], frame: RenderableType) -> None:
    """``frame`` handed to the app to write, as Textual's compositor hands it one."""
    app._display(app.screen, frame)  # private: the hook LeanApp overrides, called as Textual calls it


class Terminal:
    """A terminal emulator fed the bytes frames write (``render_segments``), as the driver would."""

    def __init__(self, width: int, rows: int, console: Console) -> None:
        self.screen = pyte.Screen(width, rows)
        self.stream = pyte.Stream(self.screen)
        self.stream.feed("\x1b[?7l")  # no autowrap: what Textual's driver sets on the terminal
        self.console = console

    def write(self, update: RenderableType) -> None:
        self.stream.feed(update.render_segments(self.console))  # type: ignore[attr-defined]
        # the app moves the cursor where it wants it after each frame: here the worst place, the bottom row,
        # where a line feed the next frame wrote before its first move would scroll the whole screen
        self.stream.feed(f"\x1b[{self.screen.lines};{self.screen.columns}H")

    def cells(self) -> list[list[tuple[Any, ...]]]:
        buffer = self.screen.buffer
        return [[tuple(buffer[y][x]) for x in range(self.screen.columns)] for y in range(self.screen.lines)]


def whole(*lines: list[Strip]) -> LayoutUpdate:
    return LayoutUpdate([list(line) for line in lines], Region(0, 0, WIDTH, len(lines)))


def chops(rows: dict[int, dict[int, Strip]], spans: list[tuple[int, int, int]]) -> ChopsUpdate:
    """A partial frame: each row's chops by column (every row present, as the compositor makes them)."""
    lines: list[dict[int, Strip | None]] = [dict(rows.get(y, {})) for y in range(ROWS)]
    ends = [[x + strip.cell_length for x, strip in line.items() if strip is not None] for line in lines]
    return ChopsUpdate(lines, spans, ends)


def text(s: str, style: Style = RED) -> Strip:
    return Strip([Segment(s, style)])


def first_frame() -> LayoutUpdate:
    return whole([text("a" * 10), text("b" * 10)], [text("c" * 20)], [text("d" * 20)])


def replay(frames: list[RenderableType], width: int, rows: int, console: Console) -> tuple[Terminal, Terminal, int]:
    """Every frame written, and the frames as ``TerminalLines`` leaves them: both terminals, and how many
    frames were not written at all."""
    every, kept = Terminal(width, rows, console), Terminal(width, rows, console)
    lines, dropped = TerminalLines(), 0
    for frame in frames:
        every.write(frame)
        fresh = lines.to_write(frame)
        if fresh is None:
            dropped += 1
        else:
            kept.write(fresh)
        if kept.cells() != every.cells():
            differ = [
                (y, x)
                for y, (mine, theirs) in enumerate(zip(kept.cells(), every.cells(), strict=True))
                for x in range(width)
                if mine[x] != theirs[x]
            ]
            raise AssertionError(
                f"after frame {frames.index(frame)} ({type(frame).__name__}): cells differ at {differ[:5]}"
            )
    return every, kept, dropped


def test_a_frame_the_terminal_already_shows_is_not_written_and_a_changed_chop_alone_is() -> None:
    lines = TerminalLines()
    assert lines.to_write(first_frame()) is not None
    assert lines.to_write(first_frame()) is None  # the same whole frame again
    same = chops({0: {0: text("a" * 10), 10: text("b" * 10)}}, [(0, 0, WIDTH)])
    assert lines.to_write(same) is None
    changed = chops({0: {0: text("a" * 10), 10: text("B" * 10)}}, [(0, 0, WIDTH)])
    fresh = lines.to_write(changed)
    assert isinstance(fresh, ChopsUpdate) and fresh.chops[0] == {10: text("B" * 10)} and fresh.spans == [(0, 10, 20)]
    assert lines.to_write(changed) is None  # now on the terminal


def test_the_record_keeps_its_lines_and_not_the_pieces_cut_from_them() -> None:
    """Each chop is compared with the piece of the line under it, cut out of the record's line; Textual keeps every
    cut of a strip in the strip (up to 16). The record kept those pieces of its lines: ~440 strips at 160x48."""
    lines = TerminalLines()
    lines.to_write(first_frame())
    for n in range(16):  # each frame looks at other cells of the rows, some the same, some not
        x = n % 10
        row0 = "a" * x + "Q" + "a" * (9 - x) + "b" * 10
        lines.to_write(chops({0: {0: text(row0[:10]), 10: text(row0[10:])}, 2: {0: text("d" * 20)}},
                             [(0, x, x + 2), (2, x, x + 3)]))  # fmt: skip
    gc.collect()
    kept = [o for o in gc.get_referents(lines) if isinstance(o, list)]
    assert kept and all(isinstance(line, Strip) for line in kept[0])
    held = set().union(*(_strips_in(line) for line in kept[0]))
    assert len(held) <= 2 * ROWS, f"{len(held)} strips held for {ROWS} lines"


def _strips_in(strip: Strip) -> set[int]:
    """``strip`` and every strip it keeps in its caches, as the collector finds them: strip → its caches → their
    dicts → the strips (or lists of strips) in them."""
    seen: set[int] = set()
    todo = [strip]
    while todo:
        s = todo.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        for o in gc.get_referents(*gc.get_referents(*gc.get_referents(s))):
            todo += [x for x in (o if isinstance(o, list) else [o]) if isinstance(x, Strip)]
    return seen


def test_only_a_style_or_a_meta_tells_chops_apart_as_the_terminal_shows_them() -> None:
    lines = TerminalLines()
    lines.to_write(first_frame())
    meta = Style(color="#ff0000", meta={"row": 1})  # Textual's click data: never written to the terminal
    assert lines.to_write(chops({1: {0: text("c" * 20, meta)}}, [(1, 0, WIDTH)])) is None
    assert lines.to_write(chops({1: {0: text("c" * 20, BLUE)}}, [(1, 0, WIDTH)])) is not None


def test_a_chop_written_in_part_is_followed_as_textual_writes_it() -> None:
    """A table refreshing one row, or a cursor, names part of a chop: Textual writes it from the chop's start to the
    span's end. Such a frame ended the record, and every frame after it was written whole, region after region
    (the chart's 19 rows, ~6 KB, every redraw), until the next whole frame: most of a session."""
    lines = TerminalLines()
    lines.to_write(first_frame())
    assert lines.to_write(chops({1: {0: text("c" * 20)}}, [(1, 5, 10)])) is None  # shown already
    fresh = lines.to_write(chops({1: {0: text("cccccXXXXXccccc" + "YYYYY")}}, [(1, 5, 10)]))
    # Textual would write from the chop's start to the span's end (0..10); of those, the cells that changed
    assert isinstance(fresh, ChopsUpdate) and fresh.spans == [(1, 5, 10)]
    assert fresh.render_segments(CONSOLE).count("X") == 5 and "Y" not in fresh.render_segments(CONSOLE)
    assert lines.to_write(chops({1: {0: text("cccccXXXXX" + "c" * 10)}}, [(1, 0, WIDTH)])) is None  # followed


def test_a_changed_chop_writes_its_cells_from_the_first_that_changed_to_the_last() -> None:
    """A book row whose size changed rewrote its price too: the whole chop. Now the cells from the first that
    differs to the last; a wide character is written whole, never half."""
    lines = TerminalLines()
    lines.to_write(whole([text("a" * 20)], [text("ab\u6f22\u5b57cdefghijklmnop")], [text("d" * 20)]))
    fresh = lines.to_write(chops({0: {0: text("aaaXaaaYaa" + "a" * 10)}}, [(0, 0, WIDTH)]))
    assert isinstance(fresh, ChopsUpdate) and fresh.spans == [(0, 3, 8)] and fresh.chops[0] == {3: text("XaaaY")}
    # the second of two wide characters changes: from its first cell, both cells
    fresh = lines.to_write(chops({1: {0: text("ab\u6f22\u5b50cdefghijklmnop")}}, [(1, 0, WIDTH)]))
    assert isinstance(fresh, ChopsUpdate) and fresh.spans == [(1, 4, 6)] and fresh.chops[1] == {4: text("\u5b50")}
    # a style alone changes, in the middle
    shown = [Segment("d" * 9, RED), Segment("d", BLUE), Segment("d" * 10, RED)]
    fresh = lines.to_write(chops({2: {0: Strip(shown)}}, [(2, 0, WIDTH)]))
    assert isinstance(fresh, ChopsUpdate) and fresh.spans == [(2, 9, 10)]


def test_a_frame_outside_the_record_is_written_as_it_is_and_ends_it() -> None:
    lines = TerminalLines()
    lines.to_write(LayoutUpdate([[text("a" * 10)]], Region(0, 0, 10, 1)))  # a record of the top row only
    below = chops({1: {0: text("c" * 20)}}, [(1, 0, WIDTH)])
    assert lines.to_write(below) is below
    assert lines.to_write(chops({0: {0: text("a" * 10)}}, [(0, 0, 10)])) is not None  # no record any more
    assert lines.to_write(first_frame()) is not None and lines.to_write(first_frame()) is None  # a new one


def test_a_row_named_twice_and_a_chop_where_a_span_ends_are_followed() -> None:
    """Textual names a row twice when two regions on it changed, and a chop that starts where a span ends gets
    a move of the cursor and no cell: both were taken for frames the record could not follow, which ended it
    after almost every frame of a busy screen, so that the next whole frame was written whole."""
    lines = TerminalLines()
    lines.to_write(first_frame())
    twice = chops({0: {0: text("A" * 10), 10: text("b" * 10)}}, [(0, 0, 5), (0, 0, 10)])
    fresh = lines.to_write(twice)
    assert isinstance(fresh, ChopsUpdate) and fresh.spans == [(0, 0, 10)] and fresh.chops[0][0] == text("A" * 10)
    assert lines.to_write(twice) is None  # followed: the terminal shows it now
    at_the_end = chops({0: {0: text("A" * 10), 10: text("Z" * 10)}}, [(0, 0, 10)])  # the second chop: no cell
    assert lines.to_write(at_the_end) is None
    assert lines.to_write(first_frame()) is not None  # the terminal still shows "A" * 10: the record knew it


def test_after_a_suspension_the_same_whole_frame_is_written_again() -> None:
    lines = TerminalLines()
    lines.to_write(first_frame())
    lines.forget()  # the app was suspended: the terminal may be blank when it comes back
    assert lines.to_write(first_frame()) is not None


async def test_suspended_and_back_the_app_forgets_the_terminal_and_draws_the_whole_screen(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTSTP and fg give the terminal to the shell and back: it may show anything, so what it showed is
    forgotten, and the screen is drawn whole (Textual drew only what changed after it: seen in tmux as a blank
    screen with a few figures, before this; ``kill -TSTP``, then ``fg``)."""
    frames: list[RenderableType] = []
    frames_handed(monkeypatch, XtuiApp, lambda _app, frame: frames.append(frame))
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(100, 30)) as pilot:
        await feed_ready(app)
        for signal in (app.app_suspend_signal, app.app_resume_signal):
            record(app).to_write(first_frame())
            assert record(app).to_write(first_frame()) is None
            frames.clear()
            signal.publish(app)
            assert record(app).to_write(first_frame()) is not None, signal
        # the whole screen is drawn (on a busy machine a pane's own chops may come first: written as they are, since
        # the record was forgotten)
        screen = Region(0, 0, 100, 30)
        whole_drawn = lambda: any(isinstance(f, LayoutUpdate) and f.region == screen for f in frames)  # noqa: E731
        await settle(pilot, whole_drawn, what="the whole screen after the resume")


def test_a_whole_frame_over_the_same_region_writes_the_lines_it_changes() -> None:
    lines = TerminalLines()
    lines.to_write(first_frame())
    again = whole([text("a" * 10), text("b" * 10)], [text("C" * 20)], [text("d" * 20)])
    fresh = lines.to_write(again)
    assert isinstance(fresh, ChopsUpdate) and fresh.spans == [(1, 0, WIDTH)] and fresh.chops[1] == {0: text("C" * 20)}
    assert lines.to_write(again) is None  # it is what the terminal shows now


def test_a_whole_frame_of_another_size_is_written() -> None:
    lines = TerminalLines()
    lines.to_write(first_frame())
    smaller = LayoutUpdate([[text("a" * 10)]], Region(0, 0, 10, 1))
    assert lines.to_write(smaller) is smaller


def test_built_frames_leave_the_terminal_as_every_frame_written_would() -> None:
    frames: list[RenderableType] = [
        first_frame(),
        chops({0: {0: text("a" * 10), 10: text("b" * 10)}, 2: {0: text("d" * 20)}}, [(0, 0, WIDTH), (2, 0, WIDTH)]),
        chops({0: {0: text("x" * 10), 10: text("b" * 10)}}, [(0, 0, WIDTH)]),
        chops({1: {0: text("c" * 20, BLUE)}}, [(1, 0, WIDTH)]),
        chops({0: {0: text("y" * 10), 10: text("z" * 10)}}, [(0, 0, 10), (0, 10, WIDTH)]),  # a row named twice
        chops({0: {0: text("w" * 10), 10: text("q" * 10)}}, [(0, 0, 10)]),  # "q" starts where the span ends
        chops({1: {0: text("e" * 20)}}, [(1, 2, 8)]),  # in part: written from the chop's start to the span's end
        chops({1: {0: text("f" * 20)}}, [(1, 0, 20)]),
        chops({0: {0: text("a" * 10)}}, [(0, 0, 10)]),
        first_frame(),
        first_frame(),
        whole([text("a" * 10), text("B" * 10)], [text("c" * 20, BLUE)], [text("d" * 20)]),  # two lines changed
        whole([text("a" * 10), text("B" * 10)], [text("c" * 20)], [text("e" * 20)]),  # and two others
        chops({1: {0: text("cc\u6f22\u5b57cccccccccccccc")}}, [(1, 0, WIDTH)]),  # wide characters come
        chops({1: {0: text("cc\u6f22x\u5b57ccccccccccccc")}}, [(1, 0, WIDTH)]),  # one shifts by a cell
        chops({1: {0: text("c\u6f22\u5b57xccccccccccccc")}}, [(1, 0, WIDTH)]),  # and the other way
        chops({1: {0: text("cccccc" + "x" * 14)}}, [(1, 0, WIDTH)]),  # and go
    ]
    _, _, dropped = replay(frames, WIDTH, ROWS, CONSOLE)
    assert dropped == 2  # the second frame (all the same) and the last (the same whole frame)


async def moved_and_drawn(pilot: Any, frames: list[RenderableType]) -> None:
    """Until the market's step has reached the panes and a frame has been drawn since."""
    app, before = pilot.app, len(frames)
    stale = lambda: [w for w in app.screen.query("*") if isinstance(w, FollowsFeed) and w.dirty and w.display]  # noqa: E731
    await until(pilot, lambda: not stale() and len(frames) > before, "a frame of the moved market")


@pytest.mark.long
async def test_the_dashboard_s_frames_leave_the_terminal_as_every_frame_written_would(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frames the dashboard renders (headless, so all of them reach ``_display``) while the market moves
    and the order form and the help open and close, replayed on two emulated terminals: every frame, and what
    ``TerminalLines`` leaves of each. The two must hold the same cells after every frame."""
    frames: list[RenderableType] = []

    def kept(app: XtuiApp, frame: RenderableType) -> None:
        # private: Textual drops a frame handed inside a batch; only its batch count says so
        if isinstance(frame, (LayoutUpdate, ChopsUpdate)) and not app._batch_count:
            frames.append(frame)

    frames_handed(monkeypatch, XtuiApp, kept)
    app = dashboard(trader, sim, clock, ALICE)
    size = (100, 30)
    async with app.run_test(size=size) as pilot:
        await feed_ready(app)
        for _ in range(10):  # trades, book and candles move
            sim.step(500)
            await moved_and_drawn(pilot, frames)
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the order form")
        await pilot.press("escape", "question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        await pilot.press("escape", "tab", "tab")
        for _ in range(5):
            sim.step(500)
            await moved_and_drawn(pilot, frames)
        console = app.console
    assert len(frames) > 20 and sum(isinstance(f, LayoutUpdate) for f in frames) >= 3
    _, _, dropped = replay(frames, size[0], size[1], console)
    assert dropped >= 1  # the resume's repaint, at least, was all there already
    terminal, as_lines = TerminalLines(), 0  # whole frames after the first: the lines they change (the form opens)
    for i, frame in enumerate(frames):
        as_lines += isinstance(frame, LayoutUpdate) and isinstance(terminal.to_write(frame), ChopsUpdate)
        if not isinstance(frame, LayoutUpdate):
            terminal.to_write(frame)
        assert terminal.following, f"frame {i} ({type(frame).__name__}) ended the record"  # every frame followed
    assert as_lines >= 1, [type(f).__name__ for f in frames]


def test_a_frame_split_after_its_first_row_writes_what_it_would_whole() -> None:
    """The frame that answers a key goes out as its first row, then the rest (``first_row``): the two writes leave
    the terminal as the frame would. A frame of one row is not split."""
    lines = TerminalLines()
    lines.to_write(first_frame())
    frame = chops(
        {0: {0: text("x" * 10), 10: text("b" * 10)}, 1: {0: text("C" * 20)}, 2: {0: text("D" * 20)}},
        [(0, 0, 10), (0, 10, WIDTH), (1, 0, WIDTH), (2, 0, WIDTH)],
    )
    parts = first_row(frame)
    assert parts is not None
    head, rest = parts
    assert head.spans == [(0, 0, 10), (0, 10, WIDTH)] and rest.spans == [(1, 0, WIDTH), (2, 0, WIDTH)]
    whole_written, split = Terminal(WIDTH, ROWS, CONSOLE), Terminal(WIDTH, ROWS, CONSOLE)
    for terminal in (whole_written, split):
        terminal.write(first_frame())
    whole_written.write(frame)
    split.write(head)
    assert split.cells()[0] == whole_written.cells()[0] and split.cells()[1] != whole_written.cells()[1]
    split.write(rest)
    assert split.cells() == whole_written.cells()
    assert first_row(chops({1: {0: text("c" * 20)}}, [(1, 0, 10), (1, 10, WIDTH)])) is None


class Rows(LeanApp[None]):
    BINDINGS: ClassVar = [("n", "next", "")]

    def compose(self) -> ComposeResult:
        yield Static("a\nb\nc")

    def action_next(self) -> None:
        self.query_one(Static).update("A\nB\nC")


async def test_the_frame_that_answers_a_key_writes_its_first_row_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over a slow link a frame written at once reaches the far end with its whole first TCP segment (1,448 bytes,
    45 ms at 256 kbit/s): the frame after a key is written as its first row, then the rest ``REST_AFTER_S`` later,
    or before the next frame, whichever comes first. Other frames are written in one piece. The writes are those
    handed to Textual's ``App._display`` (the app is run headless, and taken for a terminal once it is up)."""
    written: list[Any] = []
    handed = lambda _app, _screen, renderable: renderable is None or written.append(renderable)  # noqa: E731
    monkeypatch.setattr(App, "_display", handed)  # private: Textual's write to the terminal, kept from it here
    app = Rows()
    async with app.run_test(size=(WIDTH, ROWS)) as pilot:
        monkeypatch.setattr(Rows, "is_headless", property(lambda _app: False))
        app.app_resume_signal.publish(app)  # back from a suspension (fg): the whole screen is drawn again
        await until(pilot, lambda: record(app).following, "the whole screen, written")
        written.clear()

        await pilot.press("n")  # the app's own frame answers it: "A", then "B" and "C"
        await until(pilot, lambda: len(written) >= 2, "the frame that answers the key, in two writes")
        assert [[y for y, _, _ in f.spans] for f in written] == [[0], [1, 2]]
        assert "A" in written[0].render_segments(app.console) and "B" not in written[0].render_segments(app.console)

        written.clear()
        three_rows = chops({y: {0: text(c * 20)} for y, c in enumerate("xyz")}, [(y, 0, WIDTH) for y in range(ROWS)])
        hand(app, three_rows)  # no key since: one write
        assert [f.spans for f in written] == [three_rows.spans]

        written.clear()
        await pilot.press("x")  # a key nothing is bound to: the next frame written answers it
        hand(app, chops({y: {0: text(c * 20)} for y, c in enumerate("uvw")}, three_rows.spans))
        hand(app, three_rows)  # a frame before the rest's timer: the rest is written first
        assert [f.spans for f in written] == [[(0, 0, WIDTH)], [(1, 0, WIDTH), (2, 0, WIDTH)], three_rows.spans]
        monkeypatch.undo()
