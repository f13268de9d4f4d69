"""``--ignore`` and ``--select``: finding codes, or a code's group (``manifest`` for every
``manifest.*`` code), comma-separated and repeatable, checked against the codes table before
anything is read. An unknown code is a :class:`~verifier.errors.UsageError` with a
did-you-mean."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from verifier.errors import UsageError
from verifier.findings import CODES, Stage
from verifier.suggest import did_you_mean

#: the codes a check can report (coverage's own codes are not a check's)
CHECK_CODES = tuple(code for code, (stage, _) in CODES.items() if stage is not Stage.COVERAGE)


def groups(codes: Iterable[str] = CHECK_CODES) -> tuple[str, ...]:
    return tuple(sorted({code.partition(".")[0] for code in codes}))


def parse_codes(
    values: Iterable[str], option: str, known: Iterable[str] = CHECK_CODES
) -> frozenset[str]:
    """The codes ``values`` name (``"a.b,c"`` items split at commas; a group stands for its
    codes). Raises :class:`UsageError` for a value that names none."""
    codes = tuple(known)
    names = groups(codes)
    out: set[str] = set()
    for value in values:
        for item in value.split(","):
            word = item.strip()
            if not word:
                continue
            if word in codes:
                out.add(word)
            elif word in names:
                out.update(c for c in codes if c.partition(".")[0] == word)
            else:
                hint = did_you_mean(word, (*codes, *names))
                shown = word if word.isprintable() and len(word) <= 60 else repr(word[:60])
                raise UsageError(
                    f"{option} {shown}: not a finding code{hint or ' (see the README codes table)'}"
                )
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which codes count: all of ``select`` (every code when ``None``) but ``ignore``."""

    ignore: frozenset[str] = frozenset()
    select: frozenset[str] | None = None

    def why_not(self, code: str) -> str | None:
        """``"ignored"`` or ``"not-selected"`` for a code that does not count, else ``None``."""
        if code in self.ignore:
            return "ignored"
        if self.select is not None and code not in self.select:
            return "not-selected"
        return None

    @property
    def active(self) -> bool:
        return bool(self.ignore) or self.select is not None
