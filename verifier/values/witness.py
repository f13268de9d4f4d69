"""What checking a witness's audit chain needs besides the log's bytes: the witness's keys and
the checkpoints kept outside the archive (``--witness-key``, ``--checkpoint``). Read by the
command layer (:mod:`verifier.witness.settings`), carried to every worker with the schema
bundle, read by :mod:`verifier.witness`."""

from __future__ import annotations

from dataclasses import dataclass

#: the signature algorithms an AI Agent Action v0.1 gateway signs with (the ``attestation``)
ALGORITHMS = ("ed25519", "hmac-sha256")


@dataclass(frozen=True, slots=True)
class WitnessKey:
    """A key to check the records' ``attestation`` with: an Ed25519 public key (32 bytes) or
    an HMAC-SHA256 secret; ``source``: the file it was read from, for messages."""

    algorithm: str  # one of ALGORITHMS
    key: bytes
    source: str


@dataclass(frozen=True, slots=True)
class ExternalCheckpoint:
    """A checkpoint kept where the gateway cannot write (``--checkpoint``): the chain head,
    the checkpoint sequence and the record count at that checkpoint; ``file``: the log it
    belongs to (a path inside the content root), ``None`` for every log the spec names."""

    previous_hash: str
    sequence: int
    record_count: int
    file: str | None
    source: str  # where it was read: ``FILE`` or ``FILE#/N``

    def applies_to(self, path: str) -> bool:
        return self.file is None or self.file == path


@dataclass(frozen=True, slots=True)
class WitnessSettings:
    keys: tuple[WitnessKey, ...] = ()
    checkpoints: tuple[ExternalCheckpoint, ...] = ()


__all__ = ["ALGORITHMS", "ExternalCheckpoint", "WitnessKey", "WitnessSettings"]


class Facts(dict):  # type: ignore[type-arg]
    """What the verifier itself read out of a file that is not a JSON record (a witness log, a
    transcript container), as the assertions read it: a type no parsed JSON record has, so an
    assertion that needs such facts never takes a record written to look like them."""


class WitnessedFacts(Facts):
    """A witness log's facts (:func:`verifier.witness.chain.read_chain`)."""


class TranscriptFacts(Facts):
    """A transcript container's facts (:func:`verifier.transcripts.archive.container_facts`)."""
