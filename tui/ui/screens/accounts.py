"""The account switcher's dialogs: the profiles to choose from, a keystore's password, and what to do with the
client-side tools still running in the account being left.

Each answers from the keyboard; Escape always cancels and leaves the account as it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tui import keys
from tui.config.accounts import AccountChoice
from tui.config.errors import StartupError
from tui.config.launch import Identity
from tui.ui.widgets.display import short_address
from tui.ui.widgets.profile_colour import profile_colour

__all__ = ["AccountsScreen", "PasswordScreen", "RunningTool", "RunningToolsScreen", "choice_prompt"]

DIALOG_CSS = """
{name} {{
    align: center middle;
}}
{name} > Vertical {{
    width: 84;
    max-width: 100%;
    height: auto;
    max-height: 100%;
    border: thick $primary;
    background: $surface;
    padding: 0 1;
}}
{name} .title {{
    text-style: bold;
    margin-bottom: 1;
}}
{name} .hint {{
    color: $foreground-muted;
}}
"""


def choice_prompt(choice: AccountChoice) -> Content:
    """A profile as the switcher lists it: its colour, name, kind, network and account on the first line; where
    it trades on the second, or why it cannot be switched to from here."""
    colour = "bold reverse $error" if choice.mainnet else f"bold #ffffff on {profile_colour(choice.name)}"
    mark = "▶ " if choice.current else "  "
    address = short_address(choice.address) if choice.address else "new key" if choice.kind == "demo key" else "—"
    network = (choice.network, "bold $error" if choice.mainnet else "")
    first = Content.assemble(
        mark, (f" {choice.name} ", colour), f"  {choice.kind} · ", network, f" · {address}"
    )  # fmt: skip
    if choice.current:
        first = Content.assemble(first, ("  (now)", "bold"))
    second = (
        Content.styled(f"    cannot switch: {choice.unavailable}", "$foreground-muted")
        if choice.unavailable
        else Content.styled(f"    on {_where(choice.exchange)}", "$foreground-muted")
    )
    return Content("\n").join([first, second])


def _where(exchange: str) -> str:
    return "the built-in exchange" + exchange.removeprefix("built-in") if exchange.startswith("built-in") else exchange


class AccountsScreen(ModalScreen[str | None]):
    """The profiles, those that can be switched to first; dismisses with the name chosen, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="accounts.cancel")]
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="AccountsScreen")
        + """
    AccountsScreen OptionList {
        height: auto;
        max-height: 70vh;
        border: none;
        padding: 0;
    }
    """
    )

    def __init__(self, choices: Sequence[AccountChoice]) -> None:
        super().__init__()
        self.choices = sorted(choices, key=lambda c: c.unavailable is not None)  # stable: the config's order kept

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Trade as another account", classes="title", markup=False)
            options = [Option(choice_prompt(c), id=c.name) for c in self.choices]
            yield OptionList(*options, id="accounts-list")
            yield Label("↑↓ choose · Enter switch · Escape cancel", classes="hint", markup=False)

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        current = next((i for i, c in enumerate(self.choices) if c.current), 0)
        listing.highlighted = current
        listing.focus()

    @on(OptionList.OptionSelected, "#accounts-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PasswordScreen(ModalScreen[Identity | None]):
    """A keystore's password, asked for until it unlocks or Escape: a wrong one says so and asks again. ``unlock``
    (blocking: the keystore's key derivation) runs off the UI's loop; dismisses with what it returned."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="password.cancel")]
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="PasswordScreen")
        + """
    PasswordScreen > Vertical {
        width: 64;
        padding: 1 2;
    }
    PasswordScreen Label {
        width: 100%;
    }
    PasswordScreen #password-error {
        color: $error;
        text-style: bold;
        height: auto;
    }
    """
    )

    def __init__(self, profile: str, keystore: str, unlock: Callable[[str], Identity]) -> None:
        super().__init__()
        self.profile = profile
        self.keystore = keystore
        self._unlock = unlock
        self.tries = 0  # wrong passwords so far

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Unlock keystore {self.keystore} to trade as {self.profile}", classes="title", markup=False)
            yield Input(password=True, placeholder="password", id="password-input")
            yield Label("", id="password-error", markup=False)
            yield Label("Enter to unlock · Escape to cancel (the account stays as it is)", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _say(self, text: str) -> None:
        self.query_one("#password-error", Label).update(text)

    @on(Input.Submitted, "#password-input")
    async def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        field = event.input
        password, field.value = event.value, ""  # the password stays in the field no longer than this
        if not password:
            self._say("Type the keystore's password, or Escape to cancel.")
            return
        field.disabled = True
        self._say("unlocking…")
        said = ""
        try:
            ident = await asyncio.to_thread(self._unlock, password)
        except keys.WrongPassword:
            self.tries += 1
            said = f"Wrong password for keystore {self.keystore} ({self.tries}): try again, or Escape to cancel."
        except StartupError as exc:
            said = f"{exc}. Escape to cancel."
        del password
        if not self.is_attached:  # cancelled while it unlocked
            return
        if not said:
            self.dismiss(ident)
            return
        self._say(said)
        field.disabled = False
        field.focus()

    def action_cancel(self) -> None:
        self.dismiss(None)


class RunningTool:
    """A client-side tool still trading (a TWAP...), with the account it trades as."""

    def __init__(self, kind: str, ident: int | str, profile: str, account: str | None, progress: str) -> None:
        self.kind = kind
        self.ident = ident
        self.profile = profile
        self.account = account
        self.progress = progress

    def line(self) -> str:
        who = f"{self.profile} {short_address(self.account) if self.account else ''}".strip()
        return f"{self.kind} {self.ident} as {who}: {self.progress}"


class RunningToolsScreen(ModalScreen[str | None]):
    """Tools still running as the switch begins: dismisses with "keep" (they go on as their own account), "stop"
    (cancelled first) or None (Escape: no switch)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "answer('keep')", "Keep", id="tools.keep"),
        Binding("s", "answer('stop')", "Stop", id="tools.stop"),
        Binding("escape", "answer(None)", "Cancel", id="tools.cancel"),
    ]
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="RunningToolsScreen")
        + """
    RunningToolsScreen > Vertical {
        border: thick $warning;
        padding: 1 2;
    }
    RunningToolsScreen .title {
        color: $warning;
    }
    RunningToolsScreen Horizontal {
        height: auto;
        margin-top: 1;
        align-horizontal: right;
    }
    RunningToolsScreen Button {
        margin-left: 2;
    }
    """
    )

    def __init__(self, target: str, tools: Sequence[RunningTool]) -> None:
        super().__init__()
        self.target = target
        self.tools = list(tools)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Switch to {self.target} with {len(self.tools)} tool(s) running?", classes="title")
            for tool in self.tools:
                yield Static(tool.line(), classes="tool", markup=False)
            yield Static(
                "Kept, each goes on trading as the account it started with (q still asks about them). "
                "Stopped, each is cancelled first; what it already sent stays as it is.",
                classes="hint",
                markup=False,
            )
            with Horizontal():
                yield Button("Cancel (esc)", id="cancel", variant="primary")
                yield Button("Stop them (s)", id="stop", variant="warning")
                yield Button("Keep them (k)", id="keep", variant="default")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer)
