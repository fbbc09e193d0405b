"""What start-up decides, before Textual takes the screen: profiles in ``config.toml`` (``profiles``, with its text
and field checks in ``text`` and ``values``), the command line's overrides and who trades (``launch``), and a
profile's key unlocked through a prompt (``unlock``). Every failure is a ``StartupError`` (``errors``).
Nothing here imports Textual.
"""
