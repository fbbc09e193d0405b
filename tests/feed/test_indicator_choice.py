"""The chart indicators a profile chose (``tui.feed.indicator_choice``): kept on disk and read back, the key's
ring (none, each alone, all), a file that cannot be read set aside and never written over."""

from __future__ import annotations

from pathlib import Path

from tui.feed.indicator_choice import IndicatorChoice, indicators_path, next_indicators
from tui.feed.indicators import INDICATORS


def test_a_choice_is_kept_per_profile_and_read_back(tmp_path: Path) -> None:
    path = indicators_path(tmp_path, "LOCAL")
    assert path.name == "chart-indicators-local.json"
    choice = IndicatorChoice.load(path)
    assert choice.chosen == () and not choice.problem
    choice.choose(("rsi", "sma"))
    assert choice.chosen == ("sma", "rsi")  # in the one order
    assert IndicatorChoice.load(path).chosen == ("sma", "rsi")
    assert IndicatorChoice.load(indicators_path(tmp_path, "other")).chosen == ()
    assert choice.toggled("sma") == ("rsi",) and choice.toggled("vwap") == ("sma", "vwap", "rsi")


def test_the_key_steps_through_none_each_alone_and_all() -> None:
    seen = [()]
    for _ in range(len(INDICATORS) + 1):
        seen.append(next_indicators(seen[-1]))
    assert seen == [(), *((name,) for name in INDICATORS), INDICATORS]
    assert next_indicators(INDICATORS) == ()
    assert next_indicators(("sma", "rsi")) == ()  # a palette's choice: the key starts again


def test_a_bad_file_is_set_aside_with_a_notice_and_not_written_over(tmp_path: Path) -> None:
    path = indicators_path(tmp_path, "LOCAL")
    for text in ('{"indicators": ["macd"]}', "not json", '{"indicators": "sma"}', '["sma"]'):
        path.write_text(text)
        choice = IndicatorChoice.load(path)
        assert choice.chosen == () and "could not be read" in choice.problem and str(path) in choice.problem
        assert not path.exists() and any(p.name.startswith(path.name + ".bad-") for p in tmp_path.iterdir())
        for p in tmp_path.iterdir():
            p.unlink()
