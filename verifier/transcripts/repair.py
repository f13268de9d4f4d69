"""``transcript repair`` as a library: close every dangling call with an explicit result.

The plan comes from one walk (:func:`verifier.transcripts.pairing.pair`), the same the checker
makes:

* every dangling call gets one synthetic result, ``not run: the turn was interrupted``, at
  the end of its answer window: after the window's real results and before whatever closed
  the window (new user text, the next assistant turn), or at the end of the history. It
  claims nothing about the outside world: only that no result was recorded;
* repair only adds: every message, part and result it was given comes out unchanged and in
  its order (no call is deleted, no result is left out or moved, unknown members are kept);
  a result that answers no open call (an orphan, a duplicate, a misplaced result) is kept and
  stays a finding of the output (``not repaired``), since moving or deleting it would mean
  guessing what it was for;
* it is deterministic (no clock, no random ids) and idempotent: the output of a repair has
  nothing left to repair, and repairing it again returns its bytes unchanged.

Reused ids, results naming another tool than their call, interruption records without the
marker and results that answer nothing are not repaired (that would mean changing or
deleting entries); they remain findings of the output, and repair exits 1 for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from verifier.findings import Finding, Severity
from verifier.transcripts.check import CannotRun, Malformed, load, shape_named
from verifier.transcripts.containers import CONTAINERS
from verifier.transcripts.rewrite import Added, repaired_messages


@dataclass(slots=True)
class RepairResult:
    path: str
    shape: str
    shape_source: str
    output: bytes
    added: list[Added] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)  # a container: what was repaired, what not

    @property
    def changed(self) -> bool:
        return bool(self.added)

    def summary(self) -> list[str]:
        """What the repair changed, one line each (the CLI prints these on stderr)."""
        lines = [f"{self.path} ({self.shape}): {len(self.added)} synthetic result(s) added"]
        lines.extend(f"  {line}" for line in self.scope)
        for a in self.added:
            lines.append(
                f"  added: result for call {a.call.id} ({a.call.name}) from message "
                f"{a.call.index}, {a.where}"
            )
        for f in self.remaining:
            lines.append(f"  not repaired: {f.code} ({f.severity.value}): {f.message}")
        return lines

    def fails(self, threshold: Severity = Severity.ERROR) -> bool:
        """Whether a finding left in the output reaches ``threshold`` (the exit code)."""
        return any(f.severity.reaches(threshold) for f in self.remaining)


def repair_bytes(
    data: bytes, path: str, shape: str | None = None, leaf: bool = False
) -> RepairResult:
    """Repair one transcript. Raises :class:`CannotRun` if it cannot be read as one. A
    harness's container is repaired on the paths the run continued on (a tree: the path to
    the active leaf), never on an abandoned branch; the summary says which."""
    from verifier.transcripts.containers.run import container_of

    if shape is not None and shape not in CONTAINERS:
        shape_named(shape)
    found = container_of(data, path, shape)
    if found is not None:
        return _repair_container(found, data, path, leaf)
    try:
        loaded = load(data, path, shape)
    except Malformed as exc:
        raise CannotRun(f"{path}: {exc}") from None
    pairing = loaded.pairing
    added: list[Added] = []
    output = data
    if pairing.dangling:
        messages, added = repaired_messages(loaded.shape, loaded.document.messages, pairing)
        output = loaded.document.dump(messages)
    again = load(output, path, loaded.shape.name)
    return RepairResult(
        path,
        loaded.shape.name,
        loaded.shape_source,
        output,
        added,
        again.findings(),
    )


def _repair_container(found: Any, data: bytes, path: str, leaf: bool) -> RepairResult:
    from verifier.transcripts.containers.interface import ContainerError
    from verifier.transcripts.containers.run import check_container, container_of

    got = check_container(found, path, leaf)
    reader = found.reader
    if reader is None or not got.checked:
        why = got.findings[0].message if got.findings else "nothing to repair"
        raise CannotRun(f"{path}: {why}")
    if any(
        f.code in ("transcript.malformed", "transcript.unreadable-member") for f in got.findings
    ):
        bad = next(
            f
            for f in got.findings
            if f.code in ("transcript.malformed", "transcript.unreadable-member")
        )
        raise CannotRun(f"{path}: {bad.message}")
    plan = []
    added: list[Added] = []
    scope: list[str] = []
    for c in got.checked:
        t, pairing = c.transcript, c.pairing
        if not t.active:
            scope.append(
                f"not repaired: {t.name} (an abandoned branch; the run did not continue there)"
            )
            continue
        scope.append(f"repaired: {t.name}")
        if pairing.dangling:
            plan.append((t, pairing))
            _, made = repaired_messages(t.shape, t.messages, pairing)
            closed = {call: at for call, at in pairing.dangling}
            for a in made:
                where = a.where
                if reader.name == "atif":  # into the call's own step
                    where = f"into the results of step {a.call.index} (its call's)"
                elif reader.lines and t.shape.part_layout:  # Claude Code: a line of its own
                    at = closed[a.call].index
                    where = (
                        f"new line before message {at}"
                        if at < len(t.messages)
                        else "new line at the end of the path"
                    )
                added.append(Added(a.call, f"{t.name}: {where}"))
    output = data
    if plan:
        try:
            output = reader.write(found.parsed, plan)
        except ContainerError as exc:
            raise CannotRun(f"{path}: {exc}") from None
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            # the checker read it, but an entry the writer must relink is not the form the
            # format defines (an id that is not a string, a line without its message, ...)
            raise CannotRun(
                f"{path}: not repaired: the {reader.title} file has entries repair cannot "
                f"rewrite safely ({type(exc).__name__}); check it for transcript.malformed"
            ) from None
    again = check_container(container_of(output, path, reader.name) or found, path, leaf)
    remaining = [replace(f, path="") for f in again.findings]
    return RepairResult(path, reader.name, found.source, output, added, remaining, scope)


__all__ = ["Added", "CannotRun", "RepairResult", "repair_bytes", "repaired_messages"]
