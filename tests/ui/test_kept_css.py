"""Textual's parsed CSS kept from one start to the next (``tui.ui.kept_css``): the same rules as a fresh parse,
nothing parsed again at the next start, and a file that is damaged, foreign or hostile is never trusted."""

from __future__ import annotations

import logging
import os
import pickle
from pathlib import Path
from typing import Any

import pytest
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.layout import Layout

from tests.conftest import ALICE_KEY, QUIET_WS
from tests.ui.conftest import drawn, feed_ready
from tui.api.client import Client
from tui.api.signing import Signer
from tui.config.launch import DashboardOptions
from tui.sim.clock import FrozenClock
from tui.sim.server import LocalExchange
from tui.ui.app import XtuiApp, make_app
from tui.ui.kept_css import _MAGIC, FILE_NAME, KeptCss, _mac, _stamp

ALICE = Signer(ALICE_KEY)


def app_keeping(
    trader: Client, sim: LocalExchange, clock: FrozenClock, kept: KeptCss | None, theme: str = "xtui"
) -> XtuiApp:
    return make_app(
        trader,
        sim.ws_url,
        ALICE,
        options=DashboardOptions(theme=theme),
        wall_clock=lambda: clock.now_ms() / 1000,
        feed_options={"poll_s": 0.5, "ws_options": QUIET_WS},
        kept_css=kept,
    )


def looks(app: XtuiApp) -> list[tuple[Any, ...]]:
    """What the CSS decided for every widget of the dashboard: where it is and how it is drawn."""
    return [
        (type(w).__name__, w.id, w.region, w.display, w.styles.background, w.styles.color, w.styles.border)
        for w in app.main.walk_children(with_self=True)
    ]


async def start(app: XtuiApp) -> list[tuple[Any, ...]]:
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await drawn(pilot)
        return looks(app)


async def test_the_next_start_parses_nothing_and_looks_the_same(
    sim: LocalExchange, clock: FrozenClock, trader: Client, tmp_path: Path
) -> None:
    path = tmp_path / FILE_NAME
    first = KeptCss(path)
    first_looks = await start(app_keeping(trader, sim, clock, first))
    assert first.parsed >= 30 and not first.found and path.exists()  # saved as the app ended

    second = KeptCss(path)
    assert await start(app_keeping(trader, sim, clock, second)) == first_looks
    assert second.parsed == 0 and len(second.found) >= 30


async def test_another_theme_is_parsed_for_its_own_colours(
    sim: LocalExchange, clock: FrozenClock, trader: Client, tmp_path: Path
) -> None:
    """The theme's variables are part of what a parse gives: rules kept under one theme are not used under another."""
    path = tmp_path / FILE_NAME
    await start(app_keeping(trader, sim, clock, KeptCss(path)))
    other = KeptCss(path)
    light = await start(app_keeping(trader, sim, clock, other, theme="textual-light"))
    assert other.parsed >= 30 and not other.found
    assert light == await start(app_keeping(trader, sim, clock, None, theme="textual-light"))


async def test_kept_rules_are_those_textual_parses(
    sim: LocalExchange, clock: FrozenClock, trader: Client, tmp_path: Path
) -> None:
    """Each kept rule set, read back from the file, against a fresh parse of the same CSS by Textual itself."""
    path = tmp_path / FILE_NAME
    app = app_keeping(trader, sim, clock, KeptCss(path))
    await start(app)
    read = KeptCss(path)._loaded()
    assert len(read) >= 30
    fresh = Stylesheet(variables=app.get_css_variables())
    for (css, read_from, is_default, tie_breaker, scope, _), kept in read.items():
        parsed = fresh._parse_rules(css, read_from, is_default, tie_breaker, scope)
        assert [described(r) for r in kept] == [described(r) for r in parsed], read_from


def described(rules: RuleSet) -> tuple[Any, ...]:
    """A rule set as the stylesheet uses it: its selectors and their weights, and every declaration's value (a
    layout by its kind: Textual's layouts compare by identity)."""
    specificity = [[s.specificity for s in selectors.selectors] for selectors in rules.selector_set]
    return (
        rules.selectors,
        specificity,
        rules.selector_names,
        rules.is_default_rules,
        rules.tie_breaker,
        rules.pseudo_classes,
        {name: type(v).__name__ if isinstance(v, Layout) else v for name, v in rules.styles.get_rules().items()},
        rules.styles.important,
    )


def signed(kept: KeptCss, path: Path) -> None:
    """``path``'s bytes as a file this user's xtui wrote: its header and MAC made with the user's key."""
    payload = path.read_bytes()
    path.write_bytes(_MAGIC + _mac(kept._key(make=True), payload) + payload)


class _Runs:
    """Unpickled, it would run a shell command."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("touch pwned",))


@pytest.mark.parametrize(
    ("what", "content"),
    [
        ("not a pickle at all", b"\x00garbage\xff" * 10),
        ("a file cut short", pickle.dumps((_stamp(), {"k": [1, 2, 3]}))[:-7]),
        ("another Textual or Python", pickle.dumps((("3.9.0", "elsewhere"), {}))),
        ("a pickle that runs a command", pickle.dumps((_stamp(), {"k": _Runs()}))),
        ("a pickle that reaches a module through Textual", b"ctextual.app\nos\n."),
        ("the right stamp but no dict", pickle.dumps((_stamp(), ["k"]))),
    ],
)
def test_a_file_not_to_trust_is_ignored(
    what: str, content: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / FILE_NAME
    path.write_bytes(content)
    signed(KeptCss(path), path)  # signed as this xtui would: what is behind the MAC is still never trusted
    kept = KeptCss(path)
    with caplog.at_level(logging.INFO, logger="tui.ui.kept_css"):
        assert kept.get(("css", ("f", "C.DEFAULT_CSS"), True, 0, "", "v")) is None, what
    assert not kept.found and not (tmp_path / "pwned").exists(), what
    assert str(path) in caplog.text, what  # the log says which file was passed over


def test_nothing_to_read_or_nowhere_to_write_is_no_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """No file yet (the first start): nothing kept, no word. A cache path that cannot be a file: a warning in the
    log, and the dashboard goes on."""
    assert KeptCss(tmp_path / "none" / FILE_NAME).get(("c", ("f", "x"), True, 0, "", "v")) is None
    assert caplog.text == ""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    kept = KeptCss(blocked / FILE_NAME)
    fresh = Stylesheet()
    key = ("X { height: 1; }", ("f", "X.DEFAULT_CSS"), True, 0, "", "v")
    kept.put(key, fresh._parse_rules(key[0], key[1], True, 0, ""))
    with caplog.at_level(logging.WARNING, logger="tui.ui.kept_css"):
        kept.save()
    assert "parsed CSS not kept" in caplog.text


def test_rules_with_errors_are_not_kept(tmp_path: Path) -> None:
    kept = KeptCss(tmp_path / FILE_NAME)
    key = ("X { no-such-rule: 1; }", ("f", "X.DEFAULT_CSS"), True, 0, "", "v")
    rules = Stylesheet()._parse_rules(key[0], key[1], True, 0, "")
    assert any(r.errors for r in rules)
    kept.put(key, rules)
    kept.save()
    assert not (tmp_path / FILE_NAME).exists()


def test_the_file_keeps_what_the_last_start_used(tmp_path: Path) -> None:
    """A start that parses something new writes back what it used: rules another xtui's CSS (or another theme)
    left there and this start never asked for are dropped, so the file does not grow from one upgrade to the
    next."""
    path = tmp_path / FILE_NAME
    sheet = Stylesheet()
    keys = [(f"X{i} {{ height: {i}; }}", ("f", f"X{i}.DEFAULT_CSS"), True, 0, "", "v") for i in range(3)]
    first = KeptCss(path)
    for key in keys[:2]:
        first.put(key, sheet._parse_rules(key[0], key[1], True, 0, ""))
    first.save()
    second = KeptCss(path)
    assert second.get(keys[0]) is not None  # used; keys[1] is not asked for
    second.put(keys[2], sheet._parse_rules(keys[2][0], keys[2][1], True, 0, ""))
    second.save()
    assert set(KeptCss(path)._loaded()) == {keys[0], keys[2]}
