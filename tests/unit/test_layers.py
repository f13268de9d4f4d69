"""The folders of ``verifier/`` import one way (issue 35): each unit (a subfolder of the
package, or a top-level module on its own) imports only units in lower layers, and no two
units import each other, directly or through a third. Imports inside functions count as
much as those at the top of a module: a deferred import is still a dependency.

``KNOWN_BACK`` lists the imports that still run upward, each one a knot the redesign of
issue 35 is to undo (the value types the stages hand each other moving into a bottom layer).
The list may only shrink: an entry that no longer holds fails the test, so whoever removes a
back import removes its entry too, and a new one fails until the design is changed."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "verifier"

#: top to bottom; a unit imports only units of the layers below its own
LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer)
    for layer in (
        {"__main__"},
        {"cli"},
        {"commands"},
        {"audit"},
        {"views"},
        {"__init__", "authoring", "coverage"},
        {"pipeline"},
        {"judge"},
        {"inspect", "table"},
        {"plan"},
        {"assertions", "record"},
        {"transcripts", "witness"},
        {"accept", "sources"},
        {"report"},
        {"authenticity", "schema"},
        {"values"},
        {"execute", "fingerprint", "json"},
        {
            "atomicwrite",
            "errors",
            "findings",
            "interrupt",
            "manifest",
            "registry",
            "suggest",
            "version",
        },
    )
)

#: (importer, imported): the upward imports still there, to be undone (issue 35)
KNOWN_BACK: frozenset[tuple[str, str]] = frozenset()


def _unit(module: str) -> str:
    """The unit of a dotted module name inside the package (``verifier.plan.spec`` is
    ``plan``; ``verifier.pipeline`` is ``pipeline``; a name the package's ``__init__``
    defines, such as ``verifier.verify``, is ``__init__``)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    head = parts[1]
    if (PACKAGE / head).is_dir() or (PACKAGE / f"{head}.py").is_file():
        return head
    return "__init__"


def _module_of(path: Path) -> tuple[str, str]:
    """A file's dotted module name and the package its relative imports start from."""
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def _imported(tree: ast.AST, package: str) -> Iterable[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            if name == "verifier":
                yield from (f"verifier.{alias.name}" for alias in node.names)
            else:
                yield name


def unit_graph() -> dict[str, set[str]]:
    """Which unit imports which, from every module's source."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module, package = _module_of(path)
        src = _unit(module)
        graph.setdefault(src, set())
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name in _imported(tree, package):
            if name == "verifier" or name.startswith("verifier."):
                dst = _unit(name)
                if dst != src:
                    graph[src].add(dst)
    return graph


def problems(
    graph: Mapping[str, set[str]],
    layers: tuple[frozenset[str], ...],
    known: frozenset[tuple[str, str]],
) -> list[str]:
    """What breaks the one-way rule: a unit in no layer (or in two), an import that does not
    go down (and is not a known one), a known back import that is gone, and any cycle left
    once the known back imports are set aside."""
    out: list[str] = []
    level: dict[str, int] = {}
    for at, layer in enumerate(layers):
        for unit in sorted(layer):
            if unit in level:
                out.append(f"{unit} is in two layers")
            level[unit] = at
    for unit in sorted(graph):
        if unit not in level:
            out.append(f"{unit} is in no layer: place it in LAYERS")
    edges = {(a, b) for a, targets in graph.items() for b in targets}
    for a, b in sorted(edges - known):
        if a in level and b in level and level[b] <= level[a]:
            out.append(f"{a} imports {b}, which is not below it")
    for a, b in sorted(known - edges):
        out.append(f"{a} no longer imports {b}: remove it from KNOWN_BACK")
    # a cycle through the imports that remain (whatever the layers say)
    down = {a: {b for b in graph[a] if (a, b) not in known} for a in graph}
    state: dict[str, int] = {}
    for start in sorted(down):
        stack: list[tuple[str, list[str]]] = [(start, sorted(down[start]))]
        if state.get(start):
            continue
        state[start] = 1
        path = [start]
        while stack:
            unit, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                state[unit] = 2
                continue
            nxt = todo.pop()
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt]
                out.append("a cycle: " + " -> ".join(cycle))
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(down.get(nxt, ()))))
    return out


def test_the_package_imports_one_way() -> None:
    assert problems(unit_graph(), LAYERS, KNOWN_BACK) == []


def test_the_graph_is_read_from_every_kind_of_import() -> None:
    graph = unit_graph()
    assert "judge" in graph["pipeline"]  # module level
    assert "suggest" in graph["json"]  # only inside a function (json.pointer)
    assert {"commands", "views"} <= set().union(*graph.values())


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": set()}, []),
        ({"a": set(), "b": {"a"}}, ["b imports a, which is not below it"]),
        ({"a": {"b"}, "b": {"a"}}, ["b imports a, which is not below it", "a cycle: a -> b -> a"]),
        ({"a": {"b"}, "b": set(), "c": set()}, ["c is in no layer: place it in LAYERS"]),
    ],
)
def test_the_check_refuses_what_breaks_the_rule(
    graph: dict[str, set[str]], expected: list[str]
) -> None:
    layers = (frozenset({"a"}), frozenset({"b"}))
    assert problems(graph, layers, frozenset()) == expected


def test_a_known_back_import_that_is_gone_fails() -> None:
    graph: dict[str, set[str]] = {"a": {"b"}, "b": set()}
    layers = (frozenset({"a"}), frozenset({"b"}))
    assert problems(graph, layers, frozenset({("b", "a")})) == [
        "b no longer imports a: remove it from KNOWN_BACK"
    ]
    # a known back import is set aside, in the layers and in the cycle search
    assert problems({"a": {"b"}, "b": {"a"}}, layers, frozenset({("b", "a")})) == []


def test_a_cycle_through_a_third_unit_is_found() -> None:
    graph: dict[str, set[str]] = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    layers = (frozenset({"a"}), frozenset({"b"}), frozenset({"c"}))
    assert "a cycle: a -> b -> c -> a" in problems(graph, layers, frozenset())
