"""Everything that imports Textual: the app and its factory (``app``, ``run``), the key bindings and the command
palette (``bindings``, ``commands``), themes, messages, the screens and widgets, the screenshots, and the one
worker-error handler."""
