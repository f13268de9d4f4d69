"""The spec's cases and per-case rules (issue 35): where the cases are, and each rule expanded
into one assertion per case, once, when the plan reads the spec.

A spec may say where its cases are, ``"cases": {"folders": GLOB}`` (a glob, as the spec's
``transcripts[].files``, over the folders of the manifest's listed files, inside the content
root), and hold ``rules``: assertions of any kind whose file names may hold ``{case}``, the
case folder's path. The instance of rule ``R`` for case ``C`` is the assertion with the id
``R@C`` and ``{case}`` replaced by ``C`` in its file names only (every ``file``, ``files``
and ``transcript`` string, outside a literal ``value`` or ``values``; never in an id, a
description, a pointer or a compared value). A rule applies to every case: a case that needs
another check gets a written-out assertion beside the rules.

:func:`expanded` makes the spec every later step reads: its ``assertions`` are the written
ones, then the instances, case by case (every rule for the first case, then the next), and
its :data:`META` member says where each instance came from and what the expansion found
(read with :func:`entry_pointer` and :func:`findings_of`). The instances of a case are
adjacent, and each is a shallow copy of its rule that shares every member it does not
change, so that a case's instances can be made wherever the case is read.

No vacuous pass: rules without a ``cases`` glob, or a glob that matches no folder
(``rule.no-cases``), and, with ``"everyCaseJudged": true``, a case that no
instance and no written-out assertion reads (``rule.case-unjudged``; a spec of written-out
assertions may state ``cases`` and ``everyCaseJudged`` too) are findings; more
instances than ``limit`` are not made (``rule.too-many``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from verifier.json.pointer import Glob
from verifier.values.packed import WINDOW

CASE = "{case}"
_FORM = frozenset({"rules", "cases", "everyCaseJudged"})
#: the expanded spec's own member: ``{"written": N, "ruleOf": [rule index per instance],
#: "findings": [[code, pointer, message], ...]}`` (a name no author's spec may hold: the
#: spec's schema allows no other ``$`` member than ``$schema``)
META = "$expansion"
FILE_KEYS = frozenset(
    {"file", "files", "transcript", "witness"}
)  # the file-name fields of the kinds
VALUE_KEYS = frozenset({"value", "values"})  # literal values: never substituted
#: more instances than this are not made (a finding says so): the default bound on an
#: archive's entries, as the sources' limits
MAX_INSTANCES = 1_000_000


def has_rules(spec: Any) -> bool:
    """Whether ``spec`` (parsed) uses the rule form: ``rules``, ``cases`` or
    ``everyCaseJudged``."""
    return isinstance(spec, dict) and not spec.keys().isdisjoint(_FORM)


def folders_of(names: Iterable[str]) -> list[str]:
    """Every folder holding one of ``names`` (paths), at any depth, sorted."""
    out: set[str] = set()
    add = out.add
    for name in names:
        cut = name.rfind("/")
        while cut > 0:
            folder = name[:cut]
            if folder in out:
                break
            add(folder)
            cut = name.rfind("/", 0, cut)
    return sorted(out)


def _glob(spec: Any) -> str | None:
    cases = spec.get("cases") if isinstance(spec, dict) else None
    folders = cases.get("folders") if isinstance(cases, dict) else None
    return folders if isinstance(folders, str) and folders else None


def case_set(spec: Any, names: Iterable[str]) -> tuple[str, ...]:
    """The case folders of ``spec`` (parsed): the folders of ``names`` (the manifest's listed
    files, inside the content root) that its ``cases.folders`` glob matches, sorted; none
    without one."""
    pattern = _glob(spec)
    if pattern is None:
        return ()
    match = Glob(pattern).match
    return tuple(folder for folder in folders_of(names) if match(folder))


def _rules(spec: Any) -> list[tuple[int, dict[str, Any]]]:
    rules = spec.get("rules") if isinstance(spec, dict) else None
    return [(i, r) for i, r in enumerate(rules if isinstance(rules, list) else ()) if _is(r)]


def _is(rule: Any) -> bool:
    return isinstance(rule, dict)


def _globs_case(node: Any, key: str | None = None) -> bool:
    """Whether ``node`` (a rule) puts ``{case}`` into a glob (a ``files`` string)."""
    if isinstance(node, str):
        return key == "files" and CASE in node
    if isinstance(node, dict):
        return any(_globs_case(v, k) for k, v in node.items() if k not in VALUE_KEYS)
    return isinstance(node, list) and any(_globs_case(v, key) for v in node)


def _holes(node: Any, key: str | None = None) -> Any:
    """Where ``{case}`` goes in ``node`` (a rule): ``True`` for a file-name string holding it,
    a dict from key (or list index) to the holes below it, ``None`` for nothing; found once
    per rule, so that each instance copies only the containers on the way to a hole."""
    if isinstance(node, str):
        return True if key in FILE_KEYS and CASE in node else None
    if isinstance(node, dict):
        below = {k: _holes(v, k) for k, v in node.items() if k not in VALUE_KEYS}
    elif isinstance(node, list):
        below = {i: _holes(v, key) for i, v in enumerate(node)}
    else:
        return None
    holes = {k: h for k, h in below.items() if h is not None}
    return holes or None


def _fill(node: Any, holes: Any, case: str) -> Any:
    """``node`` with ``case`` put into its ``holes``: new containers on the way to a hole, every
    other member shared."""
    if holes is True:
        return node.replace(CASE, case)
    out = dict(node) if isinstance(node, dict) else list(node)
    for k, below in holes.items():
        out[k] = _fill(node[k], below, case)
    return out


def instance(rule: dict[str, Any], case: str, holes: Any = False) -> dict[str, Any]:
    """Rule ``rule``'s assertion for ``case``: its id ``R@C``, ``{case}`` replaced in its file
    names (``holes``: the rule's :func:`_holes`, when already found)."""
    holes = _holes(rule) if holes is False else holes
    made: dict[str, Any] = dict(rule) if holes is None else _fill(rule, holes, case)
    rid = rule.get("id")
    if isinstance(rid, str):
        made["id"] = f"{rid}@{case}"
    return made


def expand(spec: Any, cases: Iterable[str]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """Every rule's instances, case by case: ``(case, rule index, assertion)``, a case's
    instances adjacent, in the rules' order."""
    rules = [(index, rule, _holes(rule)) for index, rule in _rules(spec)]
    for case in cases:
        for index, rule, holes in rules:
            yield case, index, instance(rule, case, holes)


def _judged_by_written(written: list[Any], cases: tuple[str, ...]) -> set[str]:
    """The cases a written-out assertion reads a file of."""
    from verifier.plan.spec import needs_of  # (spec reads the kinds: not at import)

    wanted = set(cases)
    out: set[str] = set()
    for need in needs_of({"assertions": written}):
        name = need.file
        cut = name.rfind("/")
        while cut > 0:
            folder = name[:cut]
            if folder in wanted:
                out.add(folder)
            cut = name.rfind("/", 0, cut)
    return out


def expanded(
    spec: dict[str, Any], names: Iterable[str], limit: int = MAX_INSTANCES
) -> dict[str, Any]:
    """``spec`` (a rule-form spec, parsed) with its rules expanded: a new object whose
    ``assertions`` are the written ones and then every instance, and whose :data:`META`
    says where each came from and what the expansion found (``names``: the manifest's
    listed files inside the content root)."""
    out = _expanded(spec, names, limit, None)
    assert out is not None  # (nothing to refuse a part)
    return out


def expanded_in_parts(
    spec: dict[str, Any],
    names: Iterable[str],
    take: Callable[[list[Any]], bool],
    limit: int = MAX_INSTANCES,
) -> dict[str, Any] | None:
    """As :func:`expanded`, but the assertions are handed to ``take`` in parts of
    :data:`~verifier.values.packed.WINDOW` as they are made (the written ones first, cut
    where :meth:`~verifier.values.packed.PackedDocument.pack` cuts the whole array), so
    that they are never all alive at once; the object returned holds ``[]`` in their
    place. ``None`` as soon as ``take`` refuses a part (it could not keep it)."""
    return _expanded(spec, names, limit, take)


def _expanded(
    spec: dict[str, Any],
    names: Iterable[str],
    limit: int,
    take: Callable[[list[Any]], bool] | None,
    judged_apart: CaseRules | None = None,
) -> dict[str, Any] | None:
    written = spec.get("assertions")
    written = written if isinstance(written, list) else []
    findings: list[list[str]] = []
    pattern = _glob(spec)
    cases = case_set(spec, names) if judged_apart is None else judged_apart.cases
    if pattern is None:
        if "rules" in spec or spec.get("everyCaseJudged") is True:
            findings.append(
                [
                    "rule.no-cases",
                    "/cases" if "cases" in spec else ("/rules" if "rules" in spec else ""),
                    "The spec has rules or everyCaseJudged but no case folders ('cases': "
                    "{'folders': GLOB}), so no case was checked",
                ]
            )
    elif not cases:
        findings.append(
            [
                "rule.no-cases",
                "/cases/folders",
                f"The case glob {json.dumps(pattern[:200])} matches no folder of the "
                "manifest's files, so no case was checked",
            ]
        )
    instances: list[Any] = [*written] if take is not None else []
    rule_of: list[int] = []
    made_count = 0
    judged: set[str] = set()
    over = False
    globbing = {index for index, rule in _rules(spec) if _globs_case(rule)}
    if judged_apart is not None:  # (no instance made: every rule for every case, in order)
        rule_of = [r.spec_index for r in judged_apart.rules] * len(cases)
        out = dict(spec)
        out["assertions"] = written
        out[META] = {"written": len(written), "ruleOf": rule_of, "findings": findings}
        return out
    for case, index, made in expand(spec, cases):
        if index in globbing and ("*" in case or "?" in case):
            findings.append(
                [
                    "rule.case-not-literal",
                    f"/rules/{index}",
                    f"The case folder {json.dumps(case[:200])} holds * or ?, which the glob "
                    "of this rule's files cannot name literally, so the rule was not checked "
                    "for it; rename the folder or write the assertion out",
                ]
            )
            continue
        if made_count >= limit:
            over = True
            break
        made_count += 1
        instances.append(made)
        rule_of.append(index)
        judged.add(case)
        if take is not None and len(instances) == WINDOW:
            if not take(instances):
                return None
            instances = []
    if take is not None and instances:
        if not take(instances):
            return None
        instances = []
    if over:
        findings.append(
            [
                "rule.too-many",
                "/rules",
                f"The rules stand for more than {limit} assertions (cases times rules); the "
                "first were made and checked, the rest not",
            ]
        )
    if spec.get("everyCaseJudged") is True and cases and not over:
        judged |= _judged_by_written(written, cases)
        for case in cases:
            if case not in judged:
                findings.append(
                    [
                        "rule.case-unjudged",
                        "/everyCaseJudged",
                        f"No rule and no assertion reads the case {case}",
                    ]
                )
    out = dict(spec)
    out["assertions"] = [] if take is not None else [*written, *instances]
    out[META] = {"written": len(written), "ruleOf": rule_of, "findings": findings}
    return out


class CaseRule(NamedTuple):
    """A rule whose every file is a file of its case: its index in the spec's ``rules``, the
    rule as written, where ``{case}`` goes in it (:func:`_holes`) and the files it reads,
    relative to the case folder."""

    spec_index: int
    rule: dict[str, Any]
    holes: Any
    files: tuple[str, ...]


class CaseRules:
    """The rules of a spec that are judged where their case is read (issue 35): every rule
    reads files of its own case only (named ``{case}/...``, no glob), so that the instances
    of a case are judged from the case's records alone, wherever they were read, and come to
    what judging them with every record would (:func:`confined` says when that holds). Sent
    to each worker once; the case folders as a set are made where it is unpickled."""

    __slots__ = ("cases", "members", "rels", "rules", "spec_path")

    def __init__(self, spec_path: str, cases: tuple[str, ...], rules: tuple[CaseRule, ...]):
        self.spec_path = spec_path
        self.cases = cases
        self.rules = rules
        self.members = frozenset(cases)
        self.rels = tuple(sorted({rel for rule in rules for rel in rule.files}))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return CaseRules, (self.spec_path, self.cases, self.rules)

    def cases_of(self, inner: str) -> list[str]:
        """The cases whose rules read the record at ``inner`` (a path inside the content
        root): a case folder ``C`` with ``inner`` equal to ``C/`` and a rule's file."""
        out = []
        for rel in self.rels:
            cut = len(inner) - len(rel) - 1
            if cut > 0 and inner.endswith(rel) and inner[cut] == "/":
                case = inner[:cut]
                if case in self.members:
                    out.append(case)
        return out

    def case_holding(self, name: str) -> str | None:
        """The case folder that holds the file ``name`` (a path in the source, inside the
        content root or below a prefix of it), the deepest one if cases nest; else ``None``.
        The key that keeps a case's files in one batch."""
        members = self.members
        cut = name.rfind("/")
        while cut > 0:
            folder = name[:cut]
            start = 0
            while True:  # the folder, or what follows each '/' of a prefix
                if folder[start:] in members:
                    return folder[start:]
                start = folder.find("/", start) + 1
                if start == 0:
                    break
            cut = name.rfind("/", 0, cut)
        return None

    def needs(self) -> list[tuple[str, str, bool]]:
        """What the rules read: ``(file relative to a case, pointer, length)`` each."""
        from verifier.assertions import kind_named  # (the kinds: not at import)

        out = []
        for rule in self.rules:
            kind = kind_named(rule.rule.get("kind"))
            assert kind is not None  # (confined() made sure)
            for need in kind.needs(rule.rule):
                out.append((need.file[len(CASE) + 1 :], need.pointer, need.length))
        return out


def _hole_strings(node: Any, holes: Any) -> Iterator[str]:
    if holes is True:
        yield node
    elif holes:
        for k, below in holes.items():
            yield from _hole_strings(node[k], below)


def confined(spec: Any, cases: tuple[str, ...], limit: int, spec_path: str) -> CaseRules | None:
    """The spec's rules as :class:`CaseRules` when each of them can be judged from its case's
    records alone; ``None`` when one cannot (then every instance is made and judged with
    every record, as a written-out assertion): no cases; more instances than ``limit``; a
    rule without a string id of its own (one holding ``@``), or whose kind is unknown or
    cannot say what it reads; a rule that reads no file, a glob, or a file not named
    ``{case}/...``, or holds ``{case}`` in a file name it does not declare; a written-out
    assertion whose id is an instance's."""
    from verifier.assertions import kind_named  # (the kinds: not at import)

    rules = _rules(spec)
    if not cases or not rules or len(cases) * len(rules) > limit:
        return None
    ids: set[str] = set()
    out = []
    for index, rule in rules:
        rid, kind = rule.get("id"), kind_named(rule.get("kind"))
        if not isinstance(rid, str) or "@" in rid or rid in ids or kind is None:
            return None
        ids.add(rid)
        if _globs_case(rule):
            return None
        try:
            needs = list(kind.needs(rule))
        except Exception:  # (a kind's bug: the general path reports it)
            return None
        files: dict[str, None] = {}
        for need in needs:
            file = need.file
            if need.glob or not isinstance(file, str) or not file.startswith(CASE + "/"):
                return None
            rel = file[len(CASE) + 1 :]
            if not rel or CASE in rel:
                return None
            files[rel] = None
        holes = _holes(rule)
        if not files or any(s[len(CASE) + 1 :] not in files for s in _hole_strings(rule, holes)):
            return None
        out.append(CaseRule(index, rule, holes, tuple(files)))
    written = spec.get("assertions")
    members = frozenset(cases)
    for item in written if isinstance(written, list) else ():
        wid = item.get("id") if isinstance(item, dict) else None
        if isinstance(wid, str) and "@" in wid:
            rid, case = wid.split("@", 1)
            if rid in ids and case in members:
                return None
    return CaseRules(spec_path, cases, tuple(out))


def planned(
    spec: dict[str, Any], names: Iterable[str], limit: int, spec_path: str
) -> tuple[dict[str, Any], CaseRules] | None:
    """``spec`` (a rule-form spec, parsed) as :func:`expanded` makes it but without its
    instances (its ``assertions`` the written ones; :data:`META` says where each instance
    would be), and its rules, when they are judged where their cases are read
    (:func:`confined`); ``None`` when they are not."""
    cases = case_set(spec, names)
    rules = confined(spec, cases, limit, spec_path)
    if rules is None:
        return None
    out = _expanded(spec, (), limit, None, rules)
    assert out is not None
    return out, rules


def _meta(spec: Any) -> dict[str, Any] | None:
    meta = spec.get(META) if isinstance(spec, dict) else None
    return meta if isinstance(meta, dict) else None


def entry_pointer(spec: Any, index: int) -> str:
    """Where in the spec's text the assertion at ``index`` of the expanded spec is written:
    ``/assertions/N`` for a written one, ``/rules/R`` for an instance of rule ``R``."""
    meta = _meta(spec)
    if meta is not None:
        written, rule_of = meta.get("written"), meta.get("ruleOf")
        if isinstance(written, int) and isinstance(rule_of, list) and index >= written:
            at = index - written
            if at < len(rule_of) and isinstance(rule_of[at], int):
                return f"/rules/{rule_of[at]}"
    return f"/assertions/{index}"


def findings_of(spec: Any) -> list[tuple[str, str, str]]:
    """What the expansion found: ``(code, pointer into the spec, message)`` each."""
    meta = _meta(spec)
    found = meta.get("findings") if meta is not None else None
    return [
        (f[0], f[1], f[2])
        for f in (found if isinstance(found, list) else ())
        if isinstance(f, list) and len(f) == 3 and all(isinstance(x, str) for x in f)
    ]


__all__ = [
    "CASE",
    "META",
    "CaseRule",
    "CaseRules",
    "case_set",
    "confined",
    "entry_pointer",
    "expand",
    "expanded",
    "expanded_in_parts",
    "findings_of",
    "folders_of",
    "has_rules",
    "instance",
    "planned",
]
