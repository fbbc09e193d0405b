"""``xtui bench --only server``'s latency table, run at a tiny size: it prints every row with its figures and
nothing refused. Nothing here times anything: the figures are read by people."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

# private: the quantile and one row are tried alone; the whole table takes seconds and prints only figures
from tui.bench.latency_table import _quantile, _signed_in_process_row, latency_table

ROWS = (
    "HTTP loopback, open loop, 1k/s",
    "HTTP loopback, open loop, 5k/s",
    "HTTP loopback, closed loop (16 conns)",
    "in process: parse, recover signer, apply",
    "engine alone: place_order, cancel_by_cloid",
)


async def test_the_table_has_every_row_with_four_figures_for_place_and_cancel(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A tiny run (the open-loop rows for ~0.4 s each): the heading names the quantiles, and each row has its
    offered and achieved rates, p50, p99, p99.9 and worst for place and for cancel, and 0 refused (every order
    placed and every cancel found its order)."""
    rows = await latency_table(0.4, closed_pairs=450, engine_pairs=450)
    out = capsys.readouterr().out
    assert "p50        p99      p99.9      worst" in out
    for label in ROWS:
        [line] = [ln for ln in out.splitlines() if ln.startswith(label)]
        figures = re.findall(r"[\d,]+|most", line[len(label) :])
        assert len(figures) == 2 + 8 + 1, line  # offered ("most": closed loop) and achieved, 4 + 4 quantiles, refused
        assert figures[-1] == "0", line
    assert [r.label for r in rows] == list(ROWS)
    assert all(len(r.place) >= 410 and len(r.cancel) >= 10 for r in rows)


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=300), st.sampled_from((0.5, 0.99, 0.999)))
def test_the_quantile_is_the_nearest_rank(values: list[int], q: float) -> None:
    """At least a share q of the values are at or below the q-quantile, and fewer than q below it."""
    ordered = sorted(float(v) for v in values)
    x = _quantile(ordered, q)
    assert sum(v <= x for v in ordered) >= q * len(ordered)
    assert sum(v < x for v in ordered) < q * len(ordered)


def test_a_stream_longer_than_the_nonces_an_exchange_keeps_is_all_taken() -> None:
    """5,400 places and 5,000 cancels from one signer (more than the 10,000 nonces the exchange keeps per signer),
    applied in process: none refused (the funding action once had the highest nonce, and everything after the
    10,000th was refused as too old)."""
    row = _signed_in_process_row(5_400)
    assert (len(row.place), len(row.cancel), row.refused) == (5_400, 5_000, 0)
