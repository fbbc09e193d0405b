"""`xtui screenshot` pictures every screen: the dashboard at three sizes, the dialogs and each data screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.ui.screens.catalogue import screen_classes
from tui.ui.screenshots import take_screenshots


@pytest.mark.long
def test_screenshot_writes_every_screen(tmp_path: Path) -> None:
    written = take_screenshots(str(tmp_path))
    names = {Path(p).name for p in written}
    main = {"main.svg", "main-120x30.svg", "main-80x24.svg"}  # 160x48, and the two small sizes
    assert names == main | {"order-form.svg", "help.svg"} | {f"{n}.svg" for n in screen_classes()}
    # each picture waits for the panes to have read the state: at 80x24 the account line is in its short words
    # (it was taken once with the 160-column line, cut at the edge)
    small = (tmp_path / "main-80x24.svg").read_text()
    assert "Eq&#160;" in small and "perps" not in small
    for name, kind in screen_classes().items():
        svg = (tmp_path / f"{name}.svg").read_text()
        title = kind.SCREEN_TITLE.replace(" ", "&#160;")
        assert f"{title}&#160;·" in svg, f"{name}.svg does not show the {kind.SCREEN_TITLE} screen"
