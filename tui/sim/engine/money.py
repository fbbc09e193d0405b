"""The rounding rule: every amount the ledger holds is a whole number of its token's smallest unit.

Balances (derivatives and spot), isolated margins, fees, rebates, broker fees, referral commission, funding,
realised PnL, transfers and vault amounts are kept at the collateral's ``decimals`` (its ``quantum``), so
every balance can be transferred or withdrawn in full. Each computed amount is rounded once, and the same
rounded number is taken from one ledger and given to another, so ``Exchange.audit`` stays exact:

- ``debit``: what an account pays is rounded UP (fees, broker fees, funding paid, the margin an isolated
  position takes, bad debt the backstop covers, a spot buyer's notional). On a signed amount this is
  ROUND_CEILING, so a rebate (a negative fee) shrinks toward zero.
- ``credit``: what an account receives is rounded DOWN (funding received, referral commission, the margin
  a partial close releases, a spot seller's notional, a vault redemption, the withdrawable amount).
  ROUND_FLOOR on a signed amount, so a negative credit (funding paid) is a debit rounded up:
  ``credit(x) == -debit(-x)``.
- Where the two sides of a movement are rounded apart (each position's funding against the fee account,
  a spot notional finer than the quantum), the fee account takes the difference, which by the two rules
  above is never negative: the exchange never creates money.
- ``carried``: an order's fees are rounded up once over its life, not per fill: a fill pays
  ``debit(fee - carry)``, where ``carry`` is what the order's earlier fills paid above their exact fees.
  So an order never pays more than ``debit`` of its whole fee, which is what a spot order reserves.
- ``share``: a perp fill is worth its notional rounded half even, the same number for both sides (exact at
  any tick price: only a liquidation at a mark with many digits rounds); a partial close releases its
  share of the cost basis, rounded half even, and the remainder stays in the cost until the last close.
  So cost bases and realised PnL are whole quanta, and PnL is exact over a position's life.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal


def debit(amount: Decimal, quantum: Decimal) -> Decimal:
    """An amount an account pays, rounded up to ``quantum`` (a negative amount toward zero)."""
    return amount.quantize(quantum, ROUND_CEILING)


def credit(amount: Decimal, quantum: Decimal) -> Decimal:
    """An amount an account receives, rounded down to ``quantum`` (a negative amount away from zero)."""
    return amount.quantize(quantum, ROUND_FLOOR)


def share(amount: Decimal, part: Decimal, whole: Decimal, quantum: Decimal) -> Decimal:
    """``amount * part / whole`` rounded to ``quantum`` (half even): the share of a cost basis a partial
    close releases, or of a fill's value its closing part takes."""
    return (amount * part / whole).quantize(quantum, ROUND_HALF_EVEN)


def carried(exact: Decimal, carry: Decimal, quantum: Decimal) -> tuple[Decimal, Decimal]:
    """(what a fill of an order pays, the order's new carry) for a fill whose exact fee is ``exact``.

    ``carry`` (0 <= carry < quantum) is what the order's earlier fills paid above their exact fees; the
    fills' payments add up to ``debit`` of the order's total exact fee.
    """
    paid = debit(exact - carry, quantum)
    return paid, carry + paid - exact
