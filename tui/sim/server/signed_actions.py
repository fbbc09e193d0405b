"""POST /exchange after parsing: who signed, for which account, may they, is it fresh; then the envelope.

A signature recovers *some* address under either signing source, and only the source of the network the exchange
plays is read, as the real exchange reads it (protocol-notes 9.7): a key the exchange knows (an account, a valid
agent, a former agent) is recognised when it signed for this network. A signature that is a known key's only when
read for the other network is refused, naming both networks ("signed for mainnet; this exchange plays testnet"),
never applied to the stranger's account it recovers here, never funded. Likewise a signature that is a known key's
only over the action with its keys sorted, unless ``sorted_keys`` (``--sorted-keys``) accepts that encoding too.

Any other signer is a new account: under the ``auto`` faucet it is funded on this first action; under
``explicit`` it is refused with "account does not exist" until a faucet request funds it (``faucet``). A valid
agent acts for its owner; what a revoked or expired agent signs is refused, naming the agent, its account and why
(``agent_keys``).
"""

from __future__ import annotations

from typing import Any

from tui.api import wire
from tui.api.faucet import FaucetMode

from ..clock import Clock
from .actions import (
    ParsedAction,
    Rejected,
    codes_for,
    recover_candidates,
    sorted_key_candidates,
    verify_agent_signature,
)
from .dispatch import Dispatcher
from .network import Network, is_testnet, other_network

NONCES_KEPT = 10_000  # per signer; the oldest is forgotten, and from then on nothing at or below it is taken
SUCCESS_INSTEAD_OF_ERROR = ("cancelByOid", "cancelByCloid")  # the interface's envelope for these


class SignedActions:
    """Authorises and applies parsed actions; ``apply`` returns the envelope or raises ``Rejected``."""

    def __init__(
        self,
        dispatch: Dispatcher,
        clock: Clock,
        network: Network,
        *,
        faucet: FaucetMode = "auto",
        sorted_keys: bool = False,
    ) -> None:
        self.dispatch = dispatch
        self.clock = clock
        self.network = network
        self.faucet = faucet
        self.sorted_keys = sorted_keys
        self._nonces: dict[str, dict[int, None]] = {}  # signer -> its newest nonces, in the order used
        self._floors: dict[str, int] = {}  # signer -> the highest nonce forgotten: nothing at or below it goes

    def apply(self, parsed: ParsedAction) -> dict[str, Any]:
        """Check signature, authority, expiry and nonce, then apply. ``Rejected`` carries tx_type and address."""
        now = self.clock.now_ms()
        spec = parsed.spec
        signer, code, account, as_agent = self._authorise(parsed, now)
        try:
            if as_agent and not spec.agent_ok:
                raise Rejected(f"{spec.name} must be signed by the account's own key, not an agent")
            expires = parsed.data.get("expiresAfter")
            if spec.name in wire.EXPIRING and isinstance(expires, int) and expires < now:
                raise Rejected(f"action expired: expiresAfter {expires} is before the exchange time {now}")
            used = self._nonces.setdefault(signer.lower(), {})
            floor = self._floors.get(signer.lower(), -1)
            if parsed.nonce in used:
                raise Rejected(f"nonce {parsed.nonce} was already used by {signer}")
            if parsed.nonce <= floor:
                raise Rejected(f"nonce {parsed.nonce} is too old: {signer}'s nonces must now be above {floor}")
            if spec.name == "addAgent" and not verify_agent_signature(
                parsed.data["agent"], account, parsed.nonce, parsed.data["signature"]
            ):
                raise Rejected("addAgent: the agent's signature does not recover the agent address")
            used[parsed.nonce] = None
            if len(used) > NONCES_KEPT:  # forget the oldest, and refuse anything not above it from now on
                oldest = next(iter(used))
                del used[oldest]
                self._floors[signer.lower()] = max(floor, oldest)
            if self.faucet == "auto":
                self.dispatch.ensure_account(account)
            result = self.dispatch.action(spec.name, account, parsed.data, code)
        except Rejected as exc:
            raise Rejected(str(exc), tx_type=code, address=account) from None
        envelope: dict[str, Any] = {"tx_hash": result.tx_hash, "tx_type": result.tx_type}
        if spec.name in SUCCESS_INSTEAD_OF_ERROR:
            envelope["success"] = result.success
        else:
            envelope["error"] = ""
        envelope.update(data=result.data, address=account)
        return envelope

    def _authorise(self, parsed: ParsedAction, now: int) -> tuple[str, int, str, bool]:
        """(signer, code, account, as_agent): the first candidate the exchange knows, else a new account."""
        first: tuple[str, int] | None = None
        for signer, code in recover_candidates(parsed, is_testnet(self.network), sorted_keys=self.sorted_keys):
            first = first or (signer, code)
            known = self.dispatch.known_key(signer, now)
            if known is not None:
                former = self.dispatch.former_agent(signer, now)
                if former is not None:  # never applied to a new account of the agent key's own
                    raise Rejected(former.refusal(), tx_type=code, address=former.owner)
                return signer, code, known[0], known[1]
        assert first is not None
        self._refuse_misread(parsed, now)
        signer, code = first
        if self.faucet == "explicit":
            raise Rejected(
                f"account does not exist: {signer} (this exchange funds only addresses its faucet was asked for: "
                f"xtui sim faucet {signer})",
                tx_type=code,
            )
        return signer, code, signer, False

    def _refuse_misread(self, parsed: ParsedAction, now: int) -> None:
        """Refuse, in words, a signature that is a known key's only when read another way than this exchange reads
        it: for the other network, or (without ``sorted_keys``) over the action with its keys sorted."""
        other = other_network(self.network)
        for signer, code in recover_candidates(parsed, is_testnet(other), sorted_keys=self.sorted_keys):
            known = self.dispatch.known_key(signer, now)
            if known is not None:
                raise Rejected(
                    f"signed for {other}; this exchange plays {self.network}: read for {other} the signature is "
                    f"account {known[0]}'s, so sign with the {self.network} source (nothing was applied)",
                    tx_type=code,
                )
        if self.sorted_keys:
            return
        for signer, code in sorted_key_candidates(parsed, is_testnet(self.network)):
            known = self.dispatch.known_key(signer, now)
            if known is not None:
                raise Rejected(
                    f"signed over the action with its keys sorted; this exchange verifies the action as sent, in "
                    f"its key order (account {known[0]}'s signature only when sorted; xtui sim --sorted-keys "
                    "accepts both)",
                    tx_type=code,
                )


def refused_envelope(parsed: ParsedAction | None, exc: Rejected) -> dict[str, Any]:
    """The envelope of a refused action: what it was understood as, whose it was, and why not."""
    tx_type = exc.tx_type or (codes_for(parsed)[0] if parsed is not None else 0)
    envelope: dict[str, Any] = {"tx_hash": "", "tx_type": tx_type, "error": str(exc)}
    if parsed is not None and parsed.spec.name in SUCCESS_INSTEAD_OF_ERROR:
        envelope["success"] = False
    envelope.update(data={}, address=exc.address)
    return envelope
