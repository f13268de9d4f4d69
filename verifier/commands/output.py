"""Where rendered reports go: ``--format``/``--output`` pairs, several in one run.

Pairing is unmistakable, never by counting:

* ``--output FORMAT=PATH`` names its format itself (``--output sarif=report.sarif``);
* a plain ``--output PATH`` belongs to the ``--format`` given just before it, and must follow
  it directly (``--format junit --output junit.xml``);
* a ``--format`` without an ``--output``, or with ``--output -``, goes to standard output;
  one at most may (``-`` is standard output for every command's ``--output``:
  :func:`is_stdout`).

Anything else (an ``--output PATH`` with no ``--format`` right before it, two formats left for
standard output, two outputs to one file, ``FORMAT=`` without a path) is refused with exit 2
and one line, before anything is checked or written. A path that really starts with a format
name and ``=`` can be written ``./json=x``. Files are written whole (via a temporary file and a
rename, :mod:`verifier.atomicwrite`), never partially.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typer.core import TyperCommand

from verifier.atomicwrite import chunks, write_atomic
from verifier.errors import UsageError

if TYPE_CHECKING:
    from verifier.views.interface import Registry

ORDER_KEY = "verifier.option-order"

AUTO = "auto"  # the choice every command adds to its registry's: rich on a terminal, else text

Token = tuple[str, str]  # ("format" | "output", the value as given)

STDOUT = "-"  # an output path meaning standard output, for every command


def is_stdout(path: str | os.PathLike[str] | None) -> bool:
    """Whether an ``--output`` (or ``--write-baseline``) value means standard output: none
    given, or ``-`` (a file really named ``-`` is written ``./-``)."""
    return path is None or os.fspath(path) == STDOUT


class OrderedOptionsCommand(TyperCommand):
    """A command that records the order its options were given in (click keeps each option's
    values in order, but not how two options interleave), in ``ctx.meta[ORDER_KEY]``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            _, _, order = self.make_parser(ctx).parse_args(args=list(args))
        except Exception:  # the real parse below reports it, as click always does
            order = []
        ctx.meta[ORDER_KEY] = [param.name for param in order]
        result: list[str] = super().parse_args(ctx, args)
        return result


def format_choices(name: str, registry: Registry[Any]) -> type[StrEnum]:
    """A command's ``--format`` choices as the enum typer turns into a choice option: ``auto``,
    then every name ``registry`` holds, in its order (no renderer is imported)."""
    functional: Any = StrEnum  # the functional API: mypy types only literal member lists
    choices: type[StrEnum] = functional(
        name, [(choice.upper(), choice) for choice in registry.choices(AUTO)]
    )
    return choices


def format_help(registry: Registry[Any], more: str = "") -> str:
    """The ``--format`` help: ``auto (rich on a terminal, text otherwise), text or json.``"""
    return f"{AUTO} (rich on a terminal, text otherwise), {registry.listing()}.{more}"


def tokens(
    order: Sequence[str] | None,
    formats: Sequence[str],
    outputs: Sequence[str],
    format_param: str = "fmt",
    output_param: str = "output",
) -> list[Token]:
    """The ``--format`` and ``--output`` values interleaved as they were given. Without a
    recorded order (a call from Python), each format is followed by its output, if any."""
    if order is None:
        out: list[Token] = []
        for i, fmt in enumerate(formats):
            out.append(("format", fmt))
            if i < len(outputs):
                out.append(("output", outputs[i]))
        out.extend(("output", o) for o in outputs[len(formats) :])
        return out
    fmts, outs = iter(formats), iter(outputs)
    out = []
    for name in order:
        if name == format_param:
            out.append(("format", next(fmts)))
        elif name == output_param:
            out.append(("output", next(outs)))
    return out


def plan(
    given: Iterable[Token], known: Iterable[str], default: str = "auto"
) -> list[tuple[str, Path | None]]:
    """Pair formats with outputs (see the module's rules); raises :class:`UsageError` when a
    pairing is not unmistakable. With neither option, ``default`` goes to standard output."""
    names = {k.lower() for k in known}
    pairs: list[tuple[str, Path | None]] = []
    previous: Token | None = None
    for kind, value in given:
        if kind == "format":
            pairs.append((value, None))
        else:
            fmt, sep, path = value.partition("=")
            if sep and fmt.lower() in names:
                if not path:
                    raise UsageError(f"--output {value} names no file after '='")
                pairs.append((fmt.lower(), None if is_stdout(path) else Path(path)))
            elif previous is None or previous[0] != "format":
                after = "" if previous is None else f" (it follows --output {previous[1]})"
                raise UsageError(
                    f"--output {value} has no --format just before it{after}; write "
                    f"--format FORMAT --output {value}, or --output FORMAT={value}"
                )
            else:
                pairs[-1] = (pairs[-1][0], None if is_stdout(value) else Path(value))
        previous = (kind, value)
    if not pairs:
        pairs.append((default, None))
    to_stdout = [fmt for fmt, target in pairs if target is None]
    if len(to_stdout) > 1:
        raise UsageError(
            f"--format {' and --format '.join(to_stdout)} would all go to standard output; "
            "give all but one an --output (--format FORMAT --output PATH)"
        )
    seen: dict[str, str] = {}
    for fmt, target in pairs:
        if target is None:
            continue
        key = os.path.normpath(os.fspath(target))
        if key in seen:
            raise UsageError(f"--output {target} is given for both {seen[key]} and {fmt}")
        seen[key] = fmt
    return pairs


def write(path: Path | None, text: str | Iterable[str]) -> None:
    """``text`` (or a text's parts, as they are made) to the file ``path`` (whole, see
    :func:`write_atomic`) or to standard output, encoded a piece at a time: a large report
    is not held a second time as bytes. ``-`` is standard output (:func:`is_stdout`)."""
    if path is None or is_stdout(path):
        for part in (text,) if isinstance(text, str) else text:
            for chunk in chunks(part):
                sys.stdout.write(chunk)
        return
    target = os.fspath(path)
    try:
        write_atomic(target, text)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
