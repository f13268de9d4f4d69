"""Which schema rules govern one place in a record, and which values they might accept.

``--mutate`` states, for every survivor, the rule that let the changed value through. This
walks the record's declared schema down the instance location, one reference token at a
time, through ``properties``, ``additionalProperties``, ``prefixItems``, ``items``, ``allOf``
and ``$ref`` (resolved against the base URI of the enclosing resource, as
:mod:`verifier.schema.walk` derives it; only to schemas of the archive's ``schemas/``). What it
does not follow (``anyOf``, ``oneOf``, conditionals, ``patternProperties``, a ``$ref`` it
cannot place) is said, not guessed: the description then ends with what the walk could not
tell. The candidates themselves are always validated by the validity stage's own code; this
walk only describes, and offers an enum's other members to try.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag

from verifier.assertions.interface import plain
from verifier.coverage.measure import type_of
from verifier.json.parse import escape_token
from verifier.json.pointer import EvalError, resolve_pointer
from verifier.json.write import dumps
from verifier.schema.walk import join

MAX_NODES = 64  # subschemas followed per location: a schema of $ref cycles ends here
_UNWALKED = ("anyOf", "oneOf", "if", "not", "dependentSchemas", "patternProperties")
_SHOWN = (
    "const",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
)


@dataclass(frozen=True, slots=True)
class _At:
    doc: str  # the schema file's archive path
    pointer: str  # the subschema's JSON pointer in it
    base: str  # the base URI its references resolve against
    node: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.doc}#{self.pointer}"


@dataclass(slots=True)
class Governing:
    """The subschemas that govern one instance location, and what the walk could not
    follow."""

    schema: str
    nodes: list[_At] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)

    def enum_members(self, original: Any) -> list[Any]:
        """Other members, of the original's JSON type, of every enum at this place."""
        out: list[Any] = []
        kind = type_of(original)
        for at in self.nodes:
            members = at.node.get("enum")
            for member in members if isinstance(members, list) else ():
                if type_of(member) == kind and member != original and member not in out:
                    out.append(member)
        return out

    def describe(self) -> str:
        parts = [f"{at.label}: {_constraints(at.node)}" for at in self.nodes if _rules(at.node)]
        if not parts and self.nodes:
            parts = [f"{self.nodes[-1].label}: {_constraints(self.nodes[-1].node)}"]
        if not parts:
            parts = [f"no subschema of {self.schema} constrains this place"]
        text = "; ".join(parts)
        if self.gaps:
            text += "; the walk could not tell: " + "; ".join(self.gaps)
        return text


def _rules(node: dict[str, Any]) -> bool:
    """Whether ``node`` itself constrains a value (not only refers on, or describes)."""
    return any(k in node for k in ("type", "enum", "pattern", *_SHOWN))


def _constraints(node: dict[str, Any]) -> str:
    said: list[str] = []
    kind = node.get("type")
    if isinstance(kind, str):
        said.append(f"type {kind}")
    elif isinstance(kind, list):
        said.append("type " + "|".join(str(k) for k in kind))
    members = node.get("enum")
    if isinstance(members, list):
        said.append(f"enum of {len(members)}")
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        said.append(f"pattern {plain(dumps(pattern), 60)}")
    for key in _SHOWN:
        if key in node:
            said.append(f"{key} {plain(dumps(node[key]), 40)}")
    if not any(k in node for k in ("enum", "const", "pattern")):
        said.append("no enum/const/pattern")
    return ", ".join(said)


class _Walker:
    def __init__(self, docs: dict[str, Any], ids: dict[str, str]) -> None:
        self.docs = docs
        self.ids = ids
        self.budget = MAX_NODES

    def expand(self, start: list[_At], gaps: list[str]) -> list[_At]:
        """``start`` and every subschema reached from them by ``allOf`` and ``$ref``."""
        out: list[_At] = []
        seen: set[tuple[str, str]] = set()
        stack = list(reversed(start))
        while stack:
            at = stack.pop()
            if (at.doc, at.pointer) in seen:
                continue
            seen.add((at.doc, at.pointer))
            self.budget -= 1
            if self.budget < 0:
                gaps.append(f"more than {MAX_NODES} subschemas; the rest were not followed")
                break
            base = at.base
            sid = at.node.get("$id")
            if isinstance(sid, str) and at.pointer:
                try:
                    base = join(base, sid)
                except ValueError:
                    gaps.append(f"{at.label}: its $id does not resolve")
                    continue
            here = _At(at.doc, at.pointer, base, at.node)
            out.append(here)
            for key in _UNWALKED:
                if key in at.node:
                    gaps.append(f"{at.label} has {key} (not walked)")
            more: list[_At] = []
            ref = at.node.get("$ref")
            if isinstance(ref, str):
                target = self.follow(base, ref)
                if target is None:
                    gaps.append(f"{at.label}: $ref {plain(repr(ref), 80)} was not followed")
                else:
                    more.append(target)
            members = at.node.get("allOf")
            for i, member in enumerate(members if isinstance(members, list) else ()):
                if isinstance(member, dict):
                    more.append(_At(at.doc, f"{at.pointer}/allOf/{i}", base, member))
            stack.extend(reversed(more))
        return out

    def follow(self, base: str, ref: str) -> _At | None:
        try:
            uri, fragment = urldefrag(join(base, ref))
        except ValueError:
            return None
        doc = self.ids.get(uri)
        if doc is None or (fragment and not fragment.startswith("/")):
            return None  # another resource, an anchor: not placed by this walk
        try:
            node = resolve_pointer(self.docs[doc], fragment)
        except EvalError:
            return None
        return _At(doc, fragment, uri, node) if isinstance(node, dict) else None

    def step(self, nodes: list[_At], token: str, parent: Any, gaps: list[str]) -> list[_At]:
        out: list[_At] = []
        for at in nodes:
            node = at.node
            if isinstance(parent, dict):
                props = node.get("properties")
                if isinstance(props, dict) and isinstance(props.get(token), dict):
                    at_ptr = f"{at.pointer}/properties/{escape_token(token)}"
                    out.append(_At(at.doc, at_ptr, at.base, props[token]))
                elif isinstance(node.get("additionalProperties"), dict):
                    at_ptr = f"{at.pointer}/additionalProperties"
                    out.append(_At(at.doc, at_ptr, at.base, node["additionalProperties"]))
            elif isinstance(parent, list):
                index = int(token)
                prefix = node.get("prefixItems")
                prefix = prefix if isinstance(prefix, list) else []
                if index < len(prefix) and isinstance(prefix[index], dict):
                    at_ptr = f"{at.pointer}/prefixItems/{index}"
                    out.append(_At(at.doc, at_ptr, at.base, prefix[index]))
                elif index >= len(prefix) and isinstance(node.get("items"), dict):
                    out.append(_At(at.doc, f"{at.pointer}/items", at.base, node["items"]))
        return out


def governing(
    docs: dict[str, Any], ids: dict[str, str], schema: str, record: Any, pointer: str
) -> Governing:
    """The subschemas of the schema at archive path ``schema`` (``docs``: path -> schema;
    ``ids``: ``$id`` -> path) that govern ``pointer`` in ``record``."""
    out = Governing(schema)
    root = docs.get(schema)
    if not isinstance(root, dict) or not isinstance(root.get("$id"), str):
        out.gaps.append(f"the schema {schema} was not available")
        return out
    walker = _Walker(docs, ids)
    nodes = walker.expand([_At(schema, "", root["$id"], root)], out.gaps)
    value = record
    tokens = pointer.split("/")[1:] if pointer else []
    for token in tokens:
        token = token.replace("~1", "/").replace("~0", "~")
        nodes = walker.expand(walker.step(nodes, token, value, out.gaps), out.gaps)
        value = value[token] if isinstance(value, dict) else value[int(token)]
    out.nodes = nodes
    out.gaps = list(dict.fromkeys(out.gaps))
    return out


__all__ = ["Governing", "governing"]
