"""Did-you-mean, from the standard library's :mod:`difflib`: the close names for a word that
named nothing (an option's code, an assertion kind, a file, a pointer, a schema id)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_matches(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` of ``choices`` close to ``word`` (best first; exact-case ties kept in the
    order given). Case-insensitive: ``Manifest.Unlisted`` finds ``manifest.unlisted``."""
    options = sorted(set(choices))
    folded: dict[str, str] = {}
    for choice in options:
        folded.setdefault(choice.lower(), choice)
    found = difflib.get_close_matches(word.lower(), list(folded), n=n, cutoff=0.6)
    return [folded[f] for f in found]


def did_you_mean(word: str, choices: Iterable[str], quote: str = "'", n: int = 3) -> str:
    """``"; did you mean 'a' or 'b'?"``, or ``""`` when nothing is close."""
    found = close_matches(word, choices, n)
    if not found:
        return ""
    named = [f"{quote}{f}{quote}" for f in found]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]
    return f"; did you mean {listed}?"
