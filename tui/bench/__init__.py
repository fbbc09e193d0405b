"""``xtui bench``: every performance figure in one place, imported only when ``xtui bench`` runs.

``figures`` runs them all (``run_bench``); ``engine``, ``feed`` and ``dashboard`` measure the matching engine,
the feed's message handling and the dashboard in a fresh process each.
"""

# The groups of figures, by the name ``xtui bench --only`` takes (named here so the CLI imports nothing more).
GROUPS = (
    "signing",
    "decode",
    "engine",
    "feed",
    "server",
    "fanout",
    "startup",
    "ack",
    "keys",
    "tick",
    "cpu",
    "terminal",
    "ssh",
    "load",
    "render",
)
