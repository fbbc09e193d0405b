"""The shared client module: the only code that speaks the exchange's wire protocol.

It imports nothing else of ``tui`` and never imports Textual, so bots can use it as a library.
"""
