"""What the judge needs to know of the source beyond its files' facts, taken once the files
are read: the judge step is given this and never the source, so it cannot read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from verifier.findings import Finding
from verifier.plan.plan import Plan
from verifier.report import FileEntry
from verifier.sources.capabilities import LayoutRules, OwnLayout, WalkErrors
from verifier.sources.interface import Source


@dataclass(frozen=True)
class SourceFacts:
    """The source as the judge sees it. ``findings``: the source's own (``source.*``, a git
    blob that does not hash to its id), each with a path (the source's description where it
    named none); ``complete``: it was read to its end; ``walk_errors``: why a folder of a
    manifest's scope could not be listed, where the source knows; ``rules``: a layout's own
    rules (a bag's), which read nothing when applied; ``every_manifest``: every file of the
    scope must be in every payload manifest (BagIt 1.0; before it, in at least one)."""

    description: str
    complete: bool = True
    findings: tuple[Finding, ...] = ()
    walk_errors: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    rules: LayoutRules | None = None
    every_manifest: bool = True

    @property
    def explain_missing(self) -> Callable[[str, int], Finding | None] | None:
        return self.rules.explain_missing if self.rules is not None else None

    def check_layout(self, files: list[FileEntry]) -> list[Finding]:
        return self.rules.check(files) if self.rules is not None else []


def layout_facts(source: Source, plan: Plan) -> SourceFacts:
    """What the judge needs of the source once the scope is walked (the layout's rules, why
    folders could not be listed), before the source's findings are complete."""
    own = source.capability(OwnLayout)
    listing = source.capability(WalkErrors)
    errors: dict[str, str] = {}
    if listing is not None:
        for manifest in plan.manifests:
            for name in manifest.unreadable:
                why = listing.walk_error(name)
                if why:
                    errors[name] = why
    return SourceFacts(
        source.description,
        walk_errors=MappingProxyType(errors),
        rules=own.layout_rules(plan.preread) if own is not None else None,
        every_manifest=own.payload_in_every_manifest() if own is not None else True,
    )


def read_facts(source: Source, early: SourceFacts) -> SourceFacts:
    """``early`` with what is complete only once every file is read: the source's findings
    (a git blob checked as it was read) and whether it was read to its end."""
    where = source.description
    found = tuple(f if f.path else replace(f, path=where) for f in source.findings())
    return replace(early, complete=source.complete(), findings=found)
