"""What hints compare a mismatched or missing file against: the other files of the source
(:func:`index_names`, inspected as extra tasks), and, for a source with history (git), the
newest older commit at which each such path had the listed bytes.

A read of the source like any inspection, made here for the judge (hints never read): only
when hints are on and a listed file does not match, for those files alone, in the order the
manifest's findings name them (a source bounds how many histories it walks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from verifier.sources.capabilities import History
from verifier.sources.interface import Kind, Source


def older_versions(
    source: Source, problems: Iterable[str], wanted: Mapping[str, str]
) -> dict[str, str]:
    """``{path: where}`` for each of ``problems`` (listed paths that are missing or do not
    match their listed SHA-256 ``wanted[path]``) whose listed bytes the source's history
    holds (``where`` names the commit); paths it does not know are left out."""
    out: dict[str, str] = {}
    history = source.capability(History)
    if history is None:  # no history: no hint (the finding stands as it is)
        return out
    for name in problems:
        listed = wanted.get(name)
        if listed is None:
            continue
        older = history.older_version(name, listed)
        if older:
            out[name] = older
    return out


#: at most this many files are inspected for hints (:func:`index_names`)
MAX_INDEX_FILES = 20_000


def index_names(source: Source) -> list[str]:
    """The files hints compare against (extra tasks of the plan, inspected before the judge
    runs): every regular file of the source outside ``.git/``, in walk order, at most
    :data:`MAX_INDEX_FILES`."""
    names: list[str] = []
    for name, kind in source.walk(""):
        if kind is Kind.FILE and name.split("/", 1)[0] != ".git":
            names.append(name)
            if len(names) >= MAX_INDEX_FILES:
                break
    return names
