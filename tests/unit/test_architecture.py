"""The package's shape, checked: no import cycle and no module-level mutable state.

Both are read from the source (``ast``), so a lazy import inside a function, or one under
``if TYPE_CHECKING:``, counts as an edge as much as one at the top (a cycle is a design fact,
not a load-order accident). Mutable state is checked twice: in
the source (a ``global`` statement, a module-level ``dict``/``list``/``set`` display or
call) and at run time (every imported module's globals).
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType, ModuleType

import pytest

import verifier
from tests.conftest import REPO

PACKAGE = REPO / "verifier"

#: module-level objects that are mutable by nature and held on purpose, with why
ALLOWED_STATE = {
    # a bounded memo of a pure function (a pattern's compiled, budgeted matcher): what it
    # returns never depends on what was asked before, only how fast
    ("verifier.schema.bounded_regex", "_compile"): "memo of a pure function",
    # the signals that came while a command ran: process-wide by nature (as the signal
    # dispositions themselves), emptied as the outermost signals_raise ends, so no command
    # sees another's (a second signal is left to the kernel's default: it ends the process
    # at once, even inside a long call into C)
    ("verifier.interrupt", "_PENDING"): "signals pending in this process",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> Iterator[tuple[str, Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield _module_name(path), path, ast.parse(path.read_text(encoding="utf-8"))


def _imports(module: str, tree: ast.Module, is_package: bool, modules: set[str]) -> set[str]:
    """The verifier modules ``module`` imports, anywhere in it (under TYPE_CHECKING too: a
    cycle of type-only imports is still two modules that cannot be understood apart)."""
    out: set[str] = set()

    def resolve(base: str, names: list[str]) -> None:
        for name in names:
            sub = f"{base}.{name}"
            out.add(sub if sub in modules else base)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "verifier":
                    out.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] == "verifier":
                resolve(base, [a.name for a in node.names])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    out.discard(module)
    return out


def _graph() -> dict[str, set[str]]:
    sources = list(_sources())
    modules = {name for name, _, _ in sources}
    graph = {}
    for name, path, tree in sources:
        graph[name] = _imports(name, tree, path.name == "__init__.py", modules)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def test_the_import_graph_is_read() -> None:
    """The graph test below looks at something: the core's known edges are in it."""
    graph = _graph()
    assert len(graph) > 50
    assert "verifier.pipeline" in graph["verifier.commands.check"] | graph["verifier.cli"] or any(
        "verifier.pipeline" in deps for deps in graph.values()
    )


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


_MUTABLE_CALLS = frozenset({"dict", "list", "set", "bytearray", "defaultdict", "OrderedDict"})


def _mutable_value(node: ast.expr) -> bool:
    if isinstance(node, ast.Dict | ast.List | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return name in _MUTABLE_CALLS
    return False


def _source_problems() -> list[str]:
    problems = []
    for name, _, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                problems.append(f"{name}:{node.lineno}: global {', '.join(node.names)}")
        for stmt in tree.body:
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            if value is None or not _mutable_value(value):
                continue
            for target in targets:
                if not isinstance(target, ast.Name) or target.id == "__all__":
                    continue
                if (name, target.id) not in ALLOWED_STATE:
                    problems.append(f"{name}:{stmt.lineno}: {target.id} is mutable")
    return problems


def test_no_mutable_module_state_in_the_source() -> None:
    problems = _source_problems()
    assert not problems, "\n".join(problems)


def _all_modules() -> Iterator[ModuleType]:
    yield verifier
    for info in pkgutil.walk_packages(verifier.__path__, "verifier."):
        if info.name.endswith(".__main__"):  # runs the CLI when imported
            continue
        yield importlib.import_module(info.name)


_MUTABLE_TYPES = (dict, list, set, bytearray)


def _runtime_problems() -> list[str]:
    problems = []
    for module in _all_modules():
        for key, value in vars(module).items():
            if key.startswith("__") or (module.__name__, key) in ALLOWED_STATE:
                continue
            if isinstance(value, _MUTABLE_TYPES) and not isinstance(value, MappingProxyType):
                problems.append(f"{module.__name__}.{key}: {type(value).__name__}")
            elif isinstance(value, functools._lru_cache_wrapper):
                problems.append(f"{module.__name__}.{key}: a module-level cache")
    return problems


def test_no_mutable_module_state_at_run_time() -> None:
    problems = _runtime_problems()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "code",
    ["X = {}", "X = []", "X: dict[str, int] = dict()", "def f():\n    global X\n"],
)
def test_the_source_check_can_fail(code: str, tmp_path: Path) -> None:
    tree = ast.parse(code)
    flagged = any(isinstance(n, ast.Global) for n in ast.walk(tree)) or any(
        isinstance(s, ast.Assign | ast.AnnAssign)
        and s.value is not None
        and _mutable_value(s.value)
        for s in tree.body
    )
    assert flagged


#: what reads a source's bytes: a judge that called one would read inside the judging step
_READING_METHODS = frozenset({"open", "read_whole", "read_many", "older_version", "walk"})


def _judge_reads(tree: ast.Module) -> list[str]:
    return sorted(
        f".{node.func.attr}()"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _READING_METHODS
    )


def test_the_judges_never_read() -> None:
    found = {
        module: reads
        for module, _, tree in _sources()
        if module.startswith("verifier.judge.") and (reads := _judge_reads(tree))
    }
    # hints ask for index tasks through the pipeline (verifier.inspect.history.index_names)
    assert found == {}, found


#: what a judge may take from the sources' package: value types, never a source
_JUDGE_MAY_IMPORT = {
    "verifier.sources.interface": {"Kind"},
    "verifier.sources.safety": {"collision_key"},
    "verifier.sources": {"Layout"},
}


def _judge_source_imports(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("verifier.sources"):
            allowed = _JUDGE_MAY_IMPORT.get(node.module or "", set())
            found += [f"{node.module}.{a.name}" for a in node.names if a.name not in allowed]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("verifier.sources")]
    return sorted(found)


def test_the_judges_are_never_given_a_source() -> None:
    """The judge step is given the files' facts and what the pipeline took of the source
    (``verifier.inspect.seen.SourceFacts``), never the source or a capability of it: what it
    cannot hold it cannot read (issue 35)."""
    found = {
        module: names
        for module, _, tree in _sources()
        if module.startswith("verifier.judge.") and (names := _judge_source_imports(tree))
    }
    assert found == {}, found


def test_the_source_import_check_can_fail() -> None:
    tree = ast.parse(
        "from verifier.sources.interface import Kind, Source\n"
        "from verifier.sources.capabilities import OwnLayout\n"
    )
    assert _judge_source_imports(tree) == [
        "verifier.sources.capabilities.OwnLayout",
        "verifier.sources.interface.Source",
    ]


def test_the_read_check_can_fail() -> None:
    tree = ast.parse("def judge(source):\n    return source.older_version('a', 'b')\n")
    assert _judge_reads(tree) == [".older_version()"]
