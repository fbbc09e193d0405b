"""``python -m tui``: the same as the ``xtui`` command."""

from tui.cli.main import main

raise SystemExit(main())
