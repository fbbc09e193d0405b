"""The ``xtui`` command line (``main``): the parser and the subcommands. Nothing here imports Textual at import
time; each command imports what it runs."""
