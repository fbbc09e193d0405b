"""``python -m tui.reference``: write the generated references into docs/reference/ (``--check``: only say which
page differs from the code, exit code 1)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from tui.cli.parser import Parser
from tui.reference import render
from tui.reference.markdown import COMMAND

DEFAULT_OUT = Path("docs") / "reference"


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog=COMMAND, description="Write the references generated from the code (docs/reference/*.md).")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the directory to write them to")
    parser.add_argument("--check", action="store_true", help="write nothing: exit 1 naming each page that differs")
    args = parser.parse_args(argv)
    stale = []
    for name, text in render().items():
        path = args.out / name
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        sys.stdout.write(f"{path}: {'differs from the code' if args.check else 'written'}\n")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
