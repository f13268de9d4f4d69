"""minisign public keys and signatures read as ``minisign -V`` reads them: for each key file,
base64 key line (``-P``) and signature file, named or made by a seeded generator from mutated
pieces (line endings, comment prefixes, line lengths at minisign's buffer sizes, base64,
bytes after a ``\\r`` or a NUL, lines after the fourth, the prehashed ``ED`` and legacy ``Ed``
algorithms, key ids, weak Ed25519 keys), the verifier's verdict equals minisign's own: with
``-H`` against the default (legacy refused), without it against ``--allow-legacy-minisign``.
Without minisign the tests skip on a developer's machine and fail under CI."""

from __future__ import annotations

import base64
import hashlib
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_tool
from tests.signing import minisign_key
from verifier.authenticity.interface import SignatureFile, Trust
from verifier.authenticity.minisign import key_bytes, parse_public_key, verify
from verifier.authoring.sign_minisign import read_secret_key
from verifier.errors import UsageError

MESSAGE = b"0" * 64 + b"  evidence/a.json\n"
COMMENT = b"timestamp:1700000000\tfile:manifest.sha256\thashed"
UNTRUSTED = b"untrusted comment: signature from minisign secret key"


@dataclass
class Key:
    pub: bytes  # the .pub file's bytes
    key_id: bytes
    secret: bytes  # the Ed25519 seed

    @property
    def line(self) -> bytes:
        return self.pub.split(b"\n")[1]

    def sign(self, data: bytes) -> bytes:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return Ed25519PrivateKey.from_private_bytes(self.secret).sign(data)


class Keys:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.a = self._key(folder, "a")
        self.b = self._key(folder, "b")
        self.message = folder / "manifest.sha256"
        self.message.write_bytes(MESSAGE)

    @staticmethod
    def _key(folder: Path, name: str) -> Key:
        pub, sec = minisign_key(folder, name)
        key_id, secret = read_secret_key(sec.read_bytes(), lambda: "")
        return Key(pub.read_bytes(), key_id, secret[:32])


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    return Keys(tmp_path_factory.mktemp("minisign-keys"))


def signature_lines(
    key: Key,
    algorithm: bytes = b"ED",
    comment: bytes = COMMENT,
    key_id: bytes | None = None,
    message: bytes = MESSAGE,
) -> tuple[bytes, bytes, bytes]:
    """The base64 signature line, the trusted comment and the global signature line."""
    signed = hashlib.blake2b(message, digest_size=64).digest() if algorithm == b"ED" else message
    raw = key.sign(signed)
    line = base64.b64encode(algorithm + (key.key_id if key_id is None else key_id) + raw)
    return line, comment, base64.b64encode(key.sign(raw + comment))


def minisig(
    key: Key, algorithm: bytes = b"ED", comment: bytes = COMMENT, end: bytes = b"\n"
) -> bytes:
    line, comment, global_line = signature_lines(key, algorithm, comment)
    return end.join((UNTRUSTED, line, b"trusted comment: " + comment, global_line)) + end


def _minisign(keys: Keys, tmp: Path, key: bytes | str, sig: bytes, legacy: bool) -> bool:
    exe = require_tool("minisign")
    sig_path = tmp / "manifest.sha256.minisig"
    sig_path.write_bytes(sig)
    argv = [exe, "-V", "-q", "-m", str(keys.message), "-x", str(sig_path)]
    if isinstance(key, str):
        argv += ["-P", key]
    else:
        (tmp / "key.pub").write_bytes(key)
        argv += ["-p", str(tmp / "key.pub")]
    if not legacy:
        argv.append("-H")
    proc = subprocess.run(argv, capture_output=True, check=False, timeout=60)
    assert proc.returncode in (0, 1, 2), proc
    return proc.returncode == 0


def _ours(tmp: Path, key: bytes | str, sig: bytes, legacy: bool) -> bool:
    if isinstance(key, bytes):
        (tmp / "key.pub").write_bytes(key)
        key = str(tmp / "key.pub")
    try:
        raw, label = key_bytes(key, lambda path, _option: path.read_bytes())
    except UsageError:
        return False
    trust = Trust(minisign_key=raw, minisign_key_label=label, allow_legacy_minisign=legacy)
    return verify(MESSAGE, SignatureFile("manifest.sha256.minisig", sig), trust).verified


def _agree(keys: Keys, tmp: Path, key: bytes | str, sig: bytes) -> bool:
    """Both modes compared; minisign's verdict (the legacy-allowing one) returned."""
    verdict = False
    for legacy in (False, True):
        theirs = _minisign(keys, tmp, key, sig, legacy)
        assert _ours(tmp, key, sig, legacy) == theirs, (key, sig, legacy, theirs)
        verdict = theirs
    return verdict


# a weak key: the identity point (small order), for which "R = identity, S = 0" verifies any
# message under OpenSSL's Ed25519; libsodium (minisign) refuses the key
WEAK_ID = b"\x01" * 8
WEAK_KEY = b"Ed" + WEAK_ID + b"\x01" + bytes(31)
FORGED = b"\x01" + bytes(63)
WEAK_PUB = b"untrusted comment: x\n" + base64.b64encode(WEAK_KEY) + b"\n"
WEAK_SIG = b"\n".join(
    (
        UNTRUSTED,
        base64.b64encode(b"ED" + WEAK_ID + FORGED),
        b"trusted comment: forged",
        base64.b64encode(FORGED),
        b"",
    )
)


def _named(k: Keys) -> dict[str, tuple[bytes | str, bytes]]:
    a, good = k.a, minisig(k.a)
    line, comment, global_line = signature_lines(k.a)
    four = [UNTRUSTED, line, b"trusted comment: " + comment, global_line]

    def with_lines(*lines: bytes, end: bytes = b"\n") -> bytes:
        return end.join(lines) + end

    return {
        "plain": (a.pub, good),
        "crlf": (a.pub.replace(b"\n", b"\r\n"), minisig(a, end=b"\r\n")),
        "key: a bare base64 line": (a.line + b"\n", good),
        "key: a bare base64 line, no newline": (a.line, good),
        "key: form feed joins comment and key": (a.pub.replace(b"\n", b"\x0c", 1), good),
        "key: u2028 joins comment and key": (
            a.pub.replace(b"\n", "\u2028".encode(), 1),
            good,
        ),
        "key: any first line is the comment": (b"hello\n" + a.line + b"\n", good),
        "key: an empty first line": (b"\n" + a.line + b"\n", good),
        "key: a blank line before the key": (a.pub.replace(b"\n", b"\n\n", 1), good),
        "key: text after a cr": (a.pub.replace(a.line, a.line + b"\rjunk"), good),
        "key: a space before the key": (a.pub.replace(a.line, b" " + a.line), good),
        "key: a space after the key": (a.pub.replace(a.line, a.line + b" "), good),
        "key: lines after the key": (a.pub + b"more\nlines\n", good),
        "key: the other key": (k.b.pub, good),
        "key -P: the line": (a.line.decode(), good),
        "key -P: a space after": (a.line.decode() + " ", good),
        "key -P: the whole file": (a.pub.decode(), good),
        "sig: lines after the fourth": (a.pub, good + b"extra\nlines\n"),
        "sig: no newline at the end": (a.pub, good.rstrip(b"\n")),
        "sig: a cr ends the signature line": (a.pub, with_lines(four[0], line + b"\r", *four[2:])),
        "sig: text after a cr on the signature line": (
            a.pub,
            with_lines(four[0], line + b"\rjunk", *four[2:]),
        ),
        "sig: text after a cr in the trusted comment": (
            a.pub,
            with_lines(*four[:2], four[2] + b"\r\x1b[2Jforged", four[3]),
        ),
        "sig: untrusted comment without its space": (
            a.pub,
            with_lines(b"untrusted comment:x", *four[1:]),
        ),
        "sig: trusted comment without its space": (
            a.pub,
            with_lines(four[0], line, b"trusted comment:" + comment, global_line),
        ),
        "sig: a lone cr ends each line": (a.pub, minisig(a, end=b"\r")),
        "sig: a blank line after the comment": (a.pub, with_lines(four[0], b"", *four[1:])),
        "sig: the legacy form": (a.pub, minisig(a, b"Ed")),
        "sig: a weak key's forgery": (WEAK_PUB, WEAK_SIG),
    }


def test_named_files_read_as_minisign_reads_them(keys: Keys, tmp_path: Path) -> None:
    for name, (key, sig) in sorted(_named(keys).items()):
        try:
            _agree(keys, tmp_path, key, sig)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_the_review_cases_fail_as_minisign_fails(keys: Keys, tmp_path: Path) -> None:
    """#34: a key file is read as minisign reads it (its first line is the comment, lines end
    at ``\\n`` only), and a key libsodium refuses is refused (no forgery verifies)."""
    named = _named(keys)
    for name in (
        "key: a bare base64 line",
        "key: form feed joins comment and key",
        "key: u2028 joins comment and key",
        "sig: untrusted comment without its space",
        "sig: a weak key's forgery",
    ):
        key, sig = named[name]
        assert not _agree(keys, tmp_path, key, sig), name
    for name in ("sig: lines after the fourth", "sig: text after a cr in the trusted comment"):
        key, sig = named[name]
        assert _agree(keys, tmp_path, key, sig), name
    # what follows the \r is not signed, and is never shown as the trusted comment
    key, sig = named["sig: text after a cr in the trusted comment"]
    assert isinstance(key, bytes)
    trust = Trust(minisign_key=parse_public_key(key))
    signer = verify(MESSAGE, SignatureFile("s.minisig", sig), trust).signer
    assert signer is not None and signer.comment == COMMENT.decode()


def _b64_variants(line: bytes) -> list[bytes]:
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    body = line.rstrip(b"=")
    pad = line[len(body) :]
    bumped = body[:-1] + bytes([alphabet[(alphabet.index(body[-1]) + 1) % 64]]) + pad
    flipped = bytearray(base64.b64decode(line))
    flipped[-1] ^= 1
    return [
        line,
        line,
        line,
        body,
        line + b"=",
        line + b" ",
        b" " + line,
        line[:10] + b"\x0c" + line[10:],
        line + b"\rjunk",
        line + b"\x00junk",
        line + b"\r",
        bumped,
        base64.b64encode(bytes(flipped)),
        line[:-4],
        line[:20] + b"*" + line[21:],
        line + b"AAAA",
    ]


def _pick(rng: random.Random, normal: bytes, others: list[bytes], odds: float) -> bytes:
    """``normal`` most of the time, a mutation with probability ``odds``."""
    return rng.choice(others) if rng.random() < odds else normal


def _generated_key(k: Keys, rng: random.Random) -> bytes | str:
    key = k.b if rng.random() < 0.1 else k.a
    if rng.random() < 0.1:
        return _pick(rng, key.line, _b64_variants(key.line), 0.5).decode("latin-1").strip("\0")
    odds = rng.choice([0.1, 0.3, 0.6])
    heads = [
        b"untrusted comment: minisign public key X\r\n",
        b"",
        b"\n",
        b"x" * rng.choice([1021, 1022, 1023, 1024]) + b"\n",
        b"untrusted comment: x\x0c",
        b"untrusted comment: x\x00y\n",
    ]
    ends = [b"\r\n", b"", b"\r", b"\n\n", b"\nmore\n", b"\x0c", b"\x00x\n", b"\rxx\n"]
    head = _pick(rng, b"untrusted comment: minisign public key X\n", heads, odds)
    return (
        head + _pick(rng, key.line, _b64_variants(key.line), odds) + _pick(rng, b"\n", ends, odds)
    )


def _generated_sig(k: Keys, rng: random.Random) -> bytes:
    odds = rng.choice([0.05, 0.1, 0.2, 0.4])
    key = k.b if rng.random() < odds else k.a
    algorithm = _pick(rng, b"ED", [b"Ed", b"Ed", b"eD", b"EE"], odds)
    long = b"x" * rng.choice([8170, 8172, 8173, 8174, 8175])
    comment = _pick(rng, COMMENT, [b"", long, b"a\tb", b"\xff\xfe"], odds)
    key_id = k.b.key_id if rng.random() < odds else None
    message = MESSAGE + b"x" if rng.random() < odds else MESSAGE
    line, comment, global_line = signature_lines(key, algorithm, comment, key_id, message)
    if rng.random() < odds / 2:
        comment = comment + b"x"  # the global signature no longer covers it
    untrusted = _pick(
        rng,
        UNTRUSTED,
        [
            b"untrusted comment: " + b"u" * rng.choice([1001, 1002, 1003, 1004]),
            b"untrusted comment:",
            b"untrusted comment: ",
            b"Untrusted comment: x",
            b" untrusted comment: x",
            b"untrusted comment: a\rb",
            b"untrusted comment: a\x00b",
        ],
        odds,
    )
    prefix = _pick(
        rng, b"trusted comment: ", [b"trusted comment:", b"Trusted comment: ", b"\x00"], odds
    )
    third = prefix + comment + _pick(rng, b"", [b"\rjunk", b"\x00junk", b" ", b"\x0b"], odds)
    fourth = _pick(rng, global_line, _b64_variants(global_line), odds)
    fourth += _pick(rng, b"", [b"xx", b"\r" + b"j" * 10, b"\x00" + b"j" * 10], odds)
    lines = [untrusted, _pick(rng, line, _b64_variants(line), odds), third, fourth]
    if rng.random() < odds / 4:
        del lines[rng.randrange(4)]
    if rng.random() < odds / 4:
        lines.insert(rng.randrange(5), b"")
    ends = [b"\r\n", b"\r", b"\r\r\n", b"\x0c", "\u2028".encode(), b"\x85"]
    out = b"".join(x + _pick(rng, b"\n", ends, odds) for x in lines)
    return _pick(rng, out, [out.rstrip(b"\n"), out + b"trailing\n", out + b"\x00"], odds)


@pytest.mark.parametrize("seed", range(8))
def test_generated_files_read_as_minisign_reads_them(keys: Keys, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    verified = 0
    for _ in range(40):
        if rng.random() < 0.4:
            key, sig = _generated_key(keys, rng), minisig(keys.a)
        else:
            key, sig = keys.a.pub, _generated_sig(keys, rng)
        verified += _agree(keys, tmp_path, key, sig)
    assert 5 <= verified <= 35  # the generator makes both verdicts, never only one


def _secret_variants(sec: bytes) -> dict[str, bytes]:
    head, line = sec.split(b"\n")[:2]
    return {
        "plain": sec,
        "crlf": sec.replace(b"\n", b"\r\n"),
        "no newline at the end": head + b"\n" + line,
        "a bare base64 line": line + b"\n",
        "any first line": b"x\n" + line + b"\n",
        "form feed joins comment and key": head + b"\x0c" + line + b"\n",
        "u2028 joins comment and key": head + "\u2028".encode() + line + b"\n",
        "a blank line before the key": head + b"\n\n" + line + b"\n",
        "text after a cr": head + b"\n" + line + b"\rjunk\n",
        "a space before the key": head + b"\n " + line + b"\n",
        "lines after the key": sec + b"more\n",
        "a long first line": b"x" * 1023 + b"\n" + line + b"\n",
        "padding stripped": head + b"\n" + line.rstrip(b"=") + b"\n",
    }


def test_secret_key_files_read_as_minisign_reads_them(keys: Keys, tmp_path: Path) -> None:
    """The sibling on the signing side (``manifest --sign-minisign``): an unencrypted secret
    key file's framing is read as ``minisign -S`` reads it (the first line is the comment,
    the key its second line ended at ``\\n``)."""
    exe = require_tool("minisign")
    sec = (keys.folder / "a.key").read_bytes()
    for name, data in _secret_variants(sec).items():
        path = tmp_path / "secret.key"
        path.write_bytes(data)
        argv = [exe, "-S", "-s", str(path), "-m", str(keys.message), "-t", "t"]
        argv += ["-x", str(tmp_path / "out.minisig")]
        proc = subprocess.run(
            argv, capture_output=True, check=False, timeout=60, stdin=subprocess.DEVNULL
        )
        try:
            read_secret_key(data, lambda: "")
            ours = True
        except UsageError:
            ours = False
        assert ours == (proc.returncode == 0), (name, proc.stderr)
