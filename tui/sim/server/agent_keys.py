"""Keys that were agents: a revoked or expired agent's signature is refused, naming the agent, its account and
why (protocol-notes 9.7), rather than applied to a new account of the agent key's own.

An agent key acts for its owner while it is valid (``engine.owner_of``). Once revoked, or past its
``validUntil`` (whether or not the exchange's tick has dropped it from the registry yet), what it signs is
refused by name: ``agent 0x… ('bot') of account 0x… was revoked`` or ``… expired at <time> (validUntil <ms>)``.
The one exception is a key that was an account of its own before it was an agent: it is that account
again. Adding the key as an agent again (``addAgent``) makes it an agent again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine import Exchange
from ..engine.values import iso_ms

FORMER = ("revoked", "expired")


@dataclass(frozen=True, slots=True)
class FormerAgent:
    agent: str  # EIP-55
    owner: str  # EIP-55
    name: str
    status: str  # revoked or expired
    valid_until: int

    def refusal(self) -> str:
        """What the exchange answers an action this key signs."""
        if self.status == "revoked":
            why = "was revoked"
        else:
            why = f"expired at {iso_ms(self.valid_until)} (validUntil {self.valid_until})"
        return (
            f"agent {self.agent} ({self.name[:64]!r}) of account {self.owner} {why}: it no longer signs for that "
            "account; the account's own key can add a new agent"
        )


class FormerAgents:
    """Follows the engine's ``agent`` events; says whether a key is a former agent to refuse."""

    def __init__(self, engine: Exchange) -> None:
        self.engine = engine
        self.former: dict[str, FormerAgent] = {}  # lower-case agent address -> what it was
        engine.add_listener(self._on_event)

    def _on_event(self, channel: str, key: str, payload: Any) -> None:
        if channel != "agent" or not isinstance(payload, dict):
            return
        agent = str(payload.get("agent_address", ""))
        status = payload.get("status")
        if status in FORMER:
            self.former[agent.lower()] = FormerAgent(
                agent,
                str(payload.get("user", "")),
                str(payload.get("agent_name", "")),
                str(status),
                int(payload.get("valid_until_timestamp", 0)),
            )
        elif status == "added":
            self.former.pop(agent.lower(), None)

    def known(self, signer: str) -> bool:
        """Whether the exchange has seen ``signer`` as an agent (valid or not)."""
        key = signer.lower()
        return key in self.former or key in self.engine.agents

    def refused(self, signer: str, now_ms: int) -> FormerAgent | None:
        """The former agent ``signer`` is, when what it signs is to be refused; None otherwise (a valid agent, a
        key never an agent, or a key that is an account of its own)."""
        key = signer.lower()
        if key in self.engine.accounts:
            return None
        current = self.engine.agents.get(key)
        if current is not None:  # in the registry: valid, or expired and not yet dropped by the tick
            if current.valid_until > now_ms:
                return None
            record = current.record()
            return FormerAgent(current.address, record["user"], current.name, "expired", current.valid_until)
        return self.former.get(key)
