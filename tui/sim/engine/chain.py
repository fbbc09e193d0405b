"""Transactions and blocks: every accepted (or recorded failed) action is a transaction; blocks seal them.

Transaction hashes are ``keccak256(seed || sequence number)``, unique per engine and reproducible for a
seed. They are computed lazily (on first use) because hashing costs more than resting an order does; a
block computes the hashes of its transactions when it is sealed.

Memory is bounded: only the newest ``max_blocks`` blocks, and no more than ``max_txs`` transactions in them,
are kept (whole blocks go, oldest first, the newest always stays); older ones answer as not found.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from tui.api.signing import keccak256

_ZERO_HASH = "0x" + "00" * 32


class Tx:
    """One transaction. ``block_height`` is 0 and ``block_hash`` empty until a block seals it."""

    __slots__ = ("_hash", "account", "block_hash", "block_height", "prefix", "seq", "success", "ts_ms", "tx_type")

    def __init__(self, prefix: bytes, seq: int, account: str, tx_type: int, success: bool, ts_ms: int) -> None:
        self.prefix = prefix
        self.seq = seq
        self._hash: str | None = None
        self.account = account  # EIP-55
        self.tx_type = tx_type
        self.success = success
        self.ts_ms = ts_ms
        self.block_height = 0
        self.block_hash = ""

    @property
    def hash(self) -> str:
        h = self._hash
        if h is None:
            h = self._hash = "0x" + keccak256(self.prefix + self.seq.to_bytes(8, "big")).hex()
        return h

    def record(self) -> dict[str, Any]:
        """The explorer transaction record."""
        return {
            "tx_hash": self.hash,
            "account": self.account,
            "block_height": self.block_height,
            "block_hash": self.block_hash,
            "tx_type": self.tx_type,
            "success": self.success,
            "timestamp": self.ts_ms,
            "created_at": self.ts_ms // 1000,
        }


class Block:
    """A sealed block."""

    __slots__ = ("change_log_hash", "hash", "height", "parent_hash", "ts_ms", "txs")

    def __init__(self, height: int, parent_hash: str, ts_ms: int, txs: list[Tx]) -> None:
        self.height = height
        self.parent_hash = parent_hash
        self.ts_ms = ts_ms
        self.txs = txs
        changes = b"".join(bytes.fromhex(t.hash[2:]) + (b"\x01" if t.success else b"\x00") for t in txs)
        self.change_log_hash = "0x" + keccak256(b"changelog" + changes).hex()
        self.hash = (
            "0x"
            + keccak256(
                bytes.fromhex(parent_hash[2:])
                + height.to_bytes(8, "big")
                + ts_ms.to_bytes(8, "big")
                + bytes.fromhex(self.change_log_hash[2:])
            ).hex()
        )

    def summary(self) -> dict[str, Any]:
        """The explorer block summary."""
        return {
            "block_height": self.height,
            "block_hash": self.hash,
            "parent_hash": self.parent_hash,
            "change_log_hash": self.change_log_hash,
            "timestamp": self.ts_ms,
            "tx_count": len(self.txs),
            "created_at": self.ts_ms // 1000,
        }

    def detail(self) -> dict[str, Any]:
        """Block summary plus its transaction records."""
        out = self.summary()
        out["transactions"] = [t.record() for t in self.txs]
        return out


class Chain:
    """The ledger of transactions and blocks."""

    def __init__(self, seed: int, genesis_ms: int, max_blocks: int, max_txs: int) -> None:
        self._prefix = keccak256(b"xtui-sim-tx" + seed.to_bytes(8, "big", signed=True))[:16]
        self._seq = 0
        self.pending: list[Tx] = []
        self.max_blocks = max_blocks
        self.max_txs = max_txs
        self.blocks: deque[Block] = deque()
        self.txs: deque[Tx] = deque()  # sealed, oldest first
        self.by_hash: dict[str, Tx] = {}
        self.block_by_hash: dict[str, Block] = {}
        self.by_account: dict[str, deque[Tx]] = {}
        self._seal(Block(0, _ZERO_HASH, genesis_ms, []))

    def record(self, account: str, tx_type: int, success: bool, now_ms: int) -> Tx:
        """A new pending transaction (sealed by the next ``produce_block``)."""
        self._seq += 1
        tx = Tx(self._prefix, self._seq, account, tx_type, success, now_ms)
        self.pending.append(tx)
        return tx

    @property
    def height(self) -> int:
        return self.blocks[-1].height

    def produce_block(self, now_ms: int) -> Block:
        """Seal the pending transactions into the next block (empty blocks are produced too)."""
        head = self.blocks[-1]
        txs, self.pending = self.pending, []
        block = Block(head.height + 1, head.hash, max(now_ms, head.ts_ms), txs)
        for t in txs:
            t.block_height = block.height
            t.block_hash = block.hash
        self._seal(block)
        return block

    def _seal(self, block: Block) -> None:
        self.blocks.append(block)
        self.block_by_hash[block.hash] = block
        for t in block.txs:
            self.txs.append(t)
            self.by_hash[t.hash] = t
            self.by_account.setdefault(t.account.lower(), deque()).append(t)
        while len(self.blocks) > 1 and (len(self.blocks) > self.max_blocks or len(self.txs) > self.max_txs):
            old = self.blocks.popleft()
            del self.block_by_hash[old.hash]
            for t in old.txs:
                self.txs.popleft()
                del self.by_hash[t.hash]
                mine = self.by_account[t.account.lower()]
                mine.popleft()
                if not mine:
                    del self.by_account[t.account.lower()]

    def block(self, height: int | None = None, block_hash: str | None = None) -> Block | None:
        """A kept block by height or by hash."""
        if block_hash is not None:
            return self.block_by_hash.get(block_hash.lower())
        if height is None or not self.blocks:
            return None
        i = height - self.blocks[0].height
        return self.blocks[i] if 0 <= i < len(self.blocks) else None

    def tx(self, tx_hash: str) -> Tx | None:
        """A transaction by hash, sealed or pending."""
        h = tx_hash.lower()
        found = self.by_hash.get(h)
        if found is None:
            found = next((t for t in self.pending if t.hash == h), None)
        return found

    def list_blocks(self, offset: int, limit: int) -> list[Block]:
        """Newest first."""
        n = len(self.blocks)
        return [self.blocks[i] for i in range(n - 1 - offset, max(n - 1 - offset - limit, -1), -1)]

    def list_txs(self, offset: int, limit: int, account: str | None, tx_type: int | None) -> tuple[list[Tx], int]:
        """Sealed transactions newest first, optionally for one account and/or type; also the total."""
        src: deque[Tx] = self.txs if account is None else self.by_account.get(account.lower(), deque())
        if tx_type is None:
            n = len(src)
            return [src[i] for i in range(n - 1 - offset, max(n - 1 - offset - limit, -1), -1)], n
        matching = [t for t in reversed(src) if t.tx_type == tx_type]
        return matching[offset : offset + limit], len(matching)
