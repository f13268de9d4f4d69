"""OpenPGP signatures over the manifest, verified through gpgv (keys made in the tests with
``gpg --quick-gen-key`` in a temporary home): good (armoured and binary signatures, binary
and armoured keyrings), a tampered manifest, a key not in the keyring, an expired key, and
gpgv missing. Each verdict is compared with the status gpgv itself prints."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.signing import GnuPG, check, codes, gpgv_status, small_archive
from verifier.report import StageStatus

ALICE = "Alice <alice@example.com>"


@pytest.fixture
def gnupg(tmp_path: Path) -> Iterator[GnuPG]:
    gpg = GnuPG(tmp_path / "gnupg")
    try:
        yield gpg
    finally:
        gpg.close()


def _run(
    root: Path, keyring: Path, signature: Path, tmp: Path, oracle: Path | None = None
) -> list[str]:
    """Our verdict with ``keyring``; gpgv's own with ``oracle`` (a binary keyring: gpgv
    reads no armour, which the verifier decodes first)."""
    report = check(root, keyring=keyring.read_bytes())
    status = gpgv_status(oracle or keyring, signature, root / "manifest.sha256", tmp / "home")
    ours = bool(report.signers)
    assert ours == ("GOODSIG" in status and not status & {"EXPKEYSIG", "EXPSIG"}), status
    got = codes(report)
    if "BADSIG" in status:
        assert got == ["signature.bad"]
    if "NO_PUBKEY" in status:
        assert got == ["signature.untrusted-key"]
    if "EXPKEYSIG" in status:
        assert got == ["signature.key-expired"]
    expected = StageStatus.PASSED if ours else StageStatus.FAILED
    assert report.authenticity.status is expected
    return got


@pytest.mark.parametrize(("suffix", "armor"), [(".asc", False), (".gpg", True), (".sign", False)])
def test_a_good_signature_verifies(tmp_path: Path, gnupg: GnuPG, suffix: str, armor: bool) -> None:
    root = small_archive(tmp_path / "archive")
    gnupg.key(ALICE)
    keyring = gnupg.export(tmp_path / "keyring", "alice@example.com", armor=armor)
    signature = gnupg.sign("alice@example.com", root / "manifest.sha256", suffix)
    binary = gnupg.export(tmp_path / "binary.gpg", "alice@example.com")
    assert _run(root, keyring, signature, tmp_path, binary) == []
    report = check(root, keyring=keyring.read_bytes())
    signer = report.signers[0].verdict.signer
    assert signer is not None and signer.principal == ALICE
    assert len(signer.fingerprint) == 40 and signer.key_type == "OpenPGP EdDSA"


def test_a_tampered_manifest_is_a_bad_signature(tmp_path: Path, gnupg: GnuPG) -> None:
    root = small_archive(tmp_path / "archive")
    gnupg.key(ALICE)
    keyring = gnupg.export(tmp_path / "keyring.gpg", "alice@example.com")
    signature = gnupg.sign("alice@example.com", root / "manifest.sha256")
    manifest = root / "manifest.sha256"
    manifest.write_bytes(manifest.read_bytes() + b" ")
    assert _run(root, keyring, signature, tmp_path) == ["signature.bad"]


def test_a_key_not_in_the_keyring_is_untrusted(tmp_path: Path, gnupg: GnuPG) -> None:
    root = small_archive(tmp_path / "archive")
    gnupg.key(ALICE)
    gnupg.key("Bob <bob@example.com>")
    keyring = gnupg.export(tmp_path / "keyring.gpg", "bob@example.com")
    signature = gnupg.sign("alice@example.com", root / "manifest.sha256")
    assert _run(root, keyring, signature, tmp_path) == ["signature.untrusted-key"]


def test_an_expired_key_is_refused(tmp_path: Path, gnupg: GnuPG) -> None:
    root = small_archive(tmp_path / "archive")
    gnupg.key("Old <old@example.com>", expire="1d", faked="20200101T000000")
    keyring = gnupg.export(tmp_path / "keyring.gpg", "old@example.com")
    signature = gnupg.sign("old@example.com", root / "manifest.sha256", faked="20200101T000100")
    assert _run(root, keyring, signature, tmp_path) == ["signature.key-expired"]


def test_gpgv_missing_is_one_finding_never_a_pass(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "archive")
    (root / "manifest.sha256.asc").write_bytes(
        b"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"
    )
    report = check(root, keyring=b"", gpgv="no-such-gpgv-program")
    assert codes(report) == ["signature.tool-missing"]
    assert "apt-get install gpgv" in report.authenticity.findings[0].message
    assert report.authenticity.status is StageStatus.FAILED and not report.signers


def test_garbage_in_pgp_armour_is_unparsable(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "archive")
    (root / "manifest.sha256.asc").write_bytes(
        b"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"
    )
    from tests.conftest import require_tool

    require_tool("gpgv")
    assert codes(check(root, keyring=b"")) == ["signature.unparsable"]
