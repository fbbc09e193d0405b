"""The text side of ``config.toml``: the line of each key, TOML syntax-error positions, the default file.

tomllib returns plain dicts without positions, so errors about a value would have no line. ``KeyLines``
scans the (already valid) source for table headers and ``key =`` lines and remembers where each key
path first appears; that is enough for the flat, single-line values a config holds.
"""

from __future__ import annotations

import json
import re
import tomllib

__all__ = ["DEFAULT_TEXT", "KeyLines", "syntax_error_line"]

_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_PART_RE = re.compile(_PART)
_HEADER = re.compile(rf"\s*\[\[?\s*({_PART}(?:\s*\.\s*{_PART})*)\s*\]")
_ASSIGN = re.compile(rf"\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")
_STRINGS = re.compile(r"""\"(?:[^"\\]|\\.)*"|'[^']*'""")
_POSITION = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$", re.S)


def _names(dotted: str) -> tuple[str, ...]:
    out: list[str] = []
    for raw in _PART_RE.findall(dotted):
        if raw.startswith('"'):
            try:
                out.append(json.loads(raw))  # TOML's basic-string escapes are JSON's, bar a few rare ones
            except ValueError:
                out.append(raw[1:-1])
        elif raw.startswith("'"):
            out.append(raw[1:-1])
        else:
            out.append(raw)
    return tuple(out)


def _opens_string(rest: str) -> str | None:
    """The delimiter of a multi-line string that starts in ``rest`` and does not end on this line."""
    value = rest.lstrip()
    for delim in ('"""', "'''"):
        if value.startswith(delim) and delim not in value[3:]:
            return delim
    return None


def _bracket_balance(rest: str) -> int:
    code = _STRINGS.sub("", rest).split("#", 1)[0]
    return code.count("[") - code.count("]")


class KeyLines:
    """Line numbers (from 1) of the keys and tables of a TOML document, by their path of names."""

    def __init__(self, text: str) -> None:
        self._lines: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        closing: str | None = None  # inside a multi-line string until this delimiter
        depth = 0  # inside a multi-line array while > 0
        for number, line in enumerate(text.splitlines(), 1):
            if closing is not None:
                if closing in line:
                    closing = None
                continue
            if depth > 0:
                depth += _bracket_balance(line)
                continue
            if line.lstrip().startswith("["):
                header = _HEADER.match(line)
                if header:
                    table = _names(header.group(1))
                    self._record(table, number)
                continue
            assign = _ASSIGN.match(line)
            if not assign:
                continue
            self._record(table + _names(assign.group(1)), number)
            rest = line[assign.end() :]
            closing = _opens_string(rest)
            if closing is None:
                depth = max(0, _bracket_balance(rest))

    def _record(self, keys: tuple[str, ...], number: int) -> None:
        for end in range(1, len(keys) + 1):  # a dotted key or header also defines its parent tables
            self._lines.setdefault(keys[:end], number)

    def defines(self, keys: tuple[str, ...]) -> bool:
        """Whether the document has ``keys`` itself (a table or a key), not only a parent of it."""
        return keys in self._lines

    def line(self, keys: tuple[str, ...]) -> int | None:
        """The line of ``keys``, or of its nearest parent present (an inline table's line), or None."""
        for end in range(len(keys), 0, -1):
            if keys[:end] in self._lines:
                return self._lines[keys[:end]]
        return None


def syntax_error_line(exc: tomllib.TOMLDecodeError, text: str) -> tuple[int, str]:
    """(line, message) of a tomllib error, whose message ends "(at line N, column C)" or "(at end of document)"."""
    message = str(exc)
    found = _POSITION.match(message)
    if found:
        return int(found.group(2)), f"{found.group(1)} (column {found.group(3)})"
    message = message.replace(" (at end of document)", "")
    return max(1, len(text.splitlines())), f"{message} (at the end of the file)"


DEFAULT_TEXT = """\
# xtui configuration (written by `xtui config init`).
#
# Every key is checked when xtui starts: a misspelt key or a bad value is an error naming its line.
# No secrets here: a private key belongs in an encrypted keystore (`xtui keys new`, `xtui keys import`)
# or in an environment variable that a profile names with key_env.
#
# Environment variables override the selected profile: XTUI_PROFILE picks it, and XTUI_URL,
# XTUI_NETWORK, XTUI_ACCOUNT, XTUI_DIALECT, XTUI_KEYSTORE, XTUI_KEY_ENV, XTUI_READ_ONLY, XTUI_THEME,
# XTUI_SYMBOL, XTUI_CONFIRM_NOTIONAL, ... set its fields. XTUI_LOG_LEVEL sets log_level.
#
# network: the network signatures are for, "testnet" or "mainnet" (the older `testnet = true/false`
# still works). A signature made for the other network is read as another signer, so the exchange would
# apply your orders to another account: xtui checks every answer for that. A profile signs for testnet
# unless it says mainnet or its url is the production exchange. `xtui doctor --profile NAME` checks it.
#
# dialect: "sdk" (default) sends what the exchange's own SDKs send (numeric action types, cancelByCloid
# signed as 1312); "seed" sends the interface document's names (the local exchange accepts both).

# The profile used when neither --profile nor XTUI_PROFILE names one. Only name "mainnet" here if you
# mean every start to reach the production exchange.
default_profile = "local"

# debug, info, warning or error. The log is a file in the user log directory, never the terminal.
log_level = "info"

# What happens to the account is announced on the dashboard as it happens: fills (yours are also marked
# on the trade tape and listed in the Fills tab, key 5), trigger orders firing, orders the exchange
# cancelled or expired, liquidations and funding payments. The terminal bell rings for the kinds listed
# here: any of "fill", "trigger", "cancel", "liquidation", "funding" ([] for none).
[notices]
bell = ["fill", "trigger", "liquidation"]

# The built-in local exchange: xtui starts it, funds a fresh demo key, and needs no network. It plays
# the network the profile signs for.
[profiles.local]
network = "testnet"               # sign for "testnet" or "mainnet"
dialect = "sdk"                   # wire dialect: "sdk" or "seed"
read_only = false                 # true: watch only, every order form disabled
confirm_notional = "50000"        # USDC: ask before sending an order larger than this
confirm_through_book_pct = "2"    # ask before a limit price this many percent through the book
max_slippage_pct = "1"            # market orders and closes fill at most this many percent beyond the best price
theme = "xtui"                    # xtui, xtui-light, xtui-colorblind, xtui-mono or a theme file's name
symbol = "BTC-PERP"               # the instrument shown first
low_bandwidth = false             # true for links under 100 kbit/s: redraws within 2,200 B/s, no depth bars
# ladder_notional = "500"         # USDC: the price ladder's order size (at the mid, rounded down to the lot) until
#                                 # its z key sets one; unset (or less), twice the exchange's minimum order value
chart_ma_periods = [20, 50]       # the chart's SMA and EMA lines (i): 1 to 3 periods of 2-500 candles
chart_rsi_period = 14             # the chart's RSI (2-100 candles)
# Guards (each off unless set; the dashboard applies them to every order it sends, armed mode included):
# max_order_notional = "25000"    # USDC: an order worth more is refused, not asked (TP/SL, PANIC excepted)
# daily_loss_limit = "1000"       # USDC: once the PnL since 00:00 UTC is this far below zero, only orders that
#                                 # reduce a position go until the next UTC day (the header says so)
# liquidation_warn_pct = "5"      # bell and an event when a position's mark comes within 5% of its liquidation

# Keys can be remapped per profile: binding id = "key" or "key1,key2".
# [profiles.local.keymap]
# buy = "b"
# sell = "s"

# The public test network. Choose one key source, or none to watch `account` only:
#   keystore = "NAME"          a keystore made by `xtui keys new NAME` or `xtui keys import NAME`
#   key_env = "VAR"            an environment variable holding the key
#   agent_keystore = "NAME"    an agent key trading for `account` (or agent_key_env = "VAR")
[profiles.testnet]
url = "https://testnet-api.hotstuff.trade"
explorer_url = "https://testnet-api.hotstuff.trade"
ws_url = "wss://testnet-api.hotstuff.trade/ws/"
network = "testnet"               # sign for the test network
dialect = "sdk"
# account = "0x..."               # the account to watch or trade for (EIP-55 checked)
# keystore = "main"
read_only = false
confirm_notional = "50000"
confirm_through_book_pct = "2"
max_slippage_pct = "1"

# The production exchange: real money. Used only when named (--profile mainnet, XTUI_PROFILE or
# default_profile), and xtui warns when it starts with it.
[profiles.mainnet]
url = "https://api.hotstuff.trade"
explorer_url = "https://rpc.hotstuff.trade"
ws_url = "wss://api.hotstuff.trade/ws/"
network = "mainnet"
dialect = "sdk"
# account = "0x..."
# keystore = "main"
read_only = false
confirm_notional = "50000"
confirm_through_book_pct = "2"
max_slippage_pct = "1"

# The local exchange run on its own in another terminal: `xtui sim --port 8765` (it plays testnet;
# for `xtui sim --network mainnet`, set network = "mainnet" here).
[profiles.sim]
url = "http://127.0.0.1:8765"     # explorer_url and ws_url follow url unless given
network = "testnet"
dialect = "sdk"
read_only = false

# Paper trading on a real market: the built-in exchange lists the instruments of the exchange at
# `mirror` and follows its index and mark prices (read-only: its public /info, never a key); your orders
# match local makers quoting around those prices, with fake money, and never reach it. The header says
# PAPER, and says so when the mirrored exchange stops answering (prices then freeze, quotes are pulled).
# To practise against `xtui sim --port 8765` instead: mirror = "http://127.0.0.1:8765".
[profiles.paper]
mirror = "https://api.hotstuff.trade"
mirror_max_move_pct = 20          # an instrument whose price jumps more in one poll (or whose mark is that far
                                  # from its index, or that the source leaves out) is held, its quotes pulled
network = "testnet"               # the built-in exchange's own network (your demo key signs for it)
dialect = "sdk"
read_only = false

# A profile of your own: any name, any URL.
# [profiles.staging]
# url = "https://staging.example.com"
# network = "testnet"
# account = "0x..."
# key_env = "STAGING_KEY"
"""
