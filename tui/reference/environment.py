"""The environment reference: every ``XTUI_*`` variable xtui reads, from ``tui.config.environment``."""

from __future__ import annotations

from tui.reference.markdown import code, page, table

__all__ = ["environment_page"]


def environment_page() -> str:
    from tui.config.environment import ENV_OVERRIDES, KNOBS, SETTINGS
    from tui.config.values import ENV_BOOL

    overrides = [[code(var), f"profile key [{code(key)}](configuration.md#profilesname)"] for var, key in
                 ENV_OVERRIDES.items()]  # fmt: skip
    true = "/".join(k for k, v in ENV_BOOL.items() if v)
    false = "/".join(k for k, v in ENV_BOOL.items() if not v)
    return page(
        "Environment reference",
        "Every environment variable xtui reads by name. An empty variable is unset. Where they fit among the "
        "config file and the flags: [the configuration guide](../configuration.md#environment-variables).",
        [
            "## Settings\n\n" + table(["variable", "what it sets"], ([code(k), v] for k, v in SETTINGS.items())),
            "## A profile's keys\n\nEach sets that key of the selected profile, over the file (`xtui config show` "
            f"names which did). A boolean reads {code(true)} or {code(false)}.\n\n"
            + table(["variable", "what it sets"], overrides),
            "## Knobs for measuring\n\nNot settings: `xtui bench` uses them.\n\n"
            + table(["variable", "what it does"], ([code(k), v] for k, v in KNOBS.items())),
        ],
    )
