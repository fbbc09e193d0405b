"""What an SDK's types say an answer holds, and what a real answer lacks of it.

A shape is plain JSON, so that the Python SDK's interpreter can derive one from its dataclasses and print it:
``{"object": {field: [required, shape]}}``, ``{"list": shape}``, ``{"map": shape}`` (string keys),
``{"union": [shape, ...]}``, ``{"literal": value}`` or ``{"scalar": "string" | "number" | "boolean" | "null" | "any"}``.
``read_ts_shapes`` derives shapes from the TypeScript SDK's ``.d.ts`` files (the subset of TypeScript they use);
``problems`` lists where an answer falls short of a shape: a required field missing, or a value of the wrong kind.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

Shape = dict[str, Any]
ANY: Shape = {"scalar": "any"}
SCALARS = {"string": "string", "number": "number", "boolean": "boolean", "null": "null", "undefined": "null"}
OPAQUE = {"any", "unknown", "Address", "object"}  # viem's Address is a string template; read as any string
TOKEN = re.compile(  # one token: a comment (dropped), a string, a (dotted) name, a number, or one character
    r"\s*(?:(//[^\n]*|/\*.*?\*/)|('[^']*'|\"[^\"]*\")|([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)|(-?\d+(?:\.\d+)?)|(\S))",
    re.S,
)
TS_SIGNATURE = re.compile(r"^\s*(\w+)\(params: [\w.]+, signal\?: AbortSignal\): Promise<(?:\w+\.)?(\w+)>;", re.M)


class _Reader:
    """Declarations (``export interface`` / ``export type``) of one set of ``.d.ts`` files, by name."""

    def __init__(self, text: str) -> None:
        self.tokens = [t for t in (_token(m) for m in TOKEN.finditer(text)) if t is not None]
        self.at = 0
        self.declared: dict[str, list[str]] = {}

    def peek(self, ahead: int = 0) -> str:
        i = self.at + ahead
        return self.tokens[i] if i < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if expected is not None and token != expected:
            raise ValueError(f"expected {expected!r} at token {self.at}, found {token!r}")
        self.at += 1
        return token

    def declarations(self) -> dict[str, list[str]]:
        """Each declared name and the tokens of its body: an interface's ``{...}`` or a type's right-hand side."""
        while self.at < len(self.tokens):
            if self.peek() == "export" and self.peek(1) in ("interface", "type"):
                kind, name = self.peek(1), self.peek(2)
                self.at += 3
                if self.peek() == "<":  # generic declarations are not answers
                    continue
                if kind == "type":
                    self.take("=")
                start = self.at
                self.skip_type() if kind == "type" else self.skip_braces()
                self.declared[name] = self.tokens[start : self.at]
            else:
                self.at += 1
        return self.declared

    def skip_braces(self) -> None:
        depth = 0
        while True:
            token = self.take()
            depth += {"{": 1, "}": -1}.get(token, 0)
            if depth == 0:
                return

    def skip_type(self) -> None:
        depth = 0
        while self.at < len(self.tokens):
            token = self.peek()
            if depth == 0 and token in (";", "export"):
                return
            depth += {"{": 1, "}": -1, "<": 1, ">": -1, "(": 1, ")": -1, "[": 1, "]": -1}.get(token, 0)
            self.at += 1


def _token(match: re.Match[str]) -> str | None:
    comment, text, name, number, punct = match.groups()
    if comment:
        return None
    return text or name or number or punct


class _Shaper:
    """Turns the tokens of a declaration into a shape, resolving names among the declarations."""

    def __init__(self, declared: dict[str, list[str]]) -> None:
        self.declared = declared
        self.resolving: set[str] = set()

    def named(self, name: str) -> Shape:
        name = name.rsplit(".", 1)[-1]  # GM.IOracleMethodResponse: namespaces are flattened
        if name in SCALARS:
            return {"scalar": SCALARS[name]}
        if name in OPAQUE or name not in self.declared or name in self.resolving:
            return ANY
        self.resolving.add(name)
        try:
            return self.parse(list(self.declared[name]))
        finally:
            self.resolving.discard(name)

    def parse(self, tokens: list[str]) -> Shape:
        reader = _Reader("")
        reader.tokens = tokens
        shape = self._union(reader)
        return shape

    def _union(self, r: _Reader) -> Shape:
        if r.peek() == "|":
            r.take()
        options = [self._postfix(r)]
        while r.peek() == "|":
            r.take()
            options.append(self._postfix(r))
        return options[0] if len(options) == 1 else {"union": options}

    def _postfix(self, r: _Reader) -> Shape:
        shape = self._primary(r)
        while r.peek() == "[" and r.peek(1) == "]":
            r.take()
            r.take()
            shape = {"list": shape}
        return shape

    def _primary(self, r: _Reader) -> Shape:
        token = r.take()
        if token == "{":
            return self._members(r)
        if token == "(":
            inner = self._union(r)
            r.take(")")
            return inner
        if token[0] in "'\"":
            return {"literal": token[1:-1]}
        if token in ("true", "false"):
            return {"literal": token == "true"}
        if re.fullmatch(r"-?\d+(?:\.\d+)?", token):
            return {"literal": float(token)}
        if r.peek() == "<":
            r.take()
            args = [self._union(r)]
            while r.peek() == ",":
                r.take()
                args.append(self._union(r))
            r.take(">")
            if token == "Record":
                return {"map": args[1]}
            if token == "Array":
                return {"list": args[0]}
            return ANY
        return self.named(token)

    def _members(self, r: _Reader) -> Shape:
        fields: dict[str, list[Any]] = {}
        while r.peek() != "}":
            name = r.take()
            if r.peek() == "(":  # a method: not data
                depth = 0
                while not (depth == 0 and r.peek() in (";", "}")):
                    depth += {"(": 1, ")": -1, "{": 1, "}": -1, "<": 1, ">": -1}.get(r.take(), 0)
            else:
                required = r.peek() != "?"
                if not required:
                    r.take("?")
                r.take(":")
                fields[name.strip("'\"")] = [required, self._union(r)]
            if r.peek() in (";", ","):
                r.take()
        r.take("}")
        return {"object": fields} if fields else ANY  # TypeScript's {} is any value but null


def read_ts_shapes(dist: Path) -> dict[str, Shape]:
    """The answer shape of each InfoClient method of the TypeScript SDK's ``dist/``, by method name."""
    text = "\n".join(p.read_text() for p in sorted((dist / "methods" / "info").glob("*.d.ts")))
    shaper = _Shaper(_Reader(text).declarations())
    api = (dist / "apis" / "info.api.d.ts").read_text()
    return {method: shaper.named(response) for method, response in TS_SIGNATURE.findall(api)}


def read_ts_declaration(source: str, name: str) -> Shape:
    """The shape of one declaration in ``source`` (TypeScript declarations): for tests of the reader."""
    return _Shaper(_Reader(source).declarations()).named(name)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


def problems(shape: Shape, value: Any, path: str = "") -> list[str]:
    """Where ``value`` falls short of ``shape``: ``path: missing`` for a required field, else a wrong kind."""
    here = path or "(answer)"
    if "union" in shape:
        if all("literal" in option for option in shape["union"]):
            allowed = [option["literal"] for option in shape["union"]]
            return [] if value in allowed else [f"{here}: {value!r} is none of {allowed!r}"]
        found = [problems(option, value, path) for option in shape["union"]]
        return min(found, key=len) if all(found) else []
    if "literal" in shape:
        literal = shape["literal"]
        same = value == literal and _kind(value) == _kind(literal)
        return [] if same else [f"{here}: {value!r} is not {literal!r}"]
    if "scalar" in shape:
        want = shape["scalar"]
        return [] if want == "any" or _kind(value) == want else [f"{here}: a {_kind(value)}, not a {want}"]
    if "list" in shape:
        if not isinstance(value, list):
            return [f"{here}: a {_kind(value)}, not a list"]
        return [p for i, item in enumerate(value) for p in problems(shape["list"], item, f"{path}[{i}]")]
    if not isinstance(value, dict):
        return [f"{here}: a {_kind(value)}, not an object"]
    if "map" in shape:
        return [p for k, item in value.items() for p in problems(shape["map"], item, f"{path}[{k!r}]")]
    found: list[str] = []
    for name, (required, field_shape) in shape["object"].items():
        where = f"{path}.{name}" if path else name
        if name not in value:
            found += [f"{where}: missing"] if required else []
        elif value[name] is not None or required:
            found += problems(field_shape, value[name], where)
    return found
