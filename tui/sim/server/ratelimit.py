"""Per-address rate limits of the local exchange, as the interface states them.

HTTP: /exchange 20,000 a minute; /info (and /explorer, which shares its budget) 5,000 a minute and
200,000 an hour. Over a limit the answer is 429 with ``Retry-After``. Calling again while told to wait
is a violation; ``ban_after`` violations within an hour earn a 418 ban, growing 5 min, 30 min, 2 h,
24 h, 7 d with each ban. WebSocket: 100 connections, 1,000 subscriptions and 2,000 inbound messages a
minute per address. Every limit can be lowered so that tests reach it quickly.

Windows are fixed and aligned to the clock's minute and hour, so the figures in the headers are the
ones a client can reproduce.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..clock import Clock

BAN_STEPS_S = (300, 1_800, 7_200, 86_400, 604_800)


@dataclass
class Limits:
    exchange_per_minute: int = 20_000
    info_per_minute: int = 5_000
    info_per_hour: int = 200_000
    ban_after: int = 5  # violations within an hour before a ban
    ws_connections: int = 100
    ws_subscriptions: int = 1_000
    ws_messages_per_minute: int = 2_000


# each limit: its field of Limits (the flag is its name with dashes) and what it counts, for the flags and the docs
LIMIT_WORDS: dict[str, str] = {
    "exchange_per_minute": "POST /exchange requests a minute",
    "info_per_minute": "POST /info and /explorer requests a minute",
    "info_per_hour": "POST /info and /explorer requests an hour",
    "ban_after": "violations in an hour before a ban (418, from 5 min growing to 7 days)",
    "ws_connections": "WebSocket connections open at once",
    "ws_subscriptions": "WebSocket subscriptions, over all its connections",
    "ws_messages_per_minute": "inbound WebSocket messages a minute",
}


@dataclass
class Verdict:
    allowed: bool
    status: int = 200  # 200, 429 or 418
    message: str = ""
    retry_after: int = 0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Address:
    minute: int = -1
    hour: int = -1
    exchange_1m: int = 0
    info_1m: int = 0
    info_1h: int = 0
    blocked_until_ms: dict[str, int] = field(default_factory=dict)  # per budget: the end of a 429 wait
    violations: list[int] = field(default_factory=list)  # ms of recent violations
    bans: int = 0
    banned_until_ms: int = 0
    ws_connections: int = 0
    ws_subscriptions: int = 0
    ws_minute: int = -1
    ws_messages_1m: int = 0


class RateLimiter:
    def __init__(self, clock: Clock, limits: Limits | None = None) -> None:
        self.clock = clock
        self.limits = limits or Limits()
        self._addrs: dict[str, _Address] = {}

    def _state(self, ip: str, now: int) -> _Address:
        st = self._addrs.get(ip)
        if st is None:
            st = self._addrs[ip] = _Address()
        minute, hour = now // 60_000, now // 3_600_000
        if st.minute != minute:
            st.minute, st.exchange_1m, st.info_1m = minute, 0, 0
        if st.hour != hour:
            st.hour, st.info_1h = hour, 0
        return st

    def check_http(self, ip: str, endpoint: str) -> Verdict:
        """Count one request to ``endpoint`` ("exchange", "info" or "explorer") from ``ip``."""
        now = self.clock.now_ms()
        st = self._state(ip, now)
        lim = self.limits
        if st.banned_until_ms > now:
            left = (st.banned_until_ms - now + 999) // 1000
            return Verdict(False, 418, f"IP banned for {left} seconds after repeated rate-limit violations", left)
        budget = "exchange" if endpoint == "exchange" else "info"  # explorer shares the /info budget
        if st.blocked_until_ms.get(budget, 0) > now:
            return self._violation(st, now, budget)
        if endpoint == "exchange":
            over = st.exchange_1m >= lim.exchange_per_minute
            reset_ms = (st.minute + 1) * 60_000
        else:
            over_1m = st.info_1m >= lim.info_per_minute
            over_1h = st.info_1h >= lim.info_per_hour
            over = over_1m or over_1h
            reset_ms = (st.hour + 1) * 3_600_000 if over_1h else (st.minute + 1) * 60_000
        if over:
            st.blocked_until_ms[budget] = reset_ms
            return self._violation(st, now, budget)
        if endpoint == "exchange":
            st.exchange_1m += 1
            headers = {"X-Used-Weight-1m": str(st.exchange_1m)}
        else:
            st.info_1m += 1
            st.info_1h += 1
            headers = {
                "X-Used-Weight-1m": str(st.info_1m),
                "X-RateLimit-1m": f"{st.info_1m}/{lim.info_per_minute}",
                "X-RateLimit-1h": f"{st.info_1h}/{lim.info_per_hour}",
            }
        return Verdict(True, headers=headers)

    def _violation(self, st: _Address, now: int, budget: str) -> Verdict:
        st.violations = [t for t in st.violations if t > now - 3_600_000]
        st.violations.append(now)
        if len(st.violations) > self.limits.ban_after:
            seconds = BAN_STEPS_S[min(st.bans, len(BAN_STEPS_S) - 1)]
            st.bans += 1
            st.banned_until_ms = now + seconds * 1000
            st.violations.clear()
            st.blocked_until_ms.clear()
            return Verdict(False, 418, f"IP banned for {seconds} seconds after repeated rate-limit violations", seconds)
        retry = max(1, (st.blocked_until_ms[budget] - now + 999) // 1000)
        return Verdict(False, 429, "rate limit exceeded", retry, {"Retry-After": str(retry)})

    # ---- WebSocket ---------------------------------------------------------------------------------

    def ws_connect(self, ip: str) -> str | None:
        """Admit a connection; an error message when the address has too many."""
        st = self._state(ip, self.clock.now_ms())
        if st.ws_connections >= self.limits.ws_connections:
            return f"too many connections: at most {self.limits.ws_connections} per address"
        st.ws_connections += 1
        return None

    def ws_disconnect(self, ip: str, subscriptions: int) -> None:
        st = self._state(ip, self.clock.now_ms())
        st.ws_connections = max(0, st.ws_connections - 1)
        st.ws_subscriptions = max(0, st.ws_subscriptions - subscriptions)

    def ws_message(self, ip: str) -> str | None:
        """Count one client message; an error message when over the per-minute limit."""
        now = self.clock.now_ms()
        st = self._state(ip, now)
        if st.ws_minute != now // 60_000:
            st.ws_minute, st.ws_messages_1m = now // 60_000, 0
        if st.ws_messages_1m >= self.limits.ws_messages_per_minute:
            return f"too many messages: at most {self.limits.ws_messages_per_minute} a minute per address"
        st.ws_messages_1m += 1
        return None

    def ws_subscribe(self, ip: str, n: int = 1) -> str | None:
        st = self._state(ip, self.clock.now_ms())
        if st.ws_subscriptions + n > self.limits.ws_subscriptions:
            return f"too many subscriptions: at most {self.limits.ws_subscriptions} per address"
        st.ws_subscriptions += n
        return None

    def ws_unsubscribe(self, ip: str, n: int = 1) -> None:
        st = self._state(ip, self.clock.now_ms())
        st.ws_subscriptions = max(0, st.ws_subscriptions - n)
