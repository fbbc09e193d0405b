"""Explorer records: blocks and transactions."""

from __future__ import annotations

from .base import Record

__all__ = ["BlockDetail", "BlockList", "BlockSummary", "Transaction", "TransactionList"]


class BlockSummary(Record, frozen=True):
    """A block summary (blocks item)."""

    block_height: int
    block_hash: str
    parent_hash: str
    change_log_hash: str
    timestamp: int  # ms
    tx_count: int
    created_at: int  # seconds


class Transaction(Record, frozen=True):
    """A transaction record."""

    tx_hash: str
    account: str
    block_height: int
    block_hash: str
    tx_type: int
    success: bool
    timestamp: int  # ms
    created_at: int  # seconds


class BlockDetail(BlockSummary, frozen=True):
    """The block result: a summary plus its transactions."""

    transactions: list[Transaction]


class BlockList(Record, frozen=True):
    """The blocks result."""

    blocks: list[BlockSummary]
    total: int
    limit: int
    offset: int


class TransactionList(Record, frozen=True):
    """The transactions result (SDK only; shape mirrors blocks)."""

    transactions: list[Transaction]
    total: int
    limit: int
    offset: int
