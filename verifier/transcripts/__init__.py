"""Tool-call transcripts: one common model, one adapter per message shape, one registry.

The pairing rules live once, in :mod:`verifier.transcripts.pairing`; each module below only
maps its format onto that model and writes its own form of the explicit interruption result.
The registry's order is the order ``--shape`` lists and detection falls back through.
"""

from __future__ import annotations

from typing import Any

from verifier.registry import Plugin, Registry
from verifier.transcripts.interface import Shape, ShapeError

#: name -> adapter, each imported when first used (the CLI lists the names at start-up)
SHAPES: Registry[Shape] = Registry(
    "shape",
    Plugin("openai-chat", "verifier.transcripts.openai_chat:SHAPE"),
    Plugin("openai-responses", "verifier.transcripts.openai_responses:SHAPE"),
    Plugin("anthropic", "verifier.transcripts.anthropic:SHAPE"),
    Plugin("gemini", "verifier.transcripts.gemini:SHAPE"),
    Plugin("pydantic-ai", "verifier.transcripts.pydantic_ai:SHAPE"),
    Plugin("pi", "verifier.transcripts.pi:SHAPE"),
)


AMBIGUOUS = "transcript.ambiguous-shape"


class UndetectableShape(ValueError):
    """No shape, or more than one, fits the messages: the caller must name one. ``code`` is
    the finding it is: :data:`AMBIGUOUS` (several shapes' features) or
    ``transcript.malformed`` (no shape takes the messages)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def featured(messages: list[Any]) -> list[Shape]:
    """Every shape whose features the messages show (detection asks each one)."""
    return [shape for shape in SHAPES.values() if shape.features(messages)]


def detect(messages: list[Any]) -> tuple[Shape, bool]:
    """The shape of ``messages`` and whether it was told by its features (``False``: assumed,
    because nothing in the history tells the shapes apart; then no shape finds a call).

    Raises :class:`UndetectableShape`.
    """
    hits = featured(messages)
    if len(hits) == 1:
        return hits[0], True
    if hits:
        names = " and ".join(shape.name for shape in hits)
        raise UndetectableShape(
            f"the messages look like {names}, and no shape is guessed; name one with --shape",
            AMBIGUOUS,
        )
    # Nothing only one shape has: a plain role/content history reads the same in every
    # shape that takes it (no calls, no results), so the first that takes it is assumed.
    plain = all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages)
    for shape in SHAPES.values() if plain else ():
        try:
            entries = shape.entries(messages)
        except ShapeError:
            continue
        if not any(e.calls or e.results for e in entries):
            return shape, False
    raise UndetectableShape(
        "the messages fit no known shape (" + ", ".join(SHAPES) + "); name one with --shape",
        "transcript.malformed",
    )


__all__ = [
    "AMBIGUOUS",
    "SHAPES",
    "Shape",
    "ShapeError",
    "UndetectableShape",
    "detect",
    "featured",
]
