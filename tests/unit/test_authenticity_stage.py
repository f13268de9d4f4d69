"""The authenticity stage itself: never a pass on nothing, its own findings beside the later
stages', signatures found beside the manifest (and read once), --signature, the CLI options'
usage errors, and hostile signature bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO
from tests.signing import check, codes, signer_line, small_archive, ssh_key, ssh_sign
from verifier.authenticity.interface import SignatureFile, Trust
from verifier.authenticity.sshsig import BEGIN, END, verify
from verifier.report import NOT_CHECKED, StageStatus
from verifier.views.check.json_view import render


def _schema_valid(report_json: str) -> dict[str, object]:
    schema = json.loads((REPO / "verifier" / "schemas" / "report.schema.json").read_text())
    data: dict[str, object] = json.loads(report_json)
    jsonschema.validate(data, schema)
    return data


def test_no_signature_is_not_checked_never_a_pass(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    report = check(root)
    assert report.authenticity.status is StageStatus.NOTHING_TO_CHECK
    assert report.authenticity.note == NOT_CHECKED and not report.authenticity.findings
    data = _schema_valid(render(report))
    assert data["authenticity"] == {
        "stage": "authenticity",
        "status": "nothing-to-check",
        "note": NOT_CHECKED,
        "counts": {"signatures": 0, "verified": 0},
        "severities": {"error": 0, "warning": 0, "note": 0},
        "findings": [],
        "signatures": [],
    }


def test_a_required_signature_that_is_absent_fails(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    report = check(root, require=True)
    assert codes(report) == ["signature.absent"] and not report.ok
    assert report.authenticity.status is StageStatus.FAILED
    assert report.findings[0].code == "signature.absent"  # first: the stage runs first


def test_a_signature_without_trust_is_not_a_pass(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    ssh_sign(ssh_key(tmp_path / "k"), root / "manifest.sha256")
    report = check(root)  # no authenticity option at all: said, never passed
    assert codes(report) == ["signature.not-checked"]
    assert report.authenticity.status is StageStatus.NOTHING_TO_CHECK
    assert report.authenticity.note and "Not checked" in report.authenticity.note
    for trust in ({"require": True}, {"minisign_key": b"Ed" + bytes(40)}):
        report = check(root, **trust)  # authenticity asked about: an error
        assert codes(report) == ["signature.no-trust"] and not report.ok
        assert "--allowed-signers" in report.authenticity.findings[0].message


def test_a_later_stage_never_hides_it(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    (root / "evidence" / "a.json").write_text('{"a": 2}\n')  # integrity fails too
    manifest = root / "manifest.sha256"
    manifest.write_bytes(manifest.read_bytes() + b"\n")  # and the signature
    report = check(root, allowed_signers=signer_line(key).encode())
    assert codes(report) == ["signature.bad"]
    assert "manifest.mismatch" in {f.code for f in report.integrity.findings}
    assert report.findings[0].code == "signature.bad"


def test_garbage_beside_the_manifest_is_unparsable(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    (root / "manifest.sha256.sig").write_bytes(b"\x00\x01 not a signature")
    report = check(root)
    assert codes(report) == ["signature.unparsable"]
    assert report.authenticity.status is StageStatus.FAILED


def test_a_link_beside_the_manifest_is_refused_unread(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    sig = ssh_sign(key, root / "manifest.sha256")
    outside = tmp_path / "outside.sig"
    sig.rename(outside)
    os.symlink(outside, root / "manifest.sha256.sig")
    report = check(root, allowed_signers=signer_line(key).encode())
    assert codes(report) == ["signature.unparsable"]
    assert "Refused unread" in report.authenticity.findings[0].message


def test_signature_option_names_one_elsewhere(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    sig = ssh_sign(key, root / "manifest.sha256")
    moved = sig.rename(tmp_path / "release.sig")
    report = check(root, signature=str(moved), allowed_signers=signer_line(key).encode())
    assert report.signers and report.signers[0].name == str(moved)
    assert report.authenticity.status is StageStatus.PASSED


def test_the_signature_is_never_an_unlisted_file(tmp_path: Path) -> None:
    from verifier.pipeline import Options
    from verifier.pipeline import verify as run_verify

    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    report = run_verify(
        root, Options(scope=(".",), trust=Trust(allowed_signers=signer_line(key).encode()))
    )
    assert not [f for f in report.integrity.findings if f.code == "manifest.unlisted"]
    assert report.signers


def test_the_signature_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.sources.directory import DirectorySource

    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    opened: list[str] = []
    real = DirectorySource.open

    def counting(self: DirectorySource, name: str):  # type: ignore[no-untyped-def]
        opened.append(name)
        return real(self, name)

    monkeypatch.setattr(DirectorySource, "open", counting)
    report = check(root, allowed_signers=signer_line(key).encode())
    assert report.signers and opened.count("manifest.sha256.sig") == 1


def test_a_further_signature_without_trust_is_a_note_when_one_verified(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    (root / "manifest.sha256.asc").write_bytes(
        b"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"
    )
    report = check(root, allowed_signers=signer_line(key).encode())
    assert codes(report) == ["signature.not-checked"]
    assert report.authenticity.status is StageStatus.PASSED
    assert [c.status for c in report.signatures] == ["verified", "not-checked"]
    _schema_valid(render(report))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", "check", *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("--identity", "a@b"),
        ("--allowed-signers", "/nonexistent/allowed"),
        ("--namespace", ""),
        ("--verify-time", "yesterday"),
        ("--minisign-key", "not-a-key"),
        ("--signature", "/nonexistent/x.sig"),
    ],
)
def test_bad_options_are_one_line_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    root = small_archive(tmp_path / "a")
    proc = _cli(str(root), *args)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_the_cli_says_who_signed(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(signer_line(key))
    proc = _cli(
        str(root),
        "--allowed-signers",
        str(allowed),
        "--identity",
        "alice@example.com",
        "--require-signature",
        "-f",
        "text",
    )
    assert "authenticity passed" in " ".join(proc.stdout.split())
    assert "signed by alice@example.com" in proc.stdout and "SHA256:" in proc.stdout
    proc = _cli(str(root), "--require-signature", "--signature", str(tmp_path / "none.sig"))
    assert proc.returncode == 2


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_hostile_sshsig_bytes_are_findings_never_exceptions(body: bytes) -> None:
    import base64

    for data in (body, BEGIN + b"\n" + base64.b64encode(b"SSHSIG" + body) + b"\n" + END):
        verdict = verify(b"m", SignatureFile("x.sig", data), Trust(allowed_signers=b""))
        assert verdict.findings and not verdict.verified


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.binary(max_size=64))
def test_huge_lengths_are_refused(length: int, tail: bytes) -> None:
    import base64

    blob = b"SSHSIG" + (1).to_bytes(4, "big") + length.to_bytes(4, "big") + tail
    data = BEGIN + b"\n" + base64.b64encode(blob) + b"\n" + END
    verdict = verify(b"m", SignatureFile("x.sig", data), Trust(allowed_signers=b""))
    assert [f.code for f in verdict.findings] == ["signature.unparsable"]


@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_a_signature_inside_an_archive_file_is_found(tmp_path: Path, kind: str) -> None:
    import shutil

    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    fmt = "zip" if kind == "zip" else "gztar"
    packed = shutil.make_archive(str(tmp_path / "release"), fmt, root)
    report = check(Path(packed), allowed_signers=signer_line(key).encode())
    assert report.signers and report.signers[0].name == "manifest.sha256.sig"
    assert report.authenticity.status is StageStatus.PASSED


_ANCHORS = {
    "allowed_signers": b"alice@example.com ssh-ed25519 "
    b"AAAAC3NzaC1lZDI1NTE5AAAAIGrBgmjEVWVAuuLwIGbtHUm+UhCkdnV5RoH5cAgKcn5H\n",
    "minisign_key": b"Ed" + bytes(range(8)) + bytes(32),
    "keyring": b"",
}


@pytest.mark.parametrize("anchor", sorted(_ANCHORS))
def test_a_trust_anchor_without_a_signature_fails(tmp_path: Path, anchor: str) -> None:
    """A key given means a signature is expected: none beside the manifest fails (#34),
    as ssh-keygen -Y verify and cosign verify fail, never "nothing to check"."""
    root = small_archive(tmp_path / "a")
    report = check(root, **{anchor: _ANCHORS[anchor]})
    assert codes(report) == ["signature.absent"] and not report.ok
    assert report.authenticity.status is StageStatus.FAILED


@pytest.mark.parametrize("command", ["check", "table", "audit"])
def test_every_command_fails_a_trust_anchor_without_a_signature(
    tmp_path: Path, command: str
) -> None:
    import base64

    from tests.conftest import copy_bundled

    root = copy_bundled(tmp_path / "a")
    allowed = tmp_path / "allowed_signers"
    allowed.write_bytes(_ANCHORS["allowed_signers"])
    keyring = tmp_path / "keyring.gpg"
    keyring.write_bytes(b"")
    minisign = base64.b64encode(_ANCHORS["minisign_key"]).decode()
    extra = ["-o", str(tmp_path / "audit.json")] if command == "audit" else []
    for anchor in (
        ("--allowed-signers", str(allowed), "--identity", "alice@example.com"),
        ("--minisign-key", minisign),
        ("--keyring", str(keyring)),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "verifier", command, str(root), *anchor, *extra],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 1, (anchor, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "key", ["allowed-signers", "identity", "minisign-key", "keyring", "require-signature"]
)
def test_a_config_file_sets_no_trust(tmp_path: Path, key: str) -> None:
    """Trust comes from the command line only: a config naming an anchor is refused (exit 2),
    never read as "no anchor" (#34: the config-file path of setting anchors)."""
    root = small_archive(tmp_path / "a")
    config = tmp_path / "verify-evidence.toml"
    config.write_text(f'{key} = "x"\n', encoding="utf-8")
    proc = _cli(str(root), "--config", str(config))
    assert proc.returncode == 2 and f"unknown key '{key}'" in proc.stderr
