"""The agents screen: the keys approved to trade for this account, until when, and which keystore holds each.

a adds an agent: xtui makes a new key, stores it encrypted in keystore ``agent-<name>`` (the password is
asked twice), has the agent key sign its consent and the account key approve it. x revokes the selected
agent. Both after a confirmation (default No). The new key never leaves memory except into the keystore.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from tui import keys
from tui.api.errors import ClientError
from tui.api.models import Agent, ExchangeResponse
from tui.api.signing import Signer
from tui.trading.grammar import FieldError, parse_password, parse_text, parse_whole
from tui.ui.widgets.record_format import fmt_ms
from tui.ui.widgets.record_table import RecordTable

from .data_screen import ActionPlan, DataScreen, ScreenContext
from .form import FormField, FormScreen

__all__ = ["AgentsScreen", "keystore_name"]

AGENTS = [
    ("name", "Name"), ("address", "Agent address"), ("created", "Approved"), ("until", "Valid until"),
    ("status", "Left"), ("keystore", "Keystore"),
]  # fmt: skip
DAY_MS = 86_400_000
MAX_DAYS = 365


def keystore_name(agent_name: str) -> str:
    return f"agent-{agent_name}"


class AgentsScreen(DataScreen):
    SCREEN_TITLE = "Agents"
    SIGNED_ACTIONS = frozenset({"add", "revoke"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add agent", id="agents.add",
                tooltip="Make a new agent key, store it encrypted and approve it to trade for this account"),
        Binding("x", "revoke", "Revoke", id="agents.revoke", tooltip="Revoke the selected agent"),
    ]  # fmt: skip

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self.agents: list[Agent] = []
        self.last_agent = ""  # the address of the agent added last

    def compose_body(self) -> ComposeResult:
        yield Label("Agents: keys that may trade (not move funds) for this account", classes="section")
        yield RecordTable(AGENTS, id="agents")

    async def fetch(self) -> None:
        if self.account is None:
            return
        client = self.ctx.client
        agents, stored = await asyncio.gather(client.all_agents(self.account), asyncio.to_thread(keys.list_keys))
        by_address = {address.lower(): name for name, address in stored if address}
        now = self.ctx.now_ms()
        self.agents = agents
        rows = []
        for a in agents:
            left = a.valid_until_timestamp - now
            status = f"valid {left // DAY_MS}d {left % DAY_MS // 3_600_000}h" if left > 0 else "expired"
            rows.append((a.agent_address, [
                a.agent_name, a.agent_address, fmt_ms(a.created_at_block_timestamp), fmt_ms(a.valid_until_timestamp),
                status, by_address.get(a.agent_address.lower(), "-"),
            ]))  # fmt: skip
        self.query_one("#agents", RecordTable).show(rows)

    # ---- add ------------------------------------------------------------------------------------

    def action_add(self) -> None:
        taken = {a.agent_name for a in self.agents}

        def check(values: dict[str, str]) -> ActionPlan:
            name = parse_text("name", values["name"], max_len=40, what="name", allowed="_.-")
            if name in taken:
                raise FieldError("name", f"an agent named {name} exists already")
            store = keystore_name(name)
            if keys.keystore_path(store).exists():
                raise FieldError("name", f"keystore {store} exists already: pick another name")
            days = parse_whole("days", values["days"], lo=1, hi=MAX_DAYS, what="validity in days")
            password = parse_password("password", values["password"], min_len=keys.MIN_PASSWORD)
            if values["again"] != password:
                raise FieldError("again", "the two passwords differ")
            until = self.ctx.now_ms() + days * DAY_MS
            lines = [
                f"Agent      {name}: a new key, made now",
                f"Trades for {self.account}",
                f"Until      {fmt_ms(until)} UTC ({days} d)",
                f"Keystore   {store}, encrypted with the password given",
                "An agent may place and cancel orders; it cannot withdraw or transfer.",
            ]

            def outcome(_: ExchangeResponse[Any]) -> str:
                return f"{name} {self.last_agent} approved until {fmt_ms(until)}, key in keystore {store}"

            return ActionPlan("Agent", f"Approve a new agent {name}?", lines, lambda: self._add(name, until, password),
                              outcome=outcome)  # fmt: skip

        fields = [
            FormField("name", "Name", placeholder="letters, digits, _ . -"),
            FormField("days", "Valid for (days)", "30"),
            FormField("password", "Keystore password", password=True),
            FormField("again", "Password again", password=True),
        ]
        self.propose("Agent", FormScreen[ActionPlan]("Add an agent", fields, check))

    async def _add(self, name: str, until: int, password: str) -> ExchangeResponse[Any]:
        """Store the new key first (so an approved agent always has its key), then approve it."""
        agent = Signer.generate()
        store = keystore_name(name)
        await asyncio.to_thread(keys.import_key, store, agent.secret_hex(), password)
        try:
            resp = await self.ctx.client.add_agent(agent, name, until)
        except ClientError:
            await asyncio.to_thread(keys.remove, store)  # not approved: its key is of no use
            raise
        self.last_agent = agent.address
        return resp

    # ---- revoke ---------------------------------------------------------------------------------

    def action_revoke(self) -> None:
        key = self.query_one("#agents", RecordTable).selected_key()
        agent = next((a for a in self.agents if a.agent_address == key), None)
        if agent is None:
            self.notify("No agent selected.", severity="warning")
            return

        async def send() -> ExchangeResponse[Any]:
            return await self.ctx.client.revoke_agent(agent.agent_address)

        lines = [
            f"Agent      {agent.agent_name} {agent.agent_address}",
            "It can no longer trade for this account. Its keystore stays (xtui keys remove deletes it).",
        ]
        self.confirm(ActionPlan("Revoke", f"Revoke agent {agent.agent_name}?", lines, send,
                                outcome=lambda _: f"{agent.agent_name} {agent.agent_address} revoked"))  # fmt: skip
