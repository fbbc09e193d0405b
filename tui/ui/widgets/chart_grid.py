"""The cells of the chart's picture, without Textual: a grid of characters and roles turned into runs of
(text, role) per line, and the trader's levels the chart draws (``chart_layout`` lays the picture out, ``chart_labels``
names its lines, ``chart_studies`` draws the indicators)."""

from __future__ import annotations

from decimal import Decimal

import msgspec

__all__ = ["Grid", "Level", "Line", "Role", "Run"]

Role = str  # "up" | "down" | "axis" | "last-up" | "last-down" | "line" | "time" | "message" | "lv-*" | "ind-*" | ""
Run = tuple[str, Role]
Line = tuple[Run, ...]


class Level(msgspec.Struct, frozen=True):
    """A price the trader has a stake at: drawn as a labelled line across the plot."""

    price: Decimal
    label: str  # what it is, shown before the price: "entry long", "liq", "TP", "sell 0.50"
    role: Role


class Grid:
    """Characters and roles, cell by cell, turned into runs at the end."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.chars = [[" "] * width for _ in range(height)]
        self.roles: list[list[Role]] = [[""] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, role: Role) -> None:
        for i, ch in enumerate(text):
            if 0 <= x + i < self.width and 0 <= y < len(self.chars):
                self.chars[y][x + i] = ch
                self.roles[y][x + i] = role

    def lines(self) -> tuple[Line, ...]:
        out = []
        for chars, roles in zip(self.chars, self.roles, strict=True):
            runs: list[Run] = []
            for ch, role in zip(chars, roles, strict=True):
                # a space shows no colour: it joins the run before it (fewer colour changes to write)
                if runs and (runs[-1][1] == role or (ch == " " and not runs[-1][1].startswith("last"))):
                    runs[-1] = (runs[-1][0] + ch, runs[-1][1])
                else:
                    runs.append((ch, role))
            out.append(tuple(runs))
        return tuple(out)
