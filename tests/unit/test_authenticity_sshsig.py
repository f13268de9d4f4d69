"""SSH signatures over the manifest: verified natively, and compared with the oracle,
``ssh-keygen -Y verify``, on every variant (good keys of each type, a tampered manifest or
signature, a swapped key, a wrong namespace or identity, a validity window that is over,
namespaces=, cert-authority, negated and wildcard principals)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.signing import (
    check,
    codes,
    signer_line,
    small_archive,
    ssh_key,
    ssh_keygen_verifies,
    ssh_sign,
)
from verifier.report import StageStatus

ALICE = "alice@example.com"


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A small archive, its manifest signed with a fresh Ed25519 key, and the key."""
    root = small_archive(tmp_path / "archive")
    key = ssh_key(tmp_path / "keys")
    ssh_sign(key, root / "manifest.sha256")
    return root, key, tmp_path


def _run(
    root: Path,
    tmp: Path,
    line: str,
    identity: str | None = ALICE,
    namespace: str = "file",
    oracle: bool = True,
) -> list[str]:
    allowed = tmp / "allowed_signers"
    allowed.write_text(line)
    report = check(
        root,
        allowed_signers=allowed.read_bytes(),
        identity=identity,
        namespace=namespace,
    )
    ours = [c for c in report.signatures if c.verdict.verified]
    if oracle:
        theirs = ssh_keygen_verifies(
            allowed,
            identity or ALICE,
            root / "manifest.sha256.sig",
            root / "manifest.sha256",
            namespace,
        )
        assert bool(ours) == theirs, (codes(report), theirs)
    if ours:
        assert report.authenticity.status is StageStatus.PASSED
        assert not report.authenticity.findings
    else:
        assert report.authenticity.status is StageStatus.FAILED
        assert not report.ok
    return codes(report)


@pytest.mark.parametrize(
    ("kind", "bits", "extra"),
    [
        ("ed25519", None, ()),
        ("ecdsa", 256, ()),
        ("ecdsa", 384, ()),
        ("ecdsa", 521, ()),
        ("rsa", 2048, ()),
        ("rsa", 2048, ("-O", "hashalg=sha256")),
    ],
)
def test_each_key_type_verifies(
    tmp_path: Path, kind: str, bits: int | None, extra: tuple[str, ...]
) -> None:
    root = small_archive(tmp_path / "archive")
    key = ssh_key(tmp_path / "keys", kind=kind, bits=bits)
    ssh_sign(key, root / "manifest.sha256", "file", *extra)
    assert _run(root, tmp_path, signer_line(key)) == []
    report = check(root, allowed_signers=signer_line(key).encode(), identity=ALICE)
    (verified,) = report.signers
    signer = verified.verdict.signer
    assert signer is not None and signer.fingerprint.startswith("SHA256:")
    assert signer.principal == ALICE and signer.identity == ALICE
    assert report.authenticity.counts == {"signatures": 1, "verified": 1}


def test_the_fingerprint_is_ssh_keygens(signed: tuple[Path, Path, Path]) -> None:
    import subprocess

    root, key, _ = signed
    out = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(key) + ".pub"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[1]
    report = check(root, allowed_signers=signer_line(key).encode())
    signer = report.signers[0].verdict.signer
    assert signer is not None and signer.fingerprint == out


def test_a_tampered_manifest_byte_is_a_bad_signature(signed: tuple[Path, Path, Path]) -> None:
    root, key, tmp = signed
    manifest = root / "manifest.sha256"
    data = bytearray(manifest.read_bytes())
    data[3] ^= 0x01
    manifest.write_bytes(bytes(data))
    assert "signature.bad" in _run(root, tmp, signer_line(key))


def test_a_tampered_signature_is_refused(signed: tuple[Path, Path, Path]) -> None:
    import base64

    root, key, tmp = signed
    sig = root / "manifest.sha256.sig"
    lines = sig.read_text().splitlines()
    blob = bytearray(base64.b64decode("".join(lines[1:-1])))
    blob[-5] ^= 0x40  # inside the signature itself
    body = base64.b64encode(bytes(blob)).decode()
    sig.write_text(f"{lines[0]}\n{body}\n{lines[-1]}\n")
    assert _run(root, tmp, signer_line(key)) == ["signature.bad"]


def test_a_swapped_key_is_untrusted(signed: tuple[Path, Path, Path]) -> None:
    root, _, tmp = signed
    other = ssh_key(tmp / "other")
    assert _run(root, tmp, signer_line(other)) == ["signature.untrusted-key"]


def test_a_wrong_namespace_is_refused(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "archive")
    key = ssh_key(tmp_path / "keys")
    ssh_sign(key, root / "manifest.sha256", "git")
    assert _run(root, tmp_path, signer_line(key)) == ["signature.namespace-mismatch"]
    assert _run(root, tmp_path, signer_line(key), namespace="git") == []


def test_a_wrong_identity_is_refused(signed: tuple[Path, Path, Path]) -> None:
    root, key, tmp = signed
    got = _run(root, tmp, signer_line(key), identity="mallory@example.com")
    assert got == ["signature.identity-mismatch"]


def test_an_expired_window_is_refused(signed: tuple[Path, Path, Path]) -> None:
    root, key, tmp = signed
    line = signer_line(key, options='valid-before="20200101Z"')
    assert _run(root, tmp, line) == ["signature.key-expired"]
    line = signer_line(key, options='valid-after="29990101Z"')
    assert _run(root, tmp, line) == ["signature.key-expired"]
    line = signer_line(key, options='valid-after="20200101Z",valid-before="29990101Z"')
    assert _run(root, tmp, line) == []


def test_verify_time_moves_the_window(signed: tuple[Path, Path, Path]) -> None:
    from verifier.authenticity.allowed_signers import parse_time

    root, key, _ = signed
    line = signer_line(key, options='valid-before="20200101Z"').encode()
    early = check(root, allowed_signers=line, verify_time=parse_time("20190101Z"))
    assert early.signers and not early.authenticity.findings
    late = check(root, allowed_signers=line, verify_time=parse_time("20210101Z"))
    assert codes(late) == ["signature.key-expired"]


def test_namespaces_option(signed: tuple[Path, Path, Path]) -> None:
    root, key, tmp = signed
    assert _run(root, tmp, signer_line(key, options='namespaces="git"')) == [
        "signature.namespace-mismatch"
    ]
    assert _run(root, tmp, signer_line(key, options='namespaces="git,fi*"')) == []


def test_cert_authority_lines_are_refused(signed: tuple[Path, Path, Path]) -> None:
    root, key, tmp = signed
    assert _run(root, tmp, signer_line(key, options="cert-authority")) == [
        "signature.cert-authority"
    ]


@pytest.mark.parametrize(
    ("principals", "verifies"),
    [
        ("*@example.com", True),
        ("bob@example.com,alice@example.com", True),
        ("alice@example.co?", True),
        ("!alice@example.com,*@example.com", False),
        ("*@example.com,!alice@*", False),
        ("Alice@example.com", False),
        ("bob@example.com", False),
    ],
)
def test_principal_patterns_match_as_ssh_keygen(
    signed: tuple[Path, Path, Path], principals: str, verifies: bool
) -> None:
    root, key, tmp = signed
    got = _run(root, tmp, signer_line(key, principals=principals))
    assert got == ([] if verifies else ["signature.identity-mismatch"])


def test_without_identity_any_listed_principal_signs(signed: tuple[Path, Path, Path]) -> None:
    root, key, tmp = signed
    other = ssh_key(tmp / "other")
    line = signer_line(other, "bob@example.com") + signer_line(key, "carol@example.com")
    report = check(root, allowed_signers=line.encode())
    signer = report.signers[0].verdict.signer
    assert signer is not None and signer.principal == "carol@example.com"
    assert signer.identity is None


def test_unparsable_lines_are_skipped_and_counted(signed: tuple[Path, Path, Path]) -> None:
    root, key, tmp = signed
    line = 'x@y "unclosed ssh-ed25519 AAAA\n# comment\n\n' + signer_line(key)
    assert _run(root, tmp, line) == []
    other = ssh_key(tmp / "other")
    report = check(root, allowed_signers=b"garbage\n" + signer_line(other).encode())
    (finding,) = report.authenticity.findings
    assert finding.code == "signature.untrusted-key" and "1 line(s)" in finding.message
