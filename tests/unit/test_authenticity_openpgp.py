"""OpenPGP signatures over the manifest, verified through gpgv (keys made in the tests with
``gpg --quick-gen-key`` in a temporary home): good (armoured and binary signatures, binary
and armoured keyrings), a tampered manifest, a key not in the keyring, an expired key, and
gpgv missing. Each verdict is compared with the status gpgv itself prints."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.signing import GnuPG, check, codes, gpgv_status, small_archive
from verifier.authenticity.interface import SignatureFile, Trust
from verifier.authenticity.openpgp import verify
from verifier.authenticity.pgppackets import (
    MAX_SIGNATURES,
    NOT_EXACT,
    PacketError,
    armour,
    read_packets,
)
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
    (root / "manifest.sha256.asc").write_bytes(armour(_packet(2, bytes([4, 0]) + bytes(40))))
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


def _packet(tag: int, body: bytes, old: bool = False, size: int = 0) -> bytes:
    """One packet: a new-format header (one, two or five length octets by ``size``), or an
    old-format one (``size``: 0, 1 or 2 for one, two or four length octets)."""
    n = len(body)
    if old:
        width = (1, 2, 4)[size]
        return bytes([0x80 | (tag << 2) | size]) + n.to_bytes(width, "big") + body
    if size == 0 and n < 192:
        return bytes([0xC0 | tag, n]) + body
    if size <= 1 and 192 <= n < 8384:
        n -= 192
        return bytes([0xC0 | tag, (n >> 8) + 192, n & 0xFF]) + body
    return bytes([0xC0 | tag, 255]) + len(body).to_bytes(4, "big") + body


def _sig_body(version: int, sig_class: int, rest: bytes) -> bytes:
    if version == 3:
        return bytes([3, 5, sig_class]) + rest
    return bytes([version, sig_class]) + rest


_SIGS = st.lists(
    st.tuples(
        st.sampled_from([3, 4, 5, 6]),
        st.sampled_from([0x00, 0x00, 0x01, 0x02, 0x10, 0x13, 0x1F, 0x40]),
        st.binary(max_size=300),
        st.booleans(),
        st.integers(0, 2),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(_SIGS, st.booleans())
def test_every_signature_class_is_read_in_every_packet_shape(
    sigs: list[tuple[int, int, bytes, bool, int]], armoured: bool
) -> None:
    """v3 to v6 signatures, old and new headers, several in one file, armoured or binary:
    each class is read, and only a file of class 0x00 signatures reaches gpgv (#34)."""
    binary = b"".join(_packet(2, _sig_body(v, c, r), old, size) for v, c, r, old, size in sigs)
    data = armour(binary) if armoured else binary
    packets, read = read_packets(data)
    assert packets == binary
    assert [(p.version, p.sig_class) for p in read] == [(v, c) for v, c, *_ in sigs]
    verdict = verify(b"m", SignatureFile("m.asc", data), Trust(keyring=b"", gpgv="no-gpgv"))
    got = [f.code for f in verdict.findings]
    if any(c != 0 for _, c, *_ in sigs):
        assert got == [NOT_EXACT]
    else:
        assert got == ["signature.tool-missing"]  # shaped right: gpgv is asked (and absent)


@pytest.mark.parametrize(
    "data",
    [
        _packet(8, b"\x01" + bytes(200)),  # compressed data
        _packet(2, _sig_body(4, 0, bytes(40))) + _packet(8, b"\x01" + bytes(10)),
        _packet(2, _sig_body(4, 0, bytes(40))) + _packet(11, b"b\x00" + bytes(4)),
        _packet(6, bytes(40)),  # a public key
        _packet(10, b"PGP"),  # a marker
        bytes([0xC2, 0xE1]) + bytes(2),  # a partial body length
        bytes([0x8B]) + bytes(8),  # an old-format indeterminate length
        _packet(2, _sig_body(4, 0, bytes(40))) + b"\x00",  # a stray byte after
        _packet(2, _sig_body(4, 0, bytes(40)))[:-1],  # truncated
        _packet(2, bytes([7, 0]) + bytes(8)),  # an unknown version
        _packet(2, _sig_body(4, 0, b"")) * (MAX_SIGNATURES + 1),
        armour(_packet(8, b"\x01" + bytes(200))),
        armour(_packet(2, _sig_body(4, 0, bytes(40)))).replace(b"\n=", b"\n=AAAA\n="),
    ],
    ids=lambda data: str(len(data)),
)
def test_anything_but_signature_packets_is_refused_before_gpgv(tmp_path: Path, data: bytes) -> None:
    """A compressed packet flood (or any packet but a signature) never reaches gpgv: it is
    refused, not run to gpgv's time limit (#34). No clock is read: the fake gpgv records
    whether it ran."""
    ran = tmp_path / "ran"
    fake = tmp_path / "gpgv"
    fake.write_text(f"#!/bin/sh\ntouch {ran}\nexit 2\n")
    fake.chmod(0o755)
    with pytest.raises(PacketError):
        read_packets(data)
    verdict = verify(b"m", SignatureFile("m.asc", data), Trust(keyring=b"", gpgv=str(fake)))
    assert [f.code for f in verdict.findings] in (
        ["signature.unparsable"],
        ["signature.unsupported"],
    )
    assert not ran.exists() and not verdict.verified


def test_a_compressed_packet_flood_is_refused_unrun(tmp_path: Path) -> None:
    """The flood of #34: nested compressed packets in an armoured .asc, five candidates.
    Refused at its first packet and never given to gpgv (the fake one records a run): no clock
    is read, so a loaded machine cannot fail it."""
    import zlib

    inner = _packet(2, _sig_body(4, 0, bytes(40)))
    for _ in range(30):
        inner = _packet(8, b"\x02" + zlib.compress(inner * 4))
    root = small_archive(tmp_path / "archive")
    for suffix in (".sig", ".asc", ".gpg", ".sign"):
        (root / f"manifest.sha256{suffix}").write_bytes(armour(inner))
    ran = tmp_path / "ran"
    fake = tmp_path / "gpgv"
    fake.write_text(f"#!/bin/sh\ntouch {ran}\nexit 2\n")
    fake.chmod(0o755)
    report = check(root, keyring=b"", gpgv=str(fake))
    assert not ran.exists()
    assert codes(report) == ["signature.unparsable"] * 4 and not report.signers
    assert all("compressed data" in f.message for f in report.authenticity.findings)


@pytest.mark.parametrize("armoured", [True, False])
def test_a_text_mode_signature_is_refused_though_gpgv_passes_it(
    tmp_path: Path, gnupg: GnuPG, armoured: bool
) -> None:
    """gpgv verifies a text-mode (class 0x01) signature over a manifest whose line ending was
    changed after signing; the verifier refuses any signature not over the exact bytes (#34)."""
    root = small_archive(tmp_path / "archive")
    gnupg.key(ALICE)
    keyring = gnupg.export(tmp_path / "keyring.gpg", "alice@example.com")
    manifest = root / "manifest.sha256"
    suffix = ".asc" if armoured else ".gpg"
    signature = gnupg.sign("alice@example.com", manifest, suffix, textmode=True)
    lines = manifest.read_bytes().split(b"\n")
    manifest.write_bytes(lines[0] + b"\r\r\n" + b"\n".join(lines[1:]))
    assert "GOODSIG" in gpgv_status(keyring, signature, manifest, tmp_path / "home")  # oracle
    report = check(root, keyring=keyring.read_bytes())
    assert codes(report) == [NOT_EXACT] and not report.signers
    assert report.authenticity.status is StageStatus.FAILED
    assert "0x01" in report.authenticity.findings[0].message
