"""Profiles in ``config.toml``, strictly validated, with ``XTUI_*`` environment overrides.

Every mistake is an error naming where it is: the file's line (found by scanning the source, since
tomllib keeps no positions) or the environment variable. Secrets never live here: anything shaped like
a private key is refused, and a profile names where its key is (a keystore or an environment variable).
Nothing here imports Textual; the dashboard reads a ``Settings`` and validates the names only it knows
(binding ids, theme names) through ``Settings.error`` so those errors name their line too.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import msgspec
from msgspec.structs import replace

from tui.api.endpoints import MAINNET, TESTNET, Endpoints
from tui.api.network import Network, network_of
from tui.config.environment import ENV_OVERRIDES
from tui.config.errors import ConfigError
from tui.config.text import DEFAULT_TEXT, KeyLines, syntax_error_line
from tui.config.values import (
    BOOL_FIELDS,
    DEFAULT_BELL,
    ENV_BOOL,
    PROFILE_FIELDS,
    bell_kinds,
    check_binding,
    kind_of,
    log_level,
    network_conflict,
    shown,
    string,
)
from tui.edges.bounded_parse import FileLimitError, parse_toml, read_capped
from tui.logs import KEY_SHAPE, parse_level
from tui.paths import config_path

__all__ = [
    "BUILTIN_PROFILES",
    "DEFAULT_TEXT",
    "ENV_OVERRIDES",
    "Config",
    "ConfigError",
    "KeySource",
    "ProfileConfig",
    "Settings",
    "config_path",
    "load_config",
    "parse_config",
    "resolve",
]

LOCAL = "local"
MAX_CONFIG_BYTES = 1 << 20  # a config of many profiles is a few KB
SECRET_MESSAGE = "a private key must not be stored in the config; use a keystore (xtui keys import) or key_env"
# field -> (kind of key source, trades as an agent for ``account``)
KEY_FIELDS: dict[str, tuple[Literal["keystore", "env"], bool]] = {
    "keystore": ("keystore", False),
    "key_env": ("env", False),
    "agent_keystore": ("keystore", True),
    "agent_key_env": ("env", True),
}
_PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
PROFILE_KEYS = (*PROFILE_FIELDS, "keymap")
TOP_KEYS = ("default_profile", "log_level", "notices", "profiles")
NOTICE_KEYS = ("bell",)


# The file's structure, as msgspec Structs that refuse unknown keys; values are checked by the field parsers
# of ``values`` so that an error says what is wrong in words and ``Config.error`` adds the line.
class ConfigFile(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    default_profile: Any = msgspec.UNSET
    log_level: Any = msgspec.UNSET
    notices: Any = msgspec.UNSET
    profiles: dict[str, Any] = msgspec.field(default_factory=dict)


class NoticesFile(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """``[notices]``: how the dashboard announces what happens to the account."""

    bell: Any = msgspec.UNSET


ProfileFile = msgspec.defstruct(
    "ProfileFile", [(key, Any, msgspec.UNSET) for key in PROFILE_KEYS], forbid_unknown_fields=True, kw_only=True
)
ENV_TOP = ("XTUI_PROFILE", "XTUI_LOG_LEVEL")  # checked for a key's shape as the overrides are (ENV_OVERRIDES)


class KeySource(msgspec.Struct, frozen=True):
    """Where a profile's key comes from: a keystore name or an environment variable, never the key."""

    kind: Literal["keystore", "env"]
    name: str
    agent: bool = False  # the key is an agent trading for the profile's account

    @property
    def field(self) -> str:
        return ("agent_" if self.agent else "") + ("keystore" if self.kind == "keystore" else "key_env")


class ProfileConfig(msgspec.Struct, frozen=True):
    """One profile. ``url`` None is the built-in exchange; ``key`` None is watch-only. ``mirror`` (with no
    ``url``): the built-in exchange lists that exchange's instruments and follows its prices (paper trading)."""

    name: str
    url: str | None = None
    explorer_url: str | None = None
    ws_url: str | None = None
    testnet: bool = True  # signatures use the "Testnet" source: xtui signs for mainnet only when told
    dialect: Literal["seed", "sdk"] = "sdk"
    account: str | None = None
    key: KeySource | None = None
    read_only: bool = False
    confirm_notional: Decimal = Decimal(50_000)  # USDC: ask before sending an order larger than this
    confirm_through_book_pct: Decimal = Decimal(2)  # ask before a limit price this far through the book
    max_slippage_pct: Decimal = Decimal(1)  # a market order (or close) fills at most this far beyond the best price
    max_order_notional: Decimal | None = None  # guards (off: None): an order worth more USDC is refused,
    daily_loss_limit: Decimal | None = None  # past this USDC loss since 00:00 UTC only risk-reducing orders go,
    liquidation_warn_pct: Decimal | None = None  # a position within this % of its liquidation price is warned of
    ladder_notional: Decimal | None = None  # USDC: the ladder's size until z sets one (None: 2x the minimum)
    keymap: dict[str, str] = msgspec.field(default_factory=dict)  # binding id -> key(s), e.g. {"buy": "b"}
    theme: str = "xtui"
    symbol: str = "BTC-PERP"
    low_bandwidth: bool = False  # for links under 100 kbit/s: fewer redraws a second, no depth bars
    chart_ma_periods: tuple[int, ...] = (20, 50)  # the chart's SMA and EMA lines, in candles
    chart_rsi_period: int = 14
    mirror: str | None = None  # base URL of the exchange whose market the built-in exchange mirrors (read-only)
    mirror_max_move_pct: Decimal = Decimal(20)  # a mirrored price moving more in one poll is held, not followed

    @property
    def builtin_exchange(self) -> bool:
        return self.url is None

    @property
    def network(self) -> Network:
        """The network signatures are for: "testnet" or "mainnet"."""
        return network_of(self.testnet)

    @property
    def is_mainnet(self) -> bool:
        return self.url == MAINNET.api

    @property
    def watch_only(self) -> bool:
        return self.key is None

    def endpoints(self, local_url: str | None = None) -> Endpoints:
        """Where to connect; ``local_url`` is the built-in exchange's address, needed when ``url`` is None."""
        if self.url is None:
            if local_url is None:
                raise ValueError(f"profile {self.name} uses the built-in exchange: pass its URL")
            return Endpoints.for_base(local_url)
        return Endpoints(self.url, self.explorer_url or self.url, self.ws_url or Endpoints.for_base(self.url).ws)


def _remote(name: str, ends: Endpoints, testnet: bool) -> ProfileConfig:
    return ProfileConfig(name, url=ends.api, explorer_url=ends.explorer, ws_url=ends.ws, testnet=testnet)


BUILTIN_PROFILES: dict[str, ProfileConfig] = {
    LOCAL: ProfileConfig(LOCAL),
    "testnet": _remote("testnet", TESTNET, True),
    "mainnet": _remote("mainnet", MAINNET, False),
    # `xtui sim --port 8765` in another terminal: the local exchange outliving the dashboard (it plays testnet).
    "sim": _remote("sim", Endpoints.for_base("http://127.0.0.1:8765"), True),
    # Paper trading: the built-in exchange at the production exchange's prices (read-only), with fake money.
    "paper": ProfileConfig("paper", mirror=MAINNET.api),
}


def _endpoints_of(url: str) -> tuple[Endpoints, bool | None]:
    """The endpoints of a base URL, and whether it is the test network (None: not a known host)."""
    for ends, testnet in ((MAINNET, False), (TESTNET, True)):
        if url == ends.api:
            return ends, testnet
    return Endpoints.for_base(url), None


def _apply(profile: ProfileConfig, values: Mapping[str, Any]) -> ProfileConfig:
    """``profile`` with validated ``values`` laid over it: url brings its explorer and WebSocket along."""
    changes: dict[str, Any] = {}
    if "url" in values:
        ends, testnet = _endpoints_of(values["url"])
        changes.update(url=ends.api, explorer_url=ends.explorer, ws_url=ends.ws)
        if testnet is not None:
            changes["testnet"] = testnet
    for name, value in values.items():
        if name in KEY_FIELDS:
            kind, agent = KEY_FIELDS[name]
            changes["key"] = KeySource(kind, value, agent)
        elif name == "network":  # an alias of testnet that reads better
            changes["testnet"] = value == "testnet"
        elif name != "url":
            changes[name] = value
    return replace(profile, **changes)


def _problem(profile: ProfileConfig) -> tuple[str, str] | None:
    """A rule across fields that ``profile`` breaks, as (field to blame, message)."""
    if profile.key is not None and profile.key.agent and profile.account is None:
        return profile.key.field, "an agent key trades for an account: set account to the account's address"
    if profile.url is not None and profile.mirror is not None:
        return "mirror", "mirror makes the built-in exchange a paper copy of another: a profile with url trades there"
    if profile.url is None:
        for name in ("explorer_url", "ws_url"):
            if getattr(profile, name) is not None:
                return name, f"{name} needs url too (without url the profile uses the built-in exchange)"
    return None


# ---- the file ----------------------------------------------------------------------------------------
class Config(msgspec.Struct, frozen=True):
    """The file as read (or the built-in defaults when there is none), before environment overrides."""

    path: Path
    exists: bool
    default_profile: str
    log_level: str
    profiles: dict[str, ProfileConfig]
    lines: KeyLines
    bell: frozenset[str] = DEFAULT_BELL  # [notices] bell: the kinds of account event that ring the bell

    def where(self, *keys: str) -> str:
        """``FILE line N`` of a key given as its path of names, for messages about it."""
        line = self.lines.line(keys)
        if line is None:
            return f"{self.path}" if self.exists else f"built-in {'.'.join(keys[:2])}"
        return f"{self.path} line {line}"

    def error(self, keys: tuple[str, ...], message: str) -> ConfigError:
        return ConfigError(f"{self.where(*keys)}: {message}")


def parse_config(text: str, path: Path) -> Config:
    """Validate the text of a config file; ConfigError naming the line of the first mistake."""
    for number, line in enumerate(text.splitlines(), 1):
        if KEY_SHAPE.search(line):
            raise ConfigError(f"{path} line {number}: {SECRET_MESSAGE}")
    try:
        data = parse_toml(text)  # nesting and dotted keys bounded before tomllib recurses
    except tomllib.TOMLDecodeError as exc:
        number, message = syntax_error_line(exc, text)
        raise ConfigError(f"{path} line {number}: not valid TOML: {message}") from None
    except FileLimitError as exc:
        raise ConfigError(f"{path}{'' if str(exc).startswith('line') else ':'} {exc}") from None
    except ValueError as exc:  # an integer longer than Python reads (4,300 digits)
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    config = Config(path, True, LOCAL, "info", dict(BUILTIN_PROFILES), KeyLines(text))
    try:
        file = msgspec.convert(data, ConfigFile)
    except msgspec.ValidationError as exc:
        unknown = _unknown_field(exc)
        if unknown is not None:
            raise config.error((unknown,), f"unknown key {unknown!r} (expected {', '.join(TOP_KEYS)})") from None
        tables = data.get("profiles")
        raise config.error(("profiles",), f"profiles must be a table of profiles, not {kind_of(tables)}") from None
    for name, table in file.profiles.items():
        if not _PROFILE_NAME.fullmatch(name):
            raise config.error(("profiles", name), f"{shown(name)} is not a profile name (letters, digits, _ and -)")
        config.profiles[name] = _file_profile(config, name, table)
    top = {"log_level": config.log_level, "default_profile": config.default_profile}
    for key, parse in (("log_level", log_level), ("default_profile", string)):
        value = getattr(file, key)
        if value is not msgspec.UNSET:
            try:
                top[key] = parse(value)
            except ValueError as exc:
                raise config.error((key,), f"{key}: {exc}") from None
    config = replace(config, log_level=top["log_level"], default_profile=top["default_profile"])
    if file.notices is not msgspec.UNSET:
        config = replace(config, bell=_file_notices(config, file.notices))
    if config.default_profile not in config.profiles:
        raise config.error(
            ("default_profile",),
            f"default_profile {shown(config.default_profile)} is not a profile ({', '.join(config.profiles)})",
        )
    return config


def _unknown_field(exc: msgspec.ValidationError) -> str | None:
    """The key a Struct with ``forbid_unknown_fields`` refused, if that is what ``exc`` says."""
    found = re.match(r"Object contains unknown field `(.*)`", str(exc))
    return found.group(1) if found else None


def _file_notices(config: Config, table: Any) -> frozenset[str]:
    """The ``[notices]`` table: which kinds of account event ring the bell."""
    try:
        fields = msgspec.convert(table, NoticesFile)
    except msgspec.ValidationError as exc:
        unknown = _unknown_field(exc)
        if unknown is None:
            raise config.error(("notices",), f"notices must be a table, not {kind_of(table)}") from None
        raise config.error(
            ("notices", unknown), f"unknown key {unknown!r} in notices (expected {', '.join(NOTICE_KEYS)})"
        ) from None
    if fields.bell is msgspec.UNSET:
        return DEFAULT_BELL
    try:
        return bell_kinds(fields.bell)
    except ValueError as exc:
        raise config.error(("notices", "bell"), f"bell: {exc}") from None


def _file_profile(config: Config, name: str, table: Any) -> ProfileConfig:
    try:
        fields = msgspec.convert(table, ProfileFile)
    except msgspec.ValidationError as exc:
        unknown = _unknown_field(exc)
        if unknown is None:
            raise config.error(("profiles", name), f"profile {name} must be a table, not {kind_of(table)}") from None
        raise config.error(
            ("profiles", name, unknown),
            f"unknown key {unknown!r} in profile {name} (expected one of {', '.join(PROFILE_KEYS)})",
        ) from None
    values: dict[str, Any] = {}
    given = ((key, getattr(fields, key)) for key in PROFILE_KEYS)
    for key, value in sorted(
        ((k, v) for k, v in given if v is not msgspec.UNSET), key=lambda kv: list(table).index(kv[0])
    ):
        at = ("profiles", name, key)
        if key == "keymap":
            values[key] = _file_keymap(config, at, value)
            continue
        try:
            values[key] = PROFILE_FIELDS[key](value)
        except ValueError as exc:
            raise config.error(at, f"{key}: {exc}") from None
    sources = [key for key in KEY_FIELDS if key in values]
    if len(sources) > 1:
        raise config.error(("profiles", name, sources[1]), f"{sources[0]} and {sources[1]}: choose one key source")
    if conflict := network_conflict(values):
        raise config.error(("profiles", name, "network"), conflict)
    profile = _apply(BUILTIN_PROFILES.get(name, ProfileConfig(name)), values)
    problem = _problem(profile)
    if problem:
        raise config.error(("profiles", name, problem[0]), problem[1])
    return profile


def _file_keymap(config: Config, at: tuple[str, ...], table: Any) -> dict[str, str]:
    if not isinstance(table, dict):
        raise config.error(at, f'keymap must be a table of binding id = "key", not {kind_of(table)}')
    keymap: dict[str, str] = {}
    for binding, keys in table.items():
        try:
            keymap[binding] = check_binding(binding, keys)
        except ValueError as exc:
            raise config.error((*at, binding), str(exc)) from None
    return keymap


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """The config file at ``path`` (default: ``config_path()``), or the built-in profiles if it is absent."""
    path = config_path(env) if path is None else path
    try:
        text = read_capped(path, MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        return Config(path, False, LOCAL, "info", dict(BUILTIN_PROFILES), KeyLines(""))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except FileLimitError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_config(text, path)


# ---- the effective settings --------------------------------------------------------------------------
class Settings(msgspec.Struct, frozen=True):
    """The selected profile after environment overrides: what the dashboard starts with."""

    config: Config
    profile: ProfileConfig
    selected_by: str  # "--profile", "XTUI_PROFILE", "default_profile" or "built-in default"
    log_level: str
    overrides: dict[str, str]  # profile field -> the XTUI_* variable that set it
    warnings: tuple[str, ...]  # to print, one line each, when the dashboard starts

    def where(self, name: str) -> str:
        """Where a profile field (``theme``, ``keymap.buy``...) was set: its variable or file line."""
        if name in self.overrides:
            return self.overrides[name]
        return self.config.where("profiles", self.profile.name, *name.split("."))

    def error(self, name: str, message: str) -> ConfigError:
        """An error about a field, located: for checks only the dashboard can make (unknown theme...)."""
        return ConfigError(f"{self.where(name)}: {message}")


def _env_values(env: Mapping[str, str]) -> dict[str, tuple[str, Any]]:
    """field -> (variable, validated value) for every XTUI_* override set (an empty value is unset)."""
    out: dict[str, tuple[str, Any]] = {}
    for var, name in ENV_OVERRIDES.items():
        text = env.get(var, "").strip()
        if not text:
            continue
        if KEY_SHAPE.search(text):
            raise ConfigError(f"{var}: {SECRET_MESSAGE}")
        value: Any = text
        if name in BOOL_FIELDS:
            value = ENV_BOOL.get(text.lower())
            if value is None:
                raise ConfigError(f"{var}: expected true or false (1/0, yes/no, on/off), not {shown(text)}")
        try:
            out[name] = (var, PROFILE_FIELDS[name](value))
        except ValueError as exc:
            raise ConfigError(f"{var}: {exc}") from None
    sources = [out[key][0] for key in KEY_FIELDS if key in out]
    if len(sources) > 1:
        raise ConfigError(f"{sources[0]} and {sources[1]}: choose one key source")
    if conflict := network_conflict({key: value for key, (_, value) in out.items()}):
        raise ConfigError(f"XTUI_NETWORK and XTUI_TESTNET: {conflict}")
    return out


def resolve(profile: str | None = None, *, env: Mapping[str, str] | None = None, path: Path | None = None) -> Settings:
    """The effective settings: ``profile`` (--profile) or XTUI_PROFILE or default_profile, then overrides.

    The local profile is the default; the production exchange is used only through a profile that is
    named (flag, XTUI_PROFILE or default_profile), and then ``warnings`` says so.
    """
    env = os.environ if env is None else env
    config = load_config(path, env)
    for var in ENV_TOP:
        if KEY_SHAPE.search(env.get(var, "")):
            raise ConfigError(f"{var}: {SECRET_MESSAGE}")
    if profile:
        name, selected_by = profile, "--profile"
    elif env.get("XTUI_PROFILE", "").strip():
        name, selected_by = env["XTUI_PROFILE"].strip(), "XTUI_PROFILE"
    else:
        named = config.lines.line(("default_profile",)) is not None
        name, selected_by = config.default_profile, "default_profile" if named else "built-in default"
    if name not in config.profiles:
        raise ConfigError(f"{selected_by}: no profile named {shown(name)} (known: {', '.join(config.profiles)})")
    log_level = config.log_level
    if env.get("XTUI_LOG_LEVEL", "").strip():
        try:
            log_level = parse_level(env["XTUI_LOG_LEVEL"])
        except ValueError as exc:
            raise ConfigError(f"XTUI_LOG_LEVEL: {exc}") from None
    values = _env_values(env)
    chosen = _apply(config.profiles[name], {key: value for key, (_, value) in values.items()})
    overrides = {key: var for key, (var, _) in values.items()}
    if "url" in overrides:
        overrides.update({k: overrides["url"] for k in ("explorer_url", "ws_url") if k not in overrides})
    if "network" in overrides:
        overrides.setdefault("testnet", overrides["network"])
    settings = Settings(config, chosen, selected_by, log_level, overrides, ())
    problem = _problem(chosen)
    if problem:
        raise settings.error(problem[0], problem[1])
    if not chosen.is_mainnet:
        return settings
    if selected_by == "built-in default":  # only XTUI_URL can have pointed the unnamed default there
        raise settings.error("url", "the production exchange is used only when a profile is named: --profile mainnet")
    warning = f"warning: profile {chosen.name} (chosen by {selected_by}) is the production exchange: real money"
    return replace(settings, warnings=(warning,))
