"""``python -m tui`` is ``xtui``."""

from .cli import main

raise SystemExit(main())
