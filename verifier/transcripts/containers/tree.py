"""Histories that are trees (Pi ``id``/``parentId``, Claude Code ``uuid``/``parentUuid``).

The history a model saw is the path from a root to a leaf. Each leaf gives one path; the
path of the *active* leaf (the entry written last) is the one the run continued on, every
other path is an abandoned branch. A reader may say that some side subtrees are not branches
at all (Claude Code writes a parallel call's result line before the next call line, so the raw
links fork although the conversation never did): such a subtree is *absorbed* into the path
it hangs off, in file order, and its leaves give no path of their own.

Every entry is a node of its own, told by its position in the file, never by its id: two
entries that carry the same id are both read (:func:`duplicates` lists them, and the readers
report them as ``transcript.duplicate-id``), and a link to such an id goes to the nearest
entry before the linking one that carries it (the first one, when none is before it).

Walks are iterative, cycle-safe and linear in the number of entries (each path walked once,
at most :data:`MAX_BRANCHES` abandoned ones per tree): an entry whose parent is unknown starts
a root of its own, and on a cycle of links the entry written first becomes a root.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from verifier.transcripts.pairing import Problem

TOO_MANY = "transcript.too-many-branches"
DUPLICATE = "transcript.duplicate-id"


@dataclass(frozen=True, slots=True)
class Node:
    key: str
    parent: str | None
    order: int  # position in the file (the line), which is the order it was written


MAX_BRANCHES = 200  # abandoned paths checked per tree; the rest are counted, not walked


@dataclass(frozen=True, slots=True)
class TreePath:
    leaf: str
    members: tuple[int, ...]  # the orders of its nodes, sorted (file order)
    active: bool
    fork: int | None  # the order of the first node not on the active path (abandoned only)
    skipped: int = 0  # the active path only: abandoned leaves beyond MAX_BRANCHES, not checked


#: ``absorbable(node, chain)``: whether ``node`` may belong to a side subtree that is not a
#: branch of the path whose nodes so far are ``chain`` (a list that only grows while one path
#: is walked, so a caller may keep what it learnt of it between calls)
Absorbable = Callable[[Node, Sequence[Node]], bool]


def _parents(nodes: Sequence[Node]) -> list[int | None]:
    """Each node's parent, as a position in ``nodes`` (``None``: a root). Linear time."""
    where: dict[str, list[int]] = {}
    for i, n in enumerate(nodes):
        where.setdefault(n.key, []).append(i)
    parent: list[int | None] = []
    for i, n in enumerate(nodes):
        found = where.get(n.parent) if n.parent is not None else None
        if not found:
            parent.append(None)
            continue
        before = bisect_left(found, i)  # the nearest earlier node with that key, else the first
        near = found[before - 1] if before else found[0]
        parent.append(near if near != i else None)
    # break cycles: follow each chain once (0 not seen, 1 on the chain being walked, 2 done);
    # a chain that comes back onto itself is a cycle, whose node written first becomes a root
    state = [0] * len(nodes)
    for start in range(len(nodes)):
        chain: list[int] = []
        at: int | None = start
        while at is not None and state[at] == 0:
            state[at] = 1
            chain.append(at)
            at = parent[at]
        if at is not None and state[at] == 1:
            cycle = chain[chain.index(at) :]
            parent[min(cycle, key=lambda k: nodes[k].order)] = None
        for k in chain:
            state[k] = 2
    return parent


def roots(nodes: Sequence[Node]) -> list[int]:
    """Each node's root, as a position in ``nodes`` (trees that share no node are separate
    conversations)."""
    parent = _parents(nodes)
    out = [-1] * len(nodes)
    for start in range(len(nodes)):
        chain = []
        at: int | None = start
        while at is not None and out[at] < 0:
            chain.append(at)
            at = parent[at]
        root = out[at] if at is not None else chain[-1]
        for k in chain:
            out[k] = root
    return out


def duplicates(nodes: Sequence[Node]) -> list[tuple[str, list[int]]]:
    """Each id more than one node carries, with their orders (file order of first use)."""
    where: dict[str, list[int]] = {}
    for n in nodes:
        where.setdefault(n.key, []).append(n.order)
    return [(key, orders) for key, orders in where.items() if len(orders) > 1]


def paths(
    nodes: Sequence[Node],
    absorbable: Absorbable | None = None,
    leaf_only: bool = False,
) -> list[TreePath]:
    """One path per leaf (file order of the leaves, the active one last or alone with
    ``leaf_only``). A side subtree of only nodes ``absorbable`` says may join the path is
    absorbed into it."""
    if not nodes:
        return []
    parent = _parents(nodes)
    children: list[list[int]] = [[] for _ in nodes]
    for k, p in enumerate(parent):
        if p is not None:
            children[p].append(k)
    leaves = [k for k in range(len(nodes)) if not children[k]]

    def subtree(top: int) -> list[int]:
        out, todo = [], [top]
        while todo:
            k = todo.pop()
            out.append(k)
            todo.extend(children[k])
        return out

    def members(leaf: int) -> set[int]:
        chain: list[int] = []
        at: int | None = leaf
        while at is not None:
            chain.append(at)
            at = parent[at]
        got = set(chain)
        if absorbable is not None:
            seen = [nodes[k] for k in chain]  # grows with got, in the order nodes join
            for k in chain:
                for child in children[k]:
                    if child in got:
                        continue
                    side = subtree(child)
                    if all(absorbable(nodes[s], seen) for s in side):
                        got.update(side)
                        seen.extend(nodes[s] for s in side)
        return got

    def order(k: int) -> int:
        return nodes[k].order

    active_leaf = max(leaves, key=order)
    active = members(active_leaf)
    out: list[TreePath] = []
    covered: set[int] = set(active)
    skipped = 0
    for leaf in sorted(leaves, key=order):
        if leaf == active_leaf or leaf_only or leaf in covered:
            continue
        if len(out) >= MAX_BRANCHES:  # bounded work on a hostile tree: counted, never hidden
            skipped += 1
            continue
        got = members(leaf)
        covered |= got
        orders = tuple(sorted(nodes[k].order for k in got))
        fork = min((nodes[k].order for k in got - active), default=None)
        out.append(TreePath(nodes[leaf].key, orders, False, fork))
    orders = tuple(sorted(nodes[k].order for k in active))
    out.append(TreePath(nodes[active_leaf].key, orders, True, None, skipped))
    return out


__all__ = [
    "DUPLICATE",
    "MAX_BRANCHES",
    "TOO_MANY",
    "Absorbable",
    "Node",
    "TreePath",
    "duplicate_problems",
    "duplicates",
    "paths",
    "roots",
    "skipped_problem",
]


def skipped_problem(path: TreePath) -> list[Problem]:
    """The finding for abandoned branches not checked (none when every one was)."""
    if not path.skipped:
        return []
    return [
        Problem(
            TOO_MANY,
            0,
            0,
            "",
            "",
            f"the tree has {path.skipped} more abandoned branches than the {MAX_BRANCHES} "
            "checked; they were not checked",
        )
    ]


def duplicate_problems(
    nodes: Sequence[Node], line_of: Callable[[int], int], what: str
) -> list[Problem]:
    """One problem per id carried by more than one node (``what``: the id's name, such as
    ``id`` or ``uuid``; ``line_of``: an order's line), placed on the line of its second use.
    No entry was dropped: each was read as an entry of its own."""
    out = []
    for key, orders in duplicates(nodes):
        shown = [str(line_of(k)) for k in orders[:10]]
        more = f" and {len(orders) - 10} more" if len(orders) > 10 else ""
        lines = ", ".join(shown) + more if more else ", ".join(shown[:-1]) + " and " + shown[-1]
        out.append(
            Problem(
                DUPLICATE,
                0,
                0,
                "",
                "",
                f"the {what} {key[:80]!r} is carried by the entries on lines {lines}; each "
                "was read as an entry of its own, and a link to that id goes to the nearest one "
                "before the linking entry",
                line=line_of(orders[1]),
            )
        )
    return out
