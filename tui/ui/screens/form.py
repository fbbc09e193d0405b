"""A small modal form: labelled inputs, one check of the whole form on Enter, the error shown by its field.

The check is a plain function of the texts typed (see ``tui.trading.grammar``); it returns what the form is for
(usually an ``ActionPlan`` to confirm) or raises ``FieldError``. Escape cancels. The hint says what Enter does
(``enter``: a form that sends at once does not say "review"); ``preview``, when given, turns the texts into lines
shown under the fields as they are typed (an order's risk), and may raise nothing but show what it cannot tell.
A field with ``choices`` (the side) is a toggle, not typed: ctrl+t flips it, as in the order form.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import ClassVar, Generic, TypeVar

import msgspec
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from tui.trading import Side
from tui.trading.grammar import FieldError

from .form_controls import SideToggle

__all__ = ["FormField", "FormScreen", "side_field"]

log = logging.getLogger("tui.ui")

T = TypeVar("T")


class FormField(msgspec.Struct, frozen=True):
    """One input: ``name`` is the key of its text in the check's dict."""

    name: str
    label: str
    value: str = ""
    placeholder: str = ""
    password: bool = False
    choices: tuple[str, ...] = ()  # a toggle between these, flipped by ctrl+t (the side: "buy", "sell")


HINT_WIDTH = 66  # the box's 76 columns less its border, padding and a scrollbar


class FormScreen(ModalScreen[T | None], Generic[T]):
    """Dismisses with what ``check`` returns for the texts entered, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
        Binding("ctrl+t", "toggle_side", "Buy/sell", id="form.toggle_side",
                tooltip="Flip the side (bracket, scale, TWAP, chase), from any field"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    FormScreen {
        align: center middle;
    }
    FormScreen > Vertical {
        width: 76;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    FormScreen .title {
        text-style: bold;
        margin-bottom: 1;
    }
    FormScreen .note {
        color: $foreground-muted;
    }
    FormScreen Horizontal {
        height: auto;
        margin-top: 1;
    }
    FormScreen .label {
        width: 18;
        padding: 0 1 0 0;
    }
    FormScreen Input {
        width: 1fr;
    }
    FormScreen #form-error {
        color: $error;
        margin-top: 1;
        height: auto;
    }
    FormScreen .hint {
        color: $foreground-muted;
        margin-top: 1;
        width: 100%;  /* wraps between words: a long one was cut mid-word ("Tab: next fiel") */
    }
    /* taller than the screen (a bracket at 80x24): the fields and notes scroll, the hint stays in view */
    FormScreen #form-body {
        height: auto;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(
        self,
        title: str,
        fields: Sequence[FormField],
        check: Callable[[dict[str, str]], T],
        *,
        notes: Sequence[str] = (),
        focus: str | None = None,
        enter: str = "Enter: review",
        preview: Callable[[dict[str, str]], Sequence[str]] | None = None,
    ) -> None:
        super().__init__()
        self._enter = enter
        self._preview = preview
        self._focus = focus
        self._title = title
        self._fields = list(fields)
        self._check = check
        self._notes = list(notes)

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll(id="form-body", can_focus=False):
                yield Label(self._title, classes="title", markup=False)
                for note in filter(None, self._notes):
                    yield Static(note, classes="note", markup=False)
                for f in self._fields:
                    with Horizontal():
                        yield Label(f.label, classes="label", markup=False)
                        if f.choices:
                            yield SideToggle(f.value, f.choices, id=f"field-{f.name}")
                            continue
                        yield Input(
                            f.value, placeholder=f.placeholder, password=f.password, id=f"field-{f.name}", compact=True
                        )
                if self._preview is not None:
                    yield Static("", id="form-preview", classes="note", markup=False)
            yield Static("", id="form-error", markup=False)  # under the fields that scroll: always in view
            keys = "Tab: next field · Escape: cancel"
            hint = f"{self._enter} · {keys}"  # too long for the box (70 columns): two lines, broken between keys
            yield Label(hint if len(hint) <= HINT_WIDTH else f"{self._enter}\n{keys}", classes="hint", markup=False)

    def on_resize(self, event: events.Resize) -> None:
        # the box's border and padding (6 rows), the error's (2 at least) and the hint's (2) stay in view; the rest is
        # the fields' to scroll
        self.query_one("#form-body", VerticalScroll).styles.max_height = max(4, event.size.height - 10)

    def on_mount(self) -> None:
        """Focus ``focus`` if given, else the first empty field; a text there is selected (shown so), so typing
        replaces it."""
        self.show_preview()
        inputs = [self.query_one(f"#field-{f.name}", Input) for f in self._fields if not f.choices]
        if self._focus is not None:
            first = self.query_one(f"#field-{self._focus}", Input)
        else:
            first = next((i for i in inputs if not i.value), inputs[0])
        first.focus()
        first.select_all()

    def action_toggle_side(self) -> None:
        """Flip the form's toggle (its side); nothing in a form without one."""
        toggle = next(iter(self.query(SideToggle)), None)
        if toggle is not None:
            toggle.flip()
            self.query_one("#form-error", Static).update("")
            self.show_preview()

    def show_preview(self) -> None:
        """The preview's lines for the texts as they are now (nothing without a preview)."""
        if self._preview is None or not self.is_attached:
            return  # a late reading (the leverage in force) may come after the form closed
        try:
            lines = list(self._preview(self.values()))
        except Exception as exc:  # a preview that fails is said and logged; the form goes on
            log.error("the %s form's preview failed", self._title, exc_info=exc)
            lines = [f"could not estimate: {type(exc).__name__}"]
        self.query_one("#form-preview", Static).update("\n".join(lines))

    def values(self) -> dict[str, str]:
        """The texts entered, by field name."""
        return {f.name: self._value(f) for f in self._fields}

    def _value(self, f: FormField) -> str:
        if f.choices:
            return self.query_one(f"#field-{f.name}", SideToggle).value
        return self.query_one(f"#field-{f.name}", Input).value

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one("#form-error", Static).update("")
        self.show_preview()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def submit(self) -> None:
        """Check the form: dismiss with the result, or show what is wrong and focus that field."""
        try:
            result = self._check(self.values())
        except FieldError as exc:
            label = next((f.label for f in self._fields if f.name == exc.field), exc.field)
            self.query_one("#form-error", Static).update(f"{label}: {exc.message}")
            if any(f.name == exc.field and not f.choices for f in self._fields):
                self.query_one(f"#field-{exc.field}", Input).focus()
            return
        except Exception as exc:  # a check that fails unexpectedly is shown here and logged; the app goes on
            log.error("the %s form's check failed", self._title, exc_info=exc)
            self.query_one("#form-error", Static).update(f"could not check this form: {type(exc).__name__}: {exc}")
            return
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)


def side_of(text: str) -> Side | None:
    """The side a form's field holds ("buy", " Sell"), or None when it is neither."""
    side = text.strip().lower()
    return "buy" if side == "buy" else "sell" if side == "sell" else None


def side_field(value: str = "buy") -> FormField:
    """The side of a form's order: buy or sell, a toggle (ctrl+t), never typed."""
    return FormField("side", "Side", value, choices=("buy", "sell"))
