"""Tests reach the product as a user or the product itself does, not through its insides: the private reaches left
(``tests/private_reaches.py``: an underscore name of anything but a test's own ``self``) stay few, and each one says
why it is there. ``python -m tests.private_reaches`` lists them."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.private_reaches import reaches, reaches_in

MOST = 43  # issue 46: 87 halved; lower it as reaches go, never raise it


def test_the_private_reaches_stay_few() -> None:
    found = reaches()
    assert len(found) <= MOST, "more private reaches than before: reach it the public way\n" + "\n".join(
        map(str, found)
    )


def test_each_private_reach_says_why() -> None:
    assert [str(r) for r in reaches() if not r.why] == []


def test_the_rule_finds_each_kind_of_reach_and_no_other(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            """\
            from tui.x import _helper, public
            from textual.x import _theirs
            app._session.run()
            monkeypatch.setattr(App, "_display", kept)  # private: said on its line
            # private: said on the line above
            getattr(screen, "_bindings")
            self._own = cls._own
            point._replace(x=1).__class__
            setattr(app, "title", "x")
            """
        )
    )
    found = {r.line: (r.names, r.why) for r in reaches_in(probe)}
    assert found == {
        1: (("_helper",), False),
        3: (("_session",), False),
        4: (("_display",), True),
        6: (("_bindings",), True),
    }
