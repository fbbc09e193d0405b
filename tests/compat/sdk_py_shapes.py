"""Prints the answer shape (see sdk_shapes.py) of each info method of the Hotstuff Python SDK, as JSON.

Usage (with the SDK's interpreter): sdk_py_shapes.py
Derived from the SDK's own dataclasses: a method's answer type is ``<Method>Response`` in
``hotstuff.methods.info.*`` (the SDK's naming), or a list of the item type named in LISTS where the SDK
declares only the item; a field is required when it has no default. An empty dataclass says nothing: any.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import types
import typing
from typing import Any

MODULES = ("market", "account", "vault", "explorer")
# answers that are lists of an item type the SDK declares without a <Method>Response
LISTS = {
    "ticker": "Ticker",
    "trades": "Trade",
    "mids": "Mid",
    "bbo": "BBO",
    "chart": "ChartPoint",
    "supported_collateral": "SupportedCollateral",
    "all_agents": "Agent",  # its AgentsResponse is an empty dataclass
}
SCALARS = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def shape(tp: Any, seen: frozenset[Any] = frozenset()) -> dict[str, Any]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp in SCALARS:
        return {"scalar": SCALARS[tp]}
    if origin is typing.Union or origin is types.UnionType:
        return {"union": [shape(a, seen) for a in args]}
    if origin is typing.Literal:
        return {"union": [{"literal": a} for a in args]} if len(args) > 1 else {"literal": args[0]}
    if origin in (list, typing.List):  # noqa: UP006 - the SDK targets Python 3.8
        return {"list": shape(args[0], seen) if args else {"scalar": "any"}}
    if origin in (dict, typing.Dict):  # noqa: UP006
        return {"map": shape(args[1], seen) if args else {"scalar": "any"}}
    if dataclasses.is_dataclass(tp) and tp not in seen and dataclasses.fields(tp):
        hints = typing.get_type_hints(tp)
        fields = {}
        for f in dataclasses.fields(tp):
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            fields[f.name] = [required, shape(hints[f.name], seen | {tp})]
        return {"object": fields}
    return {"scalar": "any"}


def main() -> None:
    from hotstuff import InfoClient

    found = {}
    modules = [importlib.import_module(f"hotstuff.methods.info.{m}") for m in MODULES]
    for method in (m for m in vars(InfoClient) if not m.startswith("_")):
        name = LISTS.get(method) or "".join(w.capitalize() for w in method.split("_")) + "Response"
        for module in modules:
            if hasattr(module, name):
                one = shape(getattr(module, name))
                found[method] = {
                    "type": f"{module.__name__}.{name}",
                    "shape": {"list": one} if method in LISTS else one,
                }
    print(json.dumps(found))


if __name__ == "__main__":
    main()
