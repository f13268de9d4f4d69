"""Signed verification statements: ``check --format in-toto --attest-key`` wraps the in-toto
statement in a DSSE envelope signed with an SSH Ed25519 key, and ``attestation verify``
checks one against an allowed_signers file (a tampered payload, a swapped key, a wrong
identity, a namespaces= that excludes in-toto each fail with their own code)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO
from tests.signing import signer_line, small_archive, ssh_key
from verifier.authenticity.dsse import pae, verify, wrap
from verifier.authenticity.interface import SignatureFile, Trust


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def test_pae_is_the_specs() -> None:
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


@pytest.fixture
def attested(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    out = tmp_path / "statement.dsse.json"
    proc = _cli(
        "check", str(root), "--stages", "integrity", "-f", "in-toto", "-o", str(out),
        "--attest-key", str(key),
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == "" and out.is_file()
    allowed = tmp_path / "allowed"
    allowed.write_text(signer_line(key))
    return out, allowed, key


def test_a_signed_statement_verifies(attested: tuple[Path, Path, Path]) -> None:
    out, allowed, _ = attested
    proc = _cli(
        "attestation",
        "verify",
        str(out),
        "--allowed-signers",
        str(allowed),
        "--identity",
        "alice@example.com",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified: signed by alice@example.com" in proc.stdout
    envelope = json.loads(out.read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    schema = json.loads(
        (REPO / "verifier" / "schemas" / "in-toto-statement.schema.json").read_text()
    )
    jsonschema.validate(statement, schema)
    assert envelope["payloadType"] == "application/vnd.in-toto+json"


def _verify(out: Path, allowed: bytes, identity: str | None = "alice@example.com") -> list[str]:
    verdict, payload = verify(
        SignatureFile(str(out), out.read_bytes()), Trust(allowed_signers=allowed, identity=identity)
    )
    assert (payload is None) == bool(verdict.findings)
    return [f.code for f in verdict.findings]


def test_a_tampered_payload_is_a_bad_signature(attested: tuple[Path, Path, Path]) -> None:
    out, allowed, _ = attested
    envelope = json.loads(out.read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["result"] = "PASSED"
    envelope["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    out.write_text(json.dumps(envelope))
    assert _verify(out, allowed.read_bytes()) == ["signature.bad"]
    proc = _cli("attestation", "verify", str(out), "--allowed-signers", str(allowed))
    assert proc.returncode == 1 and "signature.bad" in proc.stdout


def test_a_swapped_key_a_wrong_identity_and_namespace(
    attested: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    out, allowed, key = attested
    other = ssh_key(tmp_path / "other")
    assert _verify(out, signer_line(other).encode()) == ["signature.untrusted-key"]
    assert _verify(out, allowed.read_bytes(), "bob@example.com") == ["signature.identity-mismatch"]
    line = signer_line(key, options='namespaces="file"').encode()
    assert _verify(out, line) == ["signature.namespace-mismatch"]
    assert _verify(out, signer_line(key, options='namespaces="in-toto"').encode()) == []


def test_attest_key_needs_the_in_toto_format(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    proc = _cli("check", str(root), "-f", "json", "--attest-key", str(tmp_path / "k"))
    assert proc.returncode == 2 and "--format in-toto" in proc.stderr


def test_wrap_refuses_a_non_ed25519_key(tmp_path: Path) -> None:
    from verifier.errors import UsageError

    with pytest.raises(UsageError, match="Ed25519"):
        wrap(b"{}", ssh_key(tmp_path / "k", kind="ecdsa"))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_hostile_envelopes_are_findings(data: bytes) -> None:
    verdict, payload = verify(SignatureFile("e.json", data), Trust(allowed_signers=b""))
    assert payload is None and verdict.findings


def test_a_failed_statement_does_not_verify(tmp_path: Path) -> None:
    """Issue 34 (class 6): a signed statement whose result is FAILED exited 0."""
    root = small_archive(tmp_path / "a")
    (root / "evidence" / "stray.json").write_text("{}\n")  # unlisted: the check fails
    key = ssh_key(tmp_path / "k")
    out = tmp_path / "statement.dsse.json"
    proc = _cli(
        "check", str(root), "--stages", "integrity", "-f", "in-toto", "-o", str(out),
        "--attest-key", str(key),
    )  # fmt: skip
    assert proc.returncode == 1 and out.is_file()
    allowed = tmp_path / "allowed"
    allowed.write_text(signer_line(key))
    proc = _cli("attestation", "verify", str(out), "--allowed-signers", str(allowed))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "result: FAILED" in proc.stdout


def test_the_subjects_must_be_the_archive_given(
    attested: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """With --source, the statement's subject digests are compared with the archive's: the
    archive it was made from verifies, a changed manifest is signature.subject-mismatch."""
    out, allowed, _ = attested
    root = tmp_path / "a"
    args = ("attestation", "verify", str(out), "--allowed-signers", str(allowed))
    proc = _cli(*args, "--source", str(root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    manifest = root / "manifest.sha256"
    manifest.write_bytes(manifest.read_bytes() + b"\n")  # other bytes, the same files
    proc = _cli(*args, "--source", str(root))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "signature.subject-mismatch" in proc.stdout and "Traceback" not in proc.stderr


def test_deeply_nested_envelopes_and_payloads_are_refused_not_a_crash(
    attested: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Issue 34 (class 9): 'attestation verify' on deeply nested JSON raised RecursionError
    (exit 3). The envelope and the signed payload are read strictly and bounded."""
    _, allowed, key = attested
    deep = b"[" * 200_000 + b"]" * 200_000
    hostile = {
        "deep-envelope": deep,
        "deep-in-envelope": b'{"payloadType": ' + deep + b', "payload": "", "signatures": []}',
        "duplicate-keys": b'{"payloadType": "x", "payloadType": "y"}',
        "lone-surrogate": b'{"payloadType": "\\ud800"}',
        "deep-payload": wrap(deep, key),
        "deep-in-payload": wrap(b'{"predicateType": ' + deep + b"}", key),
        "huge-number": wrap(b'{"subject": 1' + b"0" * 100_000 + b"}", key),
    }
    for name, data in hostile.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(data)
        proc = _cli("attestation", "verify", str(path), "--allowed-signers", str(allowed))
        assert proc.returncode == 1, (name, proc.stdout[-300:], proc.stderr[-300:])
        assert "Traceback" not in proc.stderr, name


@pytest.mark.parametrize(
    "mangle",
    [
        lambda line: "bob x\u2028" + line,  # U+2028 ends no line for OpenSSH
        lambda line: "bob x\x0c" + line,  # nor does a form feed
        lambda line: line.replace("ssh-ed25519", "ecdsa-sha2-nistp256", 1),  # not its type
    ],
)
def test_an_envelope_trusts_allowed_signers_as_ssh_keygen_reads_them(
    attested: tuple[Path, Path, Path], mangle: object
) -> None:
    """The DSSE check reads allowed_signers with the same parser as SSH signatures (#34):
    a line ssh-keygen would not read never trusts the envelope's key."""
    assert callable(mangle)
    out, _, key = attested
    line = signer_line(key)
    envelope = SignatureFile(out.name, out.read_bytes())
    good, _ = verify(envelope, Trust(allowed_signers=line.encode()))
    assert good.verified
    bad, payload = verify(envelope, Trust(allowed_signers=str(mangle(line)).encode()))
    assert not bad.verified and payload is None
    assert [f.code for f in bad.findings] == ["signature.untrusted-key"]


@pytest.mark.parametrize("renamed", ["evidence/cases.json", "other/manifest.sha256", "_"])
def test_a_subject_naming_another_file_with_the_manifests_digest_is_a_mismatch(
    attested: tuple[Path, Path, Path], tmp_path: Path, renamed: str
) -> None:
    """in-toto Statement v1: a subject is a name and a digest. verify-evidence names the
    manifest by its path, so a signed statement whose subject names another file with the
    manifest's digest is signature.subject-mismatch under --source (main compared digests
    only and exited 0); the statement as made still verifies."""
    out, allowed, key = attested
    root = tmp_path / "a"
    envelope = json.loads(out.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert statement["subject"][-1]["name"] == "manifest.sha256"
    statement["subject"][-1]["name"] = renamed
    forged = tmp_path / "renamed.dsse.json"
    forged.write_bytes(wrap(json.dumps(statement).encode(), key))
    args = ("--allowed-signers", str(allowed), "--source", str(root))
    assert _cli("attestation", "verify", str(out), *args).returncode == 0
    proc = _cli("attestation", "verify", str(forged), *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "signature.subject-mismatch" in proc.stdout
    assert "has the digest of manifest.sha256 under another name" in proc.stdout


def test_an_archive_whose_files_changed_since_the_statement_does_not_verify(
    attested: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """--source checks the archive: a statement about its manifest is about the files that
    manifest lists, so a record changed since (the manifest, the statement's subject,
    unchanged) fails integrity and exit 1 (main compared the subjects only and exited 0)."""
    out, allowed, _ = attested
    root = tmp_path / "a"
    args = ("attestation", "verify", str(out), "--allowed-signers", str(allowed))
    assert _cli(*args, "--source", str(root)).returncode == 0
    (root / "evidence" / "a.json").write_text('{"a": 2}\n')
    proc = _cli(*args, "--source", str(root))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "evidence/a.json: manifest.mismatch: " in proc.stdout
    assert "Traceback" not in proc.stderr
