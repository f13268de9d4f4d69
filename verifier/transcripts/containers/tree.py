"""Histories that are trees (Pi ``id``/``parentId``, Claude Code ``uuid``/``parentUuid``).

The history a model saw is the path from a root to a leaf. Each leaf gives one path; the
path of the *active* leaf (the entry written last) is the one the run continued on, every
other path is an abandoned branch. A reader may say that some side subtrees are not branches
at all (Claude Code writes a parallel call's result line before the next call line, so the raw
links fork although the conversation never did): such a subtree is *absorbed* into the path
it hangs off, in file order, and its leaves give no path of their own.

Walks are iterative and cycle-safe: an entry whose parent is unknown, or that sits on a cycle,
starts a root of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from verifier.transcripts.pairing import Problem

TOO_MANY = "transcript.too-many-branches"


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


def _parents(nodes: list[Node]) -> dict[str, str | None]:
    by_key = {n.key: n for n in nodes}
    parent: dict[str, str | None] = {}
    for n in nodes:
        parent[n.key] = n.parent if n.parent in by_key and n.parent != n.key else None
    # break cycles: a node whose ancestor chain comes back to it becomes a root
    for n in nodes:
        seen = {n.key}
        at = parent[n.key]
        while at is not None:
            if at in seen:
                parent[n.key] = None
                break
            seen.add(at)
            at = parent[at]
    return parent


def roots(nodes: list[Node]) -> dict[str, str]:
    """Each node's root (trees that share no node are separate conversations)."""
    parent = _parents(nodes)
    out: dict[str, str] = {}
    for n in nodes:
        chain = []
        at: str | None = n.key
        while at is not None and at not in out:
            chain.append(at)
            at = parent[at]
        root = out[at] if at is not None else chain[-1]
        for k in chain:
            out[k] = root
    return out


def paths(
    nodes: list[Node],
    absorbable: Callable[[Node, set[str]], bool] | None = None,
    leaf_only: bool = False,
) -> list[TreePath]:
    """One path per leaf (file order of the leaves, the active one last or alone with
    ``leaf_only``). ``absorbable(node, chain)`` says a node may belong to a side subtree that
    is not a branch of the path whose nodes are ``chain``: a side subtree of only such nodes
    is absorbed into the path."""
    if not nodes:
        return []
    by_key = {n.key: n for n in nodes}
    parent = _parents(nodes)
    children: dict[str, list[str]] = {}
    for n in nodes:
        p = parent[n.key]
        if p is not None:
            children.setdefault(p, []).append(n.key)
    leaves = [n for n in nodes if n.key not in children]

    def subtree(key: str) -> list[str]:
        out, todo = [], [key]
        while todo:
            k = todo.pop()
            out.append(k)
            todo.extend(children.get(k, ()))
        return out

    def members(leaf: str) -> set[str]:
        chain: list[str] = []
        at: str | None = leaf
        while at is not None:
            chain.append(at)
            at = parent[at]
        got = set(chain)
        if absorbable is not None:
            for k in chain:
                for child in children.get(k, ()):
                    if child in got:
                        continue
                    side = subtree(child)
                    if all(absorbable(by_key[s], got) for s in side):
                        got.update(side)
        return got

    active_leaf = max(leaves, key=lambda n: n.order)
    active = members(active_leaf.key)
    out: list[TreePath] = []
    covered: set[str] = set(active)
    skipped = 0
    for leaf in sorted(leaves, key=lambda n: n.order):
        if leaf.key == active_leaf.key or leaf_only or leaf.key in covered:
            continue
        if len(out) >= MAX_BRANCHES:  # bounded work on a hostile tree: counted, never hidden
            skipped += 1
            continue
        got = members(leaf.key)
        covered |= got
        orders = tuple(sorted(by_key[k].order for k in got))
        fork = min((by_key[k].order for k in got - active), default=None)
        out.append(TreePath(leaf.key, orders, False, fork))
    orders = tuple(sorted(by_key[k].order for k in active))
    out.append(TreePath(active_leaf.key, orders, True, None, skipped))
    return out


__all__ = ["MAX_BRANCHES", "TOO_MANY", "Node", "TreePath", "paths", "roots", "skipped_problem"]


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
