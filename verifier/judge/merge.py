"""Integrity over several manifests (a bag's payload and tag manifests): one outcome with
every finding, one entry per file, and a note on the algorithms checked."""

from __future__ import annotations

from dataclasses import replace

from verifier.judge.integrity import IntegrityOutcome, algorithm_label
from verifier.report import FileEntry
from verifier.sources import Layout

WEAK_ALGORITHMS = frozenset({"md5", "sha1"})


def _rank(entry: FileEntry) -> int:
    """Which of two entries for one file the report keeps: a listed one over an unlisted one,
    and a problem over "ok" (a file one manifest's digest matches and another's does not)."""
    if not entry.listed:
        return 0
    return 1 if entry.status == "ok" else 2


def _merge(into: IntegrityOutcome, other: IntegrityOutcome, manifest: str) -> None:
    """One integrity outcome for several manifests: every finding (each of ``other``'s
    naming ``manifest``, the one it is against), one entry per file, and counts over files
    (a file two manifests list is one file)."""
    into.stage.findings.extend(
        f if f.manifest is not None else replace(f, manifest=manifest) for f in other.stage.findings
    )
    at = {f.path: i for i, f in enumerate(into.files)}
    for entry in other.files:
        i = at.get(entry.path)
        if i is None:
            at[entry.path] = len(into.files)
            into.files.append(entry)
        elif _rank(entry) > _rank(into.files[i]):
            into.files[i] = entry
    listed = [f for f in into.files if f.listed]
    into.stage.counts.update(
        listed=len(listed),
        ok=sum(1 for f in listed if f.status == "ok"),
        bytes=sum(f.size or 0 for f in listed),
    )


def _all_listed(outcome: IntegrityOutcome) -> None:
    """BagIt before 1.0: a payload file listed in any payload manifest is listed."""
    listed = {f.path for f in outcome.files if f.listed}
    outcome.stage.findings[:] = [
        f
        for f in outcome.stage.findings
        if not (f.code == "manifest.unlisted" and f.path in listed)
    ]


def _algorithms_note(layout: Layout, checked: list[str]) -> str:
    """Which manifests were checked with which algorithm, and a word on weak ones."""
    named = ", ".join(f"{m} ({algorithm_label(layout.algorithm(m))})" for m in checked)
    note = f"Checked {len(checked)} manifest{'s' if len(checked) != 1 else ''}: {named}."
    payload = {layout.algorithm(m) for m in (layout.manifest, *layout.payload_manifests)}
    if payload and payload <= WEAK_ALGORITHMS:
        weak = " and ".join(algorithm_label(a) for a in sorted(payload))
        verb = "is" if len(payload) == 1 else "are"
        note += (
            f" The payload's integrity rests on {weak} alone, which {verb} broken for "
            "collisions: whoever prepared the bag could have made two files with one digest."
        )
    return note
