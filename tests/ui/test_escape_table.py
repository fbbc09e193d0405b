"""What the terminal's bytes mean as keys, with Escape among them: the table, fuzzed on a fake clock, and the same
keys through a real pty.

The table (``expected``): a key typed alone is itself. An Escape followed by a pause of at least the escape delay
(Textual's 100 ms) is the Escape key. An Escape followed within the delay by

- a letter (but N, O, P and X, which start the sequences terminals send) is alt+letter, by design: the app splits it
  into Escape and the letter where alt+letter is bound nowhere (``tests/ui/test_keys_whole.py``); but b and f,
  which are word left and word right (ctrl+left, ctrl+right) as macOS terminals send them;
- anything else (a digit, Enter, ``.``, ``,``, ``-``, ``=``, an arrow, a paste, another Escape) is the Escape key,
  then that key.

The issue this holds: Escape, a pause, then ``9`` gave ``[`` ``2`` ``7`` ``u`` ``9``: a chart step and a focus jump
before the 9 (a held Escape was remembered after the delay had sent it). Escape, a letter and Escape in one read
gave ``^``, the letter, Escape."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import textual._parser
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import constants, events

from tests.ui.pty_keys import PtyProgram, lines, wait_for
from tui.ui.render.key_input import EscapeFirstParser

ROOT = str(Path(__file__).resolve().parents[2])
DELAY = constants.ESCAPE_DELAY
PAUSE = DELAY * 3  # a pause: the escape delay has run out
QUICK = DELAY / 5  # between two reads of one burst: well within the delay

ESCAPE = "\x1b"
PASTED = "x1.5"


@dataclass(frozen=True)
class Key:
    typed: str  # what the terminal sends
    key: str  # what the app receives, typed alone
    after_escape: str | None = None  # Escape then this key, within the delay, is this one key


KEYS = [
    *(Key(c, c, after_escape=f"alt+{c}") for c in "aqsz"),
    Key("B", "B", after_escape="alt+shift+b"),
    Key("b", "b", after_escape="ctrl+left"),
    Key("f", "f", after_escape="ctrl+right"),
    *(Key(d, d) for d in "0179"),
    Key("\r", "enter"),
    Key(".", "full_stop"),
    Key(",", "comma"),
    Key("-", "minus"),
    Key("=", "equals_sign"),
    Key("\x1b[A", "up"),
    Key("\x1b[B", "down"),
    Key("\x1bOA", "up"),  # the same arrow in the terminal's application mode
    Key(f"\x1b[200~{PASTED}\x1b[201~", f"paste {PASTED}"),
    Key(ESCAPE, "escape"),
]


def expected(typed: list[tuple[Key, bool]]) -> list[str]:
    """The table: ``typed`` is each key with whether a pause follows it."""
    out: list[str] = []
    i = 0
    while i < len(typed):
        key, pause = typed[i]
        after = typed[i + 1][0] if i + 1 < len(typed) and not pause else None
        if key.typed == ESCAPE and after is not None and after.after_escape:
            out.append(after.after_escape)
            i += 2
            continue
        out.append(key.key)
        i += 1
    return out


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def parser_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A clock the parser's escape delay runs on, until ``monkeypatch`` is undone."""
    fake = FakeClock()
    # private: Textual's parser reads its clock from its own module; nothing public sets it
    monkeypatch.setattr(textual._parser, "get_time", fake)
    return fake


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return parser_clock(monkeypatch)


def names(messages: object) -> list[str]:
    out: list[str] = []
    for message in messages:  # type: ignore[attr-defined]
        if isinstance(message, events.Key):
            out.append(message.key)
        elif isinstance(message, events.Paste):
            out.append(f"paste {message.text}")
    return out


def run(clock: FakeClock, reads: list[tuple[str, float]]) -> list[str]:
    """Each read, then the clock stepped by its gap and the parser ticked, as the driver's input thread does."""
    parser = EscapeFirstParser()
    got: list[str] = []
    for data, gap in reads:
        got += names(parser.feed(data))
        got += names(parser.tick())
        clock.now += gap
        got += names(parser.tick())
    clock.now += PAUSE
    return got + names(parser.tick())


@pytest.mark.parametrize("after", ["9", "0", "\r", ".", ",", "-", "=", "a"])
def test_escape_a_pause_then_a_key_is_those_two_keys(clock: FakeClock, after: str) -> None:
    key = next(k for k in KEYS if k.typed == after)
    assert run(clock, [(ESCAPE, PAUSE), (after, 0.0)]) == ["escape", key.key]


def test_escape_a_letter_and_escape_in_one_read(clock: FakeClock) -> None:
    assert run(clock, [("\x1bq\x1b", 0.0)]) == ["alt+q", "escape"]
    assert run(clock, [("\x1ba\x1b[A", 0.0)]) == ["alt+a", "up"]


def test_alt_letter_comes_at_once_with_its_letter(clock: FakeClock) -> None:
    """No wait for the escape delay; the letter rides as the character, which the app splits by."""
    parser = EscapeFirstParser()
    got = list(parser.feed("\x1bs"))
    assert [(k.key, k.character) for k in got if isinstance(k, events.Key)] == [("alt+s", "s")]
    got = list(parser.feed("\x1bB"))
    assert [(k.key, k.character) for k in got if isinstance(k, events.Key)] == [("alt+shift+b", "B")]


def test_a_paste_whose_end_marker_is_split_across_reads_ends_there(clock: FakeClock) -> None:
    """Found by the property below: the paste's end split after its Escape left the parser pasting, and the Escape
    and ``0`` after it came out as a macOS Option key (º)."""
    reads = [("\x1b[200~x1.5\x1b", 0.0), ("[201~\x1b0", PAUSE)]
    assert run(clock, reads) == ["paste x1.5", "escape", "0"]


Typing = tuple[list[tuple[Key, bool]], list[tuple[str, float]]]


@st.composite
def typing(draw: st.DrawFn) -> Typing:
    """Keys, each followed by a pause or not, and the bytes cut into reads at random points within each burst."""
    typed = draw(st.lists(st.tuples(st.sampled_from(KEYS), st.booleans()), min_size=1, max_size=24))
    reads: list[tuple[str, float]] = []
    burst = ""
    for i, (key, pause) in enumerate(typed):
        burst += key.typed
        if pause or i == len(typed) - 1:
            cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(burst) - 1)), max_size=4))))
            pieces = [burst[a:b] for a, b in zip([0, *cuts], [*cuts, len(burst)], strict=True) if burst[a:b]]
            gaps = [draw(st.floats(0.0, QUICK)) for _ in pieces[:-1]] + [PAUSE]
            reads += zip(pieces, gaps, strict=True)
            burst = ""
    return typed, reads


@settings(max_examples=400, deadline=None)
@given(typing())
def test_any_keys_any_gaps_any_reads_give_the_table(sample: Typing) -> None:
    typed, reads = sample
    with pytest.MonkeyPatch.context() as monkeypatch:  # hypothesis runs many examples per fixture
        assert run(parser_clock(monkeypatch), reads) == expected(typed), f"reads {reads!r}"


# A real pty, through xtui's own driver. Gaps do not depend on the machine's speed: one write is one burst, and a
# pause is 300 ms, three escape delays.
class KeysLog:
    def __init__(self, tmp: Path) -> None:
        self.out = tmp / "keys.log"
        self.program = PtyProgram(["-m", "tests.ui.keys_log_probe", str(self.out)], {"PYTHONPATH": ROOT})
        wait_for("the probe", lambda: "ready" in lines(self.out))

    def keys(self) -> list[str]:
        return [line for line in lines(self.out) if line != "ready"]

    def until(self, want: list[str]) -> list[str]:
        wait_for(f"keys {want}", lambda: len(self.keys()) >= len(want))
        return self.keys()


@pytest.fixture
def keys_log(tmp_path: Path) -> Iterator[KeysLog]:
    probe = KeysLog(tmp_path)
    try:
        yield probe
    finally:
        probe.program.close()


PTY_AFTER = [
    ("9", "9"),
    ("\r", "enter"),
    (".", "full_stop"),
    ("a", "a"),
    ("\x1b[A", "up"),
    (f"\x1b[200~{PASTED}\x1b[201~", f"paste {PASTED}"),
]


@pytest.mark.parametrize(("typed", "key"), PTY_AFTER, ids=[k for _, k in PTY_AFTER])
def test_in_a_pty_escape_a_pause_then_a_key(keys_log: KeysLog, typed: str, key: str) -> None:
    keys_log.program.write(ESCAPE)
    time.sleep(PAUSE)  # a pause the trader takes: longer than the escape delay on any machine
    keys_log.program.write(typed)
    assert keys_log.until(["escape", key]) == ["escape", key]


@pytest.mark.parametrize(("typed", "key"), PTY_AFTER, ids=[k for _, k in PTY_AFTER])
def test_in_a_pty_escape_then_a_key_in_one_burst(keys_log: KeysLog, typed: str, key: str) -> None:
    keys_log.program.write(ESCAPE + typed)
    want = ["alt+a"] if typed == "a" else ["escape", key]
    assert keys_log.until(want) == want


def test_the_probe_runs_xtuis_driver() -> None:
    from tests.ui import keys_log_probe
    from tui.ui.render.lean_output import LeanDriver

    assert keys_log_probe.KeysLogApp(Path(os.devnull)).get_driver_class() is LeanDriver
