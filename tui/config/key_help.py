"""What each key of config.toml means, in words: the configuration reference (docs/reference/configuration.md,
``python -m tui.reference``) is written from these and from the schema itself (``TOP_KEYS``, ``NOTICE_KEYS``,
``PROFILE_KEYS``, and ``ProfileConfig``'s defaults). A test holds the keys here equal to the schema's.

Each entry is (value, default in words); an empty default is read from ``ProfileConfig`` (or ``Config``).
"""

from __future__ import annotations

__all__ = ["NOTICE_HELP", "PROFILE_HELP", "TOP_HELP"]

TOP_HELP: dict[str, tuple[str, str]] = {
    "default_profile": ("the profile used when neither `--profile` nor XTUI_PROFILE names one", ""),
    "log_level": ("the log file's level: debug, info, warning, error (the log is a file, never the terminal)", ""),
    "notices": ("a table: how the dashboard announces what happens to the account ([notices] below)", ""),
    "profiles": ("a table of profiles by name (letters, digits, `_`, `-`, up to 32), laid over the built-in ones", ""),
}
NOTICE_HELP: dict[str, tuple[str, str]] = {
    "bell": ("the kinds of account event that ring the terminal bell, an array ([] for none)", ""),
}
PROFILE_HELP: dict[str, tuple[str, str]] = {
    "url": ("the exchange's base URL (http or https); absent: the built-in exchange", "the built-in exchange"),
    "mirror": ("paper trading: the base URL whose market the built-in exchange follows (read-only: its /info)", "none"),
    "mirror_max_move_pct": ("a mirrored price moving more than this % in one poll is held, not followed", ""),
    "explorer_url": ("the explorer's base URL when it is not the url's", "from url"),
    "ws_url": ("the WebSocket's URL (ws or wss) when it is not the url's", "from url"),
    "testnet": ("`true` or `false`: the older spelling of network", ""),
    "network": (
        '"testnet" or "mainnet": the network signatures are for',
        "testnet, unless url is the production exchange",
    ),
    "dialect": ('"sdk" (numeric action codes, as the SDKs send) or "seed" (the interface\'s names)', ""),
    "account": ("the account to watch, or to trade for as an agent (EIP-55 checked)", "none"),
    "keystore": ("a keystore's name (`xtui keys list`): trade with that key", "none"),
    "key_env": ("an environment variable holding the key to trade with", "none"),
    "agent_keystore": ("a keystore holding an agent key that trades for account", "none"),
    "agent_key_env": ("an environment variable holding an agent key that trades for account", "none"),
    "read_only": ("`true`: no order entry, cancels, closes or PANIC; no key loaded", ""),
    "low_bandwidth": ("`true` for links under 100 kbit/s: fewer redraws a second, no depth bars", ""),
    "confirm_notional": ("USDC: ask before sending an order larger than this", ""),
    "confirm_through_book_pct": ("ask before a limit price this many percent through the book", ""),
    "max_slippage_pct": ("a market order or close fills at most this many percent beyond the best price (0-50)", ""),
    "max_order_notional": ("guard: an order worth more USDC is refused (TP/SL and PANIC excepted)", "off"),
    "daily_loss_limit": (
        "guard: once the PnL since 00:00 UTC is this many USDC below zero, only orders that reduce a position go",
        "off",
    ),
    "liquidation_warn_pct": ("guard: the bell and an event when a mark comes this near its liquidation price", "off"),
    "ladder_notional": ("USDC: the price ladder's order size until its `z` key sets one", "2x the minimum order"),
    "theme": ("one of xtui's own themes (listed below) or a theme file's name", ""),
    "symbol": ("the instrument shown first", ""),
    "chart_ma_periods": ("the chart's SMA and EMA periods in candles: 1 to 3 of 2-500, like [9, 21, 50]", "[20, 50]"),
    "chart_rsi_period": ("the chart's RSI period in candles (2-100)", ""),
    "keymap": ('a table: binding id = "key" or "key1,key2" (the ids: [keys.md](keys.md))', "none"),
}
