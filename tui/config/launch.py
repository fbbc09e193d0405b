"""From a profile and the command line's quick overrides to what the dashboard starts with.

All of it happens before Textual takes the screen, so every mistake is one line on stderr: a bad
profile names its config line, a keystore password is asked for on the terminal. Nothing here imports
Textual; the names only the dashboard knows (themes, binding ids) are passed in to ``check_names``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import msgspec
from msgspec.structs import replace

from tui.api.endpoints import MAINNET, TESTNET, Endpoints
from tui.config.errors import ConfigError, StartupError
from tui.config.profiles import BUILTIN_PROFILES, KeySource, ProfileConfig, Settings, load_config
from tui.config.unlock import Prompt, ask_hidden, signer_for
from tui.config.values import DEFAULT_BELL, PROFILE_FIELDS
from tui.logs import parse_level, redact, setup_logging

if TYPE_CHECKING:
    from tui.api.signing import Signer

__all__ = [
    "DashboardOptions",
    "Flags",
    "Identity",
    "Launch",
    "apply_flags",
    "check_names",
    "identity",
    "key_address",
    "profile_name",
    "signs_for_testnet",
    "start_logging",
]


class DashboardOptions(msgspec.Struct, frozen=True):
    """What the dashboard is started with besides the exchange: passed in, never read from globals."""

    theme: str = "xtui"
    symbol: str = "BTC-PERP"
    keymap: dict[str, str] = msgspec.field(default_factory=dict)  # binding id -> keys, e.g. {"buy": "B"}
    confirm_notional: Decimal = Decimal(50_000)  # USDC: ask before sending a larger order
    confirm_through_pct: Decimal = Decimal(2)  # ask before a limit price this far through the book
    slippage_pct: Decimal = Decimal(1)  # a market order's protection price: this far beyond the best price
    read_only: bool = False  # no order entry, cancels, closes or panic
    bell: frozenset[str] = DEFAULT_BELL  # the kinds of account event that ring the terminal bell
    low_bandwidth: bool = False  # fewer redraws a second and no depth bars (--low-bandwidth)
    max_order_notional: Decimal | None = None  # the profile's guards (``tui.trading.guards``; None: off)
    daily_loss_limit: Decimal | None = None
    liquidation_warn_pct: Decimal | None = None
    ladder_notional: Decimal | None = None  # USDC: the ladder's size until z sets one (None: 2x the minimum)
    chart_ma_periods: tuple[int, ...] = (20, 50)  # the chart's SMA and EMA lines, in candles
    chart_rsi_period: int = 14


def profile_name(url: str) -> str:
    """The header name of an exchange URL: MAINNET/TESTNET for the known hosts, else the host."""
    base = url.rstrip("/")
    if base == MAINNET.api:
        return "MAINNET"
    if base == TESTNET.api:
        return "TESTNET"
    return urlsplit(base).hostname or base


class Flags(msgspec.Struct, frozen=True):
    """The command line's quick overrides of the selected profile."""

    url: str | None = None
    testnet: bool = False
    mainnet: bool = False
    address: str | None = None  # watch this account (trade for it as an agent with key_env)
    key_env: str | None = None
    read_only: bool = False
    theme: str | None = None
    symbol: str | None = None
    network: str | None = None  # "testnet" or "mainnet": the network to sign for (--network)
    low_bandwidth: bool = False
    seed: int | None = None  # of the built-in exchange's market (--seed)


class Launch(msgspec.Struct, frozen=True):
    """The profile after the flags, and how the header names it."""

    settings: Settings
    flags: Flags
    profile: ProfileConfig
    label: str  # what the header shows: LOCAL, TESTNET, MAINNET, the profile's name or the URL's host
    warnings: tuple[str, ...]

    @property
    def mainnet(self) -> bool:
        return self.profile.is_mainnet

    @property
    def read_only(self) -> bool:
        return self.profile.read_only

    @property
    def options(self) -> DashboardOptions:
        p = self.profile
        return DashboardOptions(
            theme=p.theme,
            symbol=p.symbol,
            keymap=dict(p.keymap),
            confirm_notional=p.confirm_notional,
            confirm_through_pct=p.confirm_through_book_pct,
            slippage_pct=p.max_slippage_pct,
            read_only=p.read_only,
            bell=self.settings.config.bell,
            low_bandwidth=p.low_bandwidth,
            max_order_notional=p.max_order_notional,
            daily_loss_limit=p.daily_loss_limit,
            liquidation_warn_pct=p.liquidation_warn_pct,
            ladder_notional=p.ladder_notional,
            chart_ma_periods=p.chart_ma_periods,
            chart_rsi_period=p.chart_rsi_period,
        )


def _check_symbol(symbol: str) -> str:
    """``--symbol`` as the profile's ``symbol`` is read: every pane's title shows it, so no control character."""
    try:
        return str(PROFILE_FIELDS["symbol"](symbol))
    except ValueError as exc:
        raise StartupError(f"--symbol: {exc}") from None


def _check_address(address: str) -> str:
    from tui.api.signing import checksum_address

    try:
        return checksum_address(address)
    except (ValueError, TypeError):
        shown = redact(address)[:50]
        raise StartupError(f"--address {shown!r} is not an account address (0x and 40 hex digits)") from None


def signs_for_testnet(api: str | None, testnet: bool, network: str | None) -> bool:
    """Whether to sign for the test network at ``api``: ``testnet`` unless ``--network`` says otherwise; at a
    public host ``--network`` must agree with the host's network."""
    if network is None:
        return testnet
    known = {MAINNET.api: "mainnet", TESTNET.api: "testnet"}.get(api or "")
    if known is not None and network != known:
        raise StartupError(f"--network {network}: {api} is the public {known} exchange, which signs for {known}")
    return network == "testnet"


def _target(profile: ProfileConfig, flags: Flags) -> tuple[ProfileConfig, str | None]:
    """The profile pointed where --url/--testnet/--mainnet say, signing for the network --network says,
    and the header name that goes with it. A bare --url signs for the test network unless told otherwise."""
    if flags.url:
        ends = Endpoints.for_base(flags.url)
        if ends.api == MAINNET.api:
            raise StartupError("--url: the production exchange is reached only with --mainnet or --profile mainnet")
        testnet = signs_for_testnet(ends.api, True, flags.network)
    elif flags.testnet or flags.mainnet:
        ends = TESTNET if flags.testnet else MAINNET
        testnet = signs_for_testnet(ends.api, flags.testnet, flags.network)
    else:
        testnet = signs_for_testnet(profile.url, profile.testnet, flags.network)
        return replace(profile, testnet=testnet), None
    moved = replace(profile, url=ends.api, explorer_url=ends.explorer, ws_url=ends.ws, testnet=testnet)
    return moved, profile_name(ends.api)


def apply_flags(settings: Settings, flags: Flags) -> Launch:
    """The selected profile with the flags laid over it.

    ``--address`` alone watches that account; with ``--key-env`` the key trades for it as an agent.
    ``--key-env`` alone replaces the profile's key (for the profile's account when it has one).
    """
    profile, host = _target(settings.profile, flags)
    if flags.seed is not None and not profile.builtin_exchange:
        where = host or f"profile {profile.name!r} ({profile.url})"
        raise StartupError(f"--seed {flags.seed}: only the built-in exchange plays a seeded market; {where} is another")
    warnings = list(settings.warnings) if host is None else []  # they are about where the profile points
    if flags.mainnet:
        warnings.append("warning: --mainnet: the production exchange: real money")
    if flags.address:
        account = _check_address(flags.address)
        key = KeySource("env", flags.key_env, agent=True) if flags.key_env else None
        profile = replace(profile, account=account, key=key)
    elif flags.key_env:
        agent = profile.key is not None and profile.key.agent
        profile = replace(profile, key=KeySource("env", flags.key_env, agent=agent))
    profile = replace(
        profile,
        read_only=profile.read_only or flags.read_only,
        low_bandwidth=profile.low_bandwidth or flags.low_bandwidth,
        theme=flags.theme or profile.theme,
        symbol=_check_symbol(flags.symbol) if flags.symbol else profile.symbol,
    )
    name = profile.name
    label = host or (name.upper() if name in BUILTIN_PROFILES else name)
    if profile.is_mainnet and label != "MAINNET":
        label = f"{label} MAINNET"
    return Launch(settings, flags, profile, label, tuple(warnings))


def check_names(launch: Launch, themes: Iterable[str], binding_ids: Iterable[str], offered: Iterable[str]) -> None:
    """Refuse a theme or keymap binding id the dashboard does not know; the error names where it was set. A theme
    is one of ``themes``; the error offers ``offered`` (xtui's own and the user's, not every name Textual takes)."""
    known_themes = set(themes)
    theme = launch.profile.theme
    if theme not in known_themes:
        message = f"unknown theme {theme!r} (xtui's: {', '.join(sorted(set(offered)))})"
        if launch.flags.theme:
            raise StartupError(f"--theme: {message}")
        raise launch.settings.error("theme", message)
    known_ids = set(binding_ids)
    for binding in launch.profile.keymap:
        if binding not in known_ids:
            raise launch.settings.error(
                f"keymap.{binding}", f"unknown binding id {binding!r} (the help screen, ?, lists every id)"
            )


class Identity(msgspec.Struct, frozen=True):
    """As whom the dashboard trades: ``signer`` None is watch-only (or read-only)."""

    signer: Signer | None
    account: str | None
    demo_key: bool = False  # a fresh key made for this run on the built-in exchange


def identity(launch: Launch, password_env: str | None = None, prompt: Prompt = ask_hidden) -> Identity:
    """Unlock the profile's key (a keystore asks ``prompt`` for its password, three tries).

    Read-only never holds a key: the account comes from the profile, or from the key source's address
    (a keystore's file says it without its password). On the built-in exchange, a profile with neither
    key nor account gets a fresh demo key, which the local exchange funds.
    """
    profile = launch.profile
    if launch.read_only:
        return Identity(None, profile.account or key_address(profile.key))
    signer = signer_for(profile, password_env, prompt)
    account = profile.account or (signer.address if signer else None)
    if account is not None:
        return Identity(signer, account)
    if profile.builtin_exchange:
        from tui.api.signing import Signer
        from tui.keys import loaded

        demo = loaded(Signer.generate())
        return Identity(demo, demo.address, demo_key=True)
    if launch.flags.url or launch.flags.testnet or launch.flags.mainnet:
        raise StartupError(f"{launch.label}: give --address ADDR to watch an account or --key-env VAR to trade")
    raise StartupError(
        f"profile {profile.name} has no key and no account: set keystore (or key_env) or account in it "
        f"({launch.settings.config.path}), or pass --key-env VAR or --address ADDR"
    )


def key_address(source: KeySource | None) -> str | None:
    """The address of a key source without unlocking it for use: a keystore's file says it."""
    from tui import keys

    if source is None:
        return None
    try:
        if source.kind == "keystore":
            return keys.read_address(source.name)
        return keys.key_from_env(source.name).address  # the key is read for its address, then dropped
    except keys.KeystoreError as exc:
        raise StartupError(str(exc)) from None


def start_logging(level: str | None, command: str | None) -> str:
    """Log to the file at ``level`` (the --log-level flag), else XTUI_LOG_LEVEL, else the config's log_level,
    else info; returns the level chosen."""
    if not level and os.environ.get("XTUI_LOG_LEVEL", "").strip():
        try:
            level = parse_level(os.environ["XTUI_LOG_LEVEL"])
        except ValueError as exc:
            raise StartupError(f"XTUI_LOG_LEVEL: {exc}") from None
    if not level:
        try:
            level = load_config().log_level
        except ConfigError:
            level = "info"  # the commands that use the config report it; the others still run
    setup_logging(level)
    logging.getLogger("tui.cli").info("xtui %s (log level %s)", command or "help", level)
    return level
