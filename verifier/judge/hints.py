"""Why a listed file does not match: hints an auditor can act on, beside the finding.

A hint never turns a finding into a pass; it says what the bytes that *are* there have to do
with the listed digest:

* the file matches once its line endings are converted (hashed on a Windows checkout, where
  git writes CRLF, or the reverse);
* the listed digest is this path at an older commit (git sources: a stale manifest line);
* the listed digest is another file's in the snapshot (a moved or renamed file), or a missing
  file's bytes exist under another name;
* the missing name exists in another Unicode normalisation form or letter case;
* another base folder would make the manifest's names match (``--base``).

To find other files with the listed bytes the rest of the source is hashed, once, only when a
listed file is missing or mismatched (a bounded number of files). Hints never
read: the pipeline has the files they compare against inspected
(:func:`verifier.inspect.history.index_names`: extra tasks of the plan), looks up the older
versions (:func:`verifier.inspect.history.older_versions`), and :class:`Hinter` works from
those facts and the plan's kinds.
"""

from __future__ import annotations

from collections.abc import Mapping

from verifier.inspect.digest import Digest
from verifier.sources.interface import Kind
from verifier.sources.safety import collision_key

MAX_NAMED = 3  # other paths named in one hint


def _join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name


def _names(paths: list[str]) -> str:
    shown = ", ".join(paths[:MAX_NAMED])
    return shown + (f" and {len(paths) - MAX_NAMED} more" if len(paths) > MAX_NAMED else "")


class Hinter:
    """Hints for the mismatched and missing files of one manifest."""

    def __init__(
        self,
        kinds: Mapping[str, Kind],
        complete: bool,
        digests: Mapping[str, Digest],
        names: list[str],
        wanted: dict[str, str],
        relative: Mapping[str, str],
        base: str,
        manifest_rel: str | None,
        older: Mapping[str, str] | None = None,
    ) -> None:
        self.kinds = kinds  # what each listed name is (the plan's walk)
        self.complete = complete  # the source was read to its end
        self.older = older or {}  # where a path had its listed bytes (inspect/history.py)
        self.digests = digests  # every file inspected, the index's included
        self.names = names
        self.wanted = wanted
        self.relative = relative
        self.base = base
        self.manifest_rel = manifest_rel
        self._by_digest: dict[str, list[str]] | None = None
        self._by_key: dict[str, list[str]] = {}
        self._by_last: dict[str, list[str]] = {}
        self._base: tuple[str, int] | bool | None = False  # False: not computed yet

    def _index(self) -> dict[str, list[str]]:
        if self._by_digest is None:
            self._by_digest = {}
            for name in sorted(self.digests):
                self._by_digest.setdefault(self.digests[name].sha256, []).append(name)
            for name in self.names:
                self._by_key.setdefault(collision_key(name), []).append(name)
                self._by_last.setdefault(name.rsplit("/", 1)[-1], []).append(name)
        return self._by_digest

    def _score(self, base: str) -> int:
        digests = self.digests
        return sum(
            1
            for path, rel in self.relative.items()
            if (d := digests.get(_join(base, rel))) is not None and d.sha256 == self.wanted[path]
        )

    def suggested_base(self) -> tuple[str, int] | None:
        """A base folder under which more listed names match than under the one used."""
        if self._base is not False:
            return self._base if isinstance(self._base, tuple) else None
        self._index()
        candidates: set[str] = set()
        for path, rel in self.relative.items():
            if self.kinds.get(path) is not Kind.MISSING:
                continue
            for other in self._by_last.get(rel.rsplit("/", 1)[-1], []):
                if other == rel:
                    candidates.add("")
                elif other.endswith("/" + rel):
                    candidates.add(other[: -len(rel) - 1])
        if self.manifest_rel is not None:
            candidates.add(self.manifest_rel.rpartition("/")[0])
        candidates.discard(self.base)
        best: tuple[str, int] | None = None
        current = self._score(self.base)
        for candidate in sorted(candidates):
            score = self._score(candidate)
            if score > current and (best is None or score > best[1]):
                best = (candidate, score)
        self._base = best
        return best

    def base_note(self) -> str | None:
        if not any(self.kinds.get(p) is Kind.MISSING for p in self.wanted):
            return None
        best = self.suggested_base()
        if best is None:
            return None
        base, score = best
        return (
            f"The manifest's names match with base folder {base or '.'!r} (--base "
            f"{base or '.'}): {score} of {len(self.wanted)} listed files."
        )

    def hint(self, name: str) -> str | None:
        listed = self.wanted[name]
        parts: list[str] = []
        by_digest = self._index()
        got = self.digests.get(name)
        if got is not None:  # a mismatch
            if got.crlf == listed:
                parts.append(
                    "The file matches once its LF line endings are converted to CRLF: it was "
                    "probably hashed on a Windows checkout."
                )
            elif got.lf == listed:
                parts.append(
                    "The file matches once its CRLF line endings are converted to LF: it was "
                    "probably hashed after its line endings were converted."
                )
            older = self.older.get(name)
            if older:
                parts.append(f"The listed digest is this file as of {older}: a stale line.")
            others = [p for p in by_digest.get(listed, []) if p != name]
            if others:
                parts.append(f"The listed digest is that of {_names(others)}: moved or renamed?")
        else:  # missing
            others = [p for p in by_digest.get(listed, []) if p != name]
            if others:
                parts.append(f"The same bytes are at {_names(others)}.")
            variants = [p for p in self._by_key.get(collision_key(name), []) if p != name]
            if variants:
                parts.append(
                    f"The source holds {_names(variants)}: the same name in another Unicode "
                    "normalisation form or letter case."
                )
            older = self.older.get(name)
            if older:
                parts.append(f"This path had the listed bytes as of {older}.")
            best = self.suggested_base()
            if best is not None:
                base, score = best
                parts.append(
                    f"With --base {base or '.'}, {score} of {len(self.wanted)} listed files match."
                )
            if not self.complete:
                parts.append("The source was not read to the end (see its source.* finding).")
        return " ".join(parts) or None
