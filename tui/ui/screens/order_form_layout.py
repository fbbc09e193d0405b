"""The order form's layout (compact under ``COMPACT_BELOW`` rows, so that it fits 80x24)."""

__all__ = ["ORDER_FORM_CSS"]

ORDER_FORM_CSS = """
OrderFormScreen {
    align: center middle;
}
OrderFormScreen > Vertical {
    width: 72;
    max-width: 100%;
    height: auto;
    max-height: 100%;
    border: thick $bid;
    background: $surface;
    padding: 0 1;
}
OrderFormScreen > Vertical.-sell {
    border: thick $ask;
}
OrderFormScreen #form-title {
    text-style: bold;
    color: $bid;
    width: 1fr;
}
OrderFormScreen .-sell #form-title {
    color: $ask;
}
OrderFormScreen .row {
    height: 1;
    margin-top: 1;
}
OrderFormScreen .field {
    width: 9;
    color: $foreground-muted;
}
OrderFormScreen .gap {
    width: 2;
}
OrderFormScreen Input {
    width: 1fr;
}
OrderFormScreen Select {
    width: 16;
}
OrderFormScreen Checkbox {
    margin-left: 2;
}
OrderFormScreen .error {
    color: $error;
    height: auto;
    padding-left: 9;
}
OrderFormScreen .error.-empty {
    display: none;
}
OrderFormScreen #summary {
    margin-top: 1;
    color: $foreground-muted;
}
OrderFormScreen #risk {
    color: $foreground-muted;
}
OrderFormScreen #risk.-first {
    margin-top: 1;
}
OrderFormScreen #buttons {
    align-horizontal: right;
    margin-bottom: 1;
}
OrderFormScreen Button {
    margin-left: 2;
}
OrderFormScreen #unit {
    width: 12;
}
OrderFormScreen.-compact .row {
    margin-top: 0;
}
OrderFormScreen.-compact #buttons {
    margin-top: 1;
    margin-bottom: 0;
}
"""
