"""The older versions hints compare a mismatched or missing file against: for a source with
history (git), the newest older commit at which each such path had the listed bytes.

A read of the source like any inspection, made here for the judge (hints never read): only
when hints are on and a listed file does not match, for those files alone, in the order the
manifest's findings name them (a source bounds how many histories it walks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from verifier.sources.capabilities import History
from verifier.sources.interface import Source


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
