"""The brokers screen: the brokers this account has approved and the fee rate each may charge at most.

a approves a broker (the selected one, or any address) for a maximum fee rate, after a confirmation.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from tui.api.models import BrokerApproval, ExchangeResponse
from tui.trading.grammar import FieldError, parse_address, parse_fraction
from tui.ui.widgets.display import fmt_pct
from tui.ui.widgets.record_format import fmt_amount, fmt_seconds
from tui.ui.widgets.record_table import RecordTable

from .data_screen import ActionPlan, DataScreen, ScreenContext
from .form import FormField, FormScreen

__all__ = ["BrokersScreen"]

BROKERS = [("broker", "Broker"), ("rate", "Max fee rate"), ("pct", "As %"), ("updated", "Updated")]
MAX_PAGES = 50


class BrokersScreen(DataScreen):
    SCREEN_TITLE = "Brokers"
    SIGNED_ACTIONS = frozenset({"approve"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve", id="brokers.approve",
                tooltip="Approve a broker's maximum fee rate (the selected broker, or another)"),
    ]  # fmt: skip

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self.approvals: list[BrokerApproval] = []

    def compose_body(self) -> ComposeResult:
        yield Label("Approved brokers: each may add at most its fee rate to an order it routes", classes="section")
        yield RecordTable(BROKERS, id="brokers")

    async def fetch(self) -> None:
        if self.account is None:
            return
        approvals: list[BrokerApproval] = []
        for page in range(1, MAX_PAGES + 1):
            env = await self.ctx.client.brokers_check(self.account, page=page, limit=100)
            approvals += env.data
            if not env.has_next:
                break
        self.approvals = approvals
        self.query_one("#brokers", RecordTable).show([
            (a.broker, [a.broker, fmt_amount(a.max_fee_rate), fmt_pct(a.max_fee_rate, 4, signed=False),
                        fmt_seconds(a.updated_at)])
            for a in approvals
        ])  # fmt: skip

    def action_approve(self) -> None:
        current = {a.broker.lower(): a.max_fee_rate for a in self.approvals}
        selected = self.query_one("#brokers", RecordTable).selected_key() or ""

        def check(values: dict[str, str]) -> ActionPlan:
            broker = parse_address("broker", values["broker"])
            if self.account and broker.lower() == self.account.lower():
                raise FieldError("broker", "an account cannot be its own broker")
            rate = parse_fraction("rate", values["rate"], what="max fee rate")
            was = current.get(broker.lower())
            lines = [
                f"Broker    {broker}",
                f"Max fee   {rate:f} ({fmt_pct(rate, 4, signed=False)} of the notional of each order it routes)",
                f"Now       {fmt_amount(was) if was is not None else 'not approved'}",
            ]

            async def send() -> ExchangeResponse[Any]:
                return await self.ctx.client.approve_broker_fee(broker, rate)

            return ActionPlan("Broker", f"Approve broker {broker[:10]}… for up to {rate:f}?", lines, send,
                              outcome=lambda _: f"{broker} approved for up to {rate:f}")  # fmt: skip

        fields = [
            FormField("broker", "Broker address", selected),
            FormField("rate", "Max fee rate", placeholder="a fraction (0.0005) or a percentage (0.05%)"),
        ]
        self.propose("Broker", FormScreen[ActionPlan]("Approve a broker fee", fields, check))
