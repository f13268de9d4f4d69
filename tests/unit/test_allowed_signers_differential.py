"""allowed_signers files read as ``ssh-keygen -Y verify`` reads them: for each file, named
or made by a seeded generator from mutated pieces (line endings, separators, principals,
options, key-type labels, base64), the verifier's verdict equals ssh-keygen's own. Without
ssh-keygen the tests skip on a developer's machine and fail under CI."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from tests.conftest import require_tool
from tests.signing import ssh_key, ssh_sign
from verifier.authenticity.allowed_signers import parse_time
from verifier.authenticity.interface import SignatureFile, Trust
from verifier.authenticity.sshsig import verify

IDENTITY = "alice@example.com"
WHEN = "20240601120000Z"  # the verify time both are given
MESSAGE = b"0" * 64 + b"  evidence/a.json\n"


class Keys:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ed = ssh_key(folder, "ed")
        self.rsa = ssh_key(folder, "rsa", "rsa", 2048)
        self.ec = ssh_key(folder, "ec", "ecdsa")
        self.message = folder / "manifest.sha256"
        self.message.write_bytes(MESSAGE)
        self.sig = ssh_sign(self.ed, self.message)

    def pub(self, key: Path) -> tuple[str, str]:
        kind, blob = key.with_name(key.name + ".pub").read_text().split()[:2]
        return kind, blob


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    return Keys(tmp_path_factory.mktemp("allowed-keys"))


def _ssh_keygen(keys: Keys, allowed: bytes, tmp: Path) -> bool:
    exe = require_tool("ssh-keygen")
    path = tmp / "allowed_signers"
    path.write_bytes(allowed)
    argv = [exe, "-Y", "verify", "-f", str(path), "-I", IDENTITY, "-n", "file"]
    argv += ["-s", str(keys.sig), f"-Overify-time={WHEN}"]
    with keys.message.open("rb") as stdin:
        proc = subprocess.run(argv, stdin=stdin, capture_output=True, check=False, timeout=60)
    return proc.returncode == 0


def _ours(keys: Keys, allowed: bytes) -> bool:
    trust = Trust(allowed_signers=allowed, identity=IDENTITY, verify_time=parse_time(WHEN))
    signature = SignatureFile("manifest.sha256.sig", keys.sig.read_bytes())
    return verify(MESSAGE, signature, trust).verified


def _agree(keys: Keys, allowed: bytes, tmp: Path) -> None:
    theirs = _ssh_keygen(keys, allowed, tmp)
    assert _ours(keys, allowed) == theirs, (allowed, theirs)


def _line(keys: Keys, principals: str = IDENTITY, options: str = "", label: str = "") -> bytes:
    kind, blob = keys.pub(keys.ed)
    fields = [principals, options, label or kind, blob]
    return " ".join(f for f in fields if f).encode() + b"\n"


NAMED = {
    "plain": lambda k: _line(k),
    "u2028 joins two lines": lambda k: _line(k, "bob")[:-1] + "\u2028".encode() + _line(k),
    "form feed joins two lines": lambda k: b"bob x\x0c" + _line(k),
    "vertical tab joins two lines": lambda k: b"bob x\x0b" + _line(k),
    "a lone cr joins two lines": lambda k: b"# comment\r" + _line(k),
    "crlf": lambda k: _line(k)[:-1] + b"\r\n",
    "label ssh-rsa on an ed25519 key": lambda k: _line(k, label="ssh-rsa"),
    "label ecdsa on an ed25519 key": lambda k: _line(k, label="ecdsa-sha2-nistp256"),
    "label ED25519 (a short name)": lambda k: _line(k, label="ED25519"),
    "label a cert type": lambda k: _line(k, label="ssh-ed25519-cert-v01@openssh.com"),
    "label sk": lambda k: _line(k, label="sk-ssh-ed25519@openssh.com"),
    "nul ends the line": lambda k: _line(k).replace(b" ssh-", b"\0 ssh-"),
    "quoted principals": lambda k: _line(k, f'"{IDENTITY},bob x"'),
    "negated": lambda k: _line(k, f"!{IDENTITY},*"),
    "long pattern": lambda k: _line(k, "x" * 1100 + "," + IDENTITY),
    "namespaces unquoted": lambda k: _line(k, options="namespaces=file"),
    "options in capitals": lambda k: _line(k, options='NAMESPACES="file",Valid-After="2020"'),
    "seconds 60": lambda k: _line(k, options='valid-after="20240601115960Z"'),
    "utc suffix": lambda k: _line(k, options='valid-before="20240601UTC"'),
    "before not after": lambda k: _line(
        k, options='valid-after="20200101Z",valid-before="20200101Z"'
    ),
    "namespaces twice": lambda k: _line(k, options='namespaces="file",namespaces="file"'),
    "cert-authority twice": lambda k: _line(k, options="cert-authority,cert-authority"),
    "a trailing comma": lambda k: _line(k, options='namespaces="file",'),
    "escaped quote": lambda k: _line(k, options='namespaces="fi\\"le,file"'),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_files_read_as_ssh_keygen_reads_them(keys: Keys, tmp_path: Path, name: str) -> None:
    _agree(keys, NAMED[name](keys), tmp_path)


def test_the_review_cases_fail_as_ssh_keygen_fails(keys: Keys, tmp_path: Path) -> None:
    """#34: U+2028 and form feed are not line ends, a label must be the key's own type."""
    for name in ("u2028 joins two lines", "form feed joins two lines"):
        data = NAMED[name](keys)
        assert not _ssh_keygen(keys, data, tmp_path) and not _ours(keys, data)
    data = NAMED["label ssh-rsa on an ed25519 key"](keys)
    assert not _ssh_keygen(keys, data, tmp_path) and not _ours(keys, data)


def _blob_variants(blob: str) -> list[str]:
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    bumped = blob[:-2] + last[(last.index(blob[-2]) + 1) % 64] + blob[-1]
    return [
        blob,
        blob,
        blob[:10] + "\x0c" + blob[10:],
        blob[:10] + "\x0b" + blob[10:],
        blob[:10] + "\r" + blob[10:],
        blob.rstrip("="),
        blob + "=",
        blob + "\x0c",
        bumped,
        blob[:-4],
        blob[:20] + "*" + blob[21:],
    ]


def _generated(keys: Keys, rng: random.Random) -> bytes:
    kinds = {k: keys.pub(getattr(keys, k)) for k in ("ed", "rsa", "ec")}
    principals = [
        IDENTITY,
        IDENTITY,
        "*@example.com",
        "al?ce@example.com",
        "ALICE@example.com",
        f"bob,{IDENTITY}",
        f"!{IDENTITY}",
        f'"{IDENTITY}"',
        f'"{IDENTITY}',
        "",
        "é" + IDENTITY,
    ]
    options = [
        "",
        "",
        'namespaces="file"',
        'namespaces="git"',
        'namespaces="git,fi*"',
        "cert-authority",
        'valid-after="20200101"',
        'valid-before="20240601Z"',
        'valid-after="20240601120001Z"',
        'valid-after="19700101Z"',
        'valid-after="20241301Z"',
        'valid-after="2024060"',
        'valid-after="20240231Z"',
        'valid-before="20990101utc"',
        "foo",
        "cert-authorityx",
        'namespaces="file"x',
        'namespaces="file",cert-authority',
    ]
    labels = ["", "", "", "ssh-rsa", "rsa-sha2-256", "RSA", "ED25519", "ed25519", "Ssh-ed25519"]
    labels += ["ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ECDSA", "ssh-dss"]
    seps = [" ", " ", "\t", "  ", " \t", "\x0c", "\r", "\u00a0"]
    ends = ["\n", "\n", "\r\n", "\r", "\u2028", "\x0c", "\x00", "\x85", ""]
    heads = ["", "", " ", "\t", "#", "\r", "\x0c"]
    tails = ["", "", " comment", "\tc c", " \u2028x"]
    lines = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        which = rng.choice(["ed", "ed", "ed", "rsa", "ec"])
        kind, blob = kinds[which]
        label = rng.choice(labels) or kind
        fields = [rng.choice(principals), rng.choice(options), label]
        fields.append(rng.choice(_blob_variants(blob)))
        sep = rng.choice(seps)
        text = sep.join(f for f in fields if f) + rng.choice(tails)
        lines.append(rng.choice(heads) + text + rng.choice(ends))
    return "".join(lines).encode()


@pytest.mark.parametrize("seed", range(8))
def test_generated_files_read_as_ssh_keygen_reads_them(
    keys: Keys, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        _agree(keys, _generated(keys, rng), tmp_path)


@pytest.mark.parametrize(
    "label", ["ssh-rsa", "rsa-sha2-256", "rsa-sha2-512", "RSA", "ssh-ed25519", "ssh-rsa-cert-v01"]
)
def test_an_rsa_keys_labels_read_as_ssh_keygen_reads_them(
    keys: Keys, tmp_path: Path, label: str
) -> None:
    signer = Keys.__new__(Keys)
    signer.__dict__.update(keys.__dict__)
    signer.message = tmp_path / "manifest.sha256"
    signer.message.write_bytes(MESSAGE)
    signer.sig = ssh_sign(keys.rsa, signer.message)
    _kind, blob = keys.pub(keys.rsa)
    _agree(signer, f"{IDENTITY} {label} {blob}\n".encode(), tmp_path)
