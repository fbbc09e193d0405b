"""Typed errors of the client. Every failure of a call is one of these; none carries key material."""

from __future__ import annotations

from typing import Any

from .refusals import agent_named

__all__ = [
    "ADD_AGENT",
    "AccountMismatch",
    "ActionExpired",
    "ActionRejected",
    "AgentRefused",
    "ApiError",
    "Banned",
    "ClientError",
    "ConnectionFailed",
    "NoSigningKey",
    "RateLimited",
    "RequestTimeout",
    "TransportError",
    "agent_refusal",
]

# How an agent is added in xtui, for the messages that say an agent no longer works.
ADD_AGENT = (
    "add a new one with the account's own key (the Agents screen: G, then a), then trade with its keystore "
    '(agent_keystore = "agent-NAME" in the profile)'
)


class ClientError(Exception):
    """Base of every error the client raises."""


class ApiError(ClientError):
    """The server answered with an error: a non-2xx status or a ``{"type": "error"}`` body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}" if status else message)
        self.status = status
        self.message = message


class ActionRejected(ApiError):
    """The exchange refused a signed action: its envelope has a non-empty ``error`` (or ``success`` false)."""

    def __init__(self, message: str, envelope: dict[str, Any]) -> None:
        super().__init__(0, message)
        self.envelope = envelope
        self.tx_hash: str = str(envelope.get("tx_hash") or "")


class ActionExpired(ActionRejected):
    """The exchange refused a signed action as expired (or its nonce as out of its window), explained in
    words: "your clock is 70 s behind the exchange's". ``offset_ms`` is the exchange's clock minus this
    machine's (None when it could not be told); ``said`` is the exchange's own message."""

    def __init__(self, said: str, envelope: dict[str, Any], offset_ms: int | None, words: str) -> None:
        super().__init__(f"expired: {words} (the exchange said: {said})", envelope)
        self.said = said
        self.offset_ms = offset_ms


class AgentRefused(ActionRejected):
    """The exchange refused an action because its signer, an agent, was revoked or has expired; nothing was
    done. ``agent`` and ``account`` are the addresses it named, ``agent_status`` "revoked" or "expired"."""

    def __init__(self, said: str, envelope: dict[str, Any], agent: str, account: str, status: str) -> None:
        why = "was revoked" if status == "revoked" else "has expired"
        super().__init__(
            f"agent {agent} {why}: the exchange no longer lets it act for {account}, and did nothing; "
            f"{ADD_AGENT} (the exchange said: {said})",
            envelope,
        )
        self.said = said
        self.agent = agent
        self.account = account
        self.agent_status = status


def agent_refusal(said: str, envelope: dict[str, Any]) -> AgentRefused | None:
    """``AgentRefused`` when the exchange's refusal ``said`` names a revoked or expired agent, else None."""
    named = agent_named(said)  # the classifier's AGENT kind, and the addresses it names
    if named is None:
        return None
    return AgentRefused(said, envelope, named.agent, named.account, named.status)


class NoSigningKey(ClientError):
    """A signed action was asked of a client without a key (watch-only); nothing was signed or sent."""

    def __init__(self) -> None:
        super().__init__("this client has no signing key (watch-only)")


class AccountMismatch(ClientError):
    """The exchange applied a signed action to another account than the one the client acts for.

    It read the signature as another signer: most likely the network source (Testnet vs Mainnet) or the
    dialect (the action type and code signed) differs from what the exchange expects. ``applied_to`` is
    the envelope's ``address``, ``acting_for`` the account the client meant.
    """

    def __init__(
        self,
        action: str,
        applied_to: str,
        acting_for: str,
        signing: str,
        envelope: dict[str, Any],
        *,
        agent: str | None = None,
    ) -> None:
        if agent is not None and agent.lower() == applied_to.lower():  # the agent key's own account: not an agent
            cause = (
                f"the exchange took the agent key {agent} as an account of its own: it is no longer an agent of "
                f"{acting_for} there (revoked, or past its validUntil); {ADD_AGENT}"
            )
        else:
            cause = (
                f"the exchange read the signature as another signer ({signing}). Likely causes: the network signed "
                "for (--network, or the profile's network) or the dialect (--dialect, or the profile's dialect); "
                "check both with `xtui doctor`"
            )
        super().__init__(
            f"{action} was applied to account {applied_to}, not to {acting_for} (the account xtui acts for): {cause}"
        )
        self.action = action
        self.applied_to = applied_to
        self.acting_for = acting_for
        self.envelope = envelope
        self.tx_hash: str = str(envelope.get("tx_hash") or "")


class RateLimited(ApiError):
    """HTTP 429. ``retry_after`` is the server's ``Retry-After`` in seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(429, message)
        self.retry_after = retry_after


class Banned(ApiError):
    """HTTP 418: this address is banned for ``ban_seconds`` after repeated rate-limit violations."""

    def __init__(self, message: str, ban_seconds: float) -> None:
        super().__init__(418, message)
        self.ban_seconds = ban_seconds


class TransportError(ClientError):
    """The request did not complete: connection refused, reset, or a protocol error."""


class ConnectionFailed(TransportError):
    """The server could not be reached."""


class RequestTimeout(TransportError):
    """The server did not answer in time."""
