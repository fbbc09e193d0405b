"""``xtui bench``: every performance figure in one place, imported only when ``xtui bench`` runs.

``figures`` runs them all (``run_bench``); ``engine``, ``feed`` and ``dashboard`` measure the matching engine,
the feed's message handling and the dashboard in a fresh process each.
"""
