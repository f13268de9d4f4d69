"""``--witness-key`` and ``--checkpoint`` read into :class:`WitnessSettings` (a file that cannot
be used is a :class:`~verifier.errors.UsageError`: the run cannot answer what it was asked).

A key is ``[ALGORITHM:]FILE``: ``ed25519`` (the default) takes the gateway's public key as its
32 raw bytes (the reference gateway's ``gateway.pub``), as 64 hex digits, or as a PEM
``PUBLIC KEY``; ``hmac-sha256`` takes the shared secret as hex digits (``key.hex``). A
checkpoint file holds one checkpoint or a list of them, each ``{"previousHash": HEX,
"sequence": N, "recordCount": N}`` as the gateway's checkpoint record has them, and
optionally ``"file"``: the log it belongs to, a path inside the content root (without it, the
checkpoint is looked for in every witness log the spec names)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from verifier.errors import UsageError
from verifier.json.parse import loads_strict
from verifier.values.witness import ALGORITHMS, ExternalCheckpoint, WitnessKey, WitnessSettings

MAX_FILE = 1 << 20  # a key or a checkpoint file is small; a larger one is refused unread
_SAFE = 2**53


def _read(path: str, what: str) -> bytes:
    if not os.path.isfile(path):  # (before opening: a FIFO would block the open)
        raise UsageError(f"{what} {path}: not a regular file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE:
        raise UsageError(f"{what} {path}: larger than {MAX_FILE} bytes")
    return data


def _hex(text: bytes) -> bytes | None:
    try:
        stripped = text.decode("ascii").strip()
        return bytes.fromhex(stripped) if stripped and " " not in stripped else None
    except (UnicodeDecodeError, ValueError):
        return None


def read_key(given: str) -> WitnessKey:
    """One ``--witness-key`` value."""
    algorithm, sep, path = given.partition(":")
    if not sep or algorithm not in ALGORITHMS:
        algorithm, path = "ed25519", given
    data = _read(path, "--witness-key")
    if algorithm == "hmac-sha256":
        secret = _hex(data)
        if not secret:
            raise UsageError(f"--witness-key {given}: an HMAC key file holds the key as hex digits")
        return WitnessKey(algorithm, secret, path)
    # (imported here, for a key given: the library costs every process about 8 MB)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    raw = data if len(data) == 32 else _hex(data)
    if raw is None and b"-----BEGIN PUBLIC KEY-----" in data:
        try:
            loaded = load_pem_public_key(data)
        except ValueError:
            loaded = None
        if isinstance(loaded, Ed25519PublicKey):
            raw = loaded.public_bytes_raw()
    if raw is None or len(raw) != 32:
        raise UsageError(
            f"--witness-key {given}: not an Ed25519 public key (32 raw bytes, 64 hex digits or "
            "a PEM PUBLIC KEY); an HMAC secret is given as hmac-sha256:FILE"
        )
    try:
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise UsageError(f"--witness-key {given}: not an Ed25519 public key") from None
    return WitnessKey(algorithm, raw, path)


def _checkpoint(item: Any, source: str) -> ExternalCheckpoint:
    if not isinstance(item, dict):
        raise UsageError(f"--checkpoint {source}: a checkpoint is a JSON object")
    head, sequence, count = item.get("previousHash"), item.get("sequence"), item.get("recordCount")
    file = item.get("file")
    if (
        not isinstance(head, str)
        or not head
        or type(sequence) is not int
        or type(count) is not int
        or not (0 <= sequence < _SAFE and 0 <= count < _SAFE)
        or not (file is None or (isinstance(file, str) and file))
    ):
        raise UsageError(
            f"--checkpoint {source}: needs previousHash (a string), sequence and recordCount "
            "(integers from 0 below 2^53), and optionally file (a log's path)"
        )
    return ExternalCheckpoint(head, sequence, count, file, source)


def read_checkpoints(path: str) -> tuple[ExternalCheckpoint, ...]:
    """One ``--checkpoint`` file's checkpoints."""
    value, problems = loads_strict(_read(path, "--checkpoint"))
    if problems:
        raise UsageError(f"--checkpoint {path}: not JSON ({problems[0].message})")
    if isinstance(value, list):
        if not value:
            raise UsageError(f"--checkpoint {path}: holds no checkpoint")
        return tuple(_checkpoint(item, f"{path}#/{i}") for i, item in enumerate(value))
    return (_checkpoint(value, path),)


def witness_settings(keys: Iterable[str], checkpoints: Iterable[str]) -> WitnessSettings:
    """The settings of ``--witness-key`` and ``--checkpoint`` values, in the order given."""
    return WitnessSettings(
        tuple(read_key(k) for k in keys),
        tuple(c for path in checkpoints for c in read_checkpoints(path)),
    )


__all__ = ["read_checkpoints", "read_key", "witness_settings"]
