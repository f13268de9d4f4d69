"""Every check format says who signed the manifest and how it was checked (and says plainly
when it was not), and a signer's text (an allowed_signers principal, a minisign trusted
comment) is inert in each of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.signing import minisign_key, minisign_sign, signer_line, ssh_key, ssh_sign
from verifier.authenticity.interface import Trust
from verifier.authenticity.minisign import parse_public_key
from verifier.pipeline import Options, verify
from verifier.report import Report
from verifier.views.check import CHECK

HOSTILE = "\x1b[31mred\x1b[0m <b>|x|</b> %0A::error::"


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, str]:
    from tests.conftest import copy_bundled

    tmp = tmp_path_factory.mktemp("signed")
    root = copy_bundled(tmp / "archive")
    key = ssh_key(tmp / "keys")
    ssh_sign(key, root / "manifest.sha256")
    pub, sec = minisign_key(tmp / "mkeys")
    minisign_sign(sec, root / "manifest.sha256", comment=f"timestamp:1\t{HOSTILE}")
    trust = Trust(
        allowed_signers=signer_line(key, "release@example.com").encode(),
        identity="release@example.com",
        minisign_key=parse_public_key(pub.read_bytes()),
    )
    report = verify(root, Options(trust=trust))
    assert report.ok and len(report.signers) == 2
    signer = report.signers[0].verdict.signer
    assert signer is not None
    return report, signer.fingerprint


@pytest.mark.parametrize("name", list(CHECK))
def test_every_format_names_the_signer_and_the_method(
    signed: tuple[Report, str], name: str
) -> None:
    report, fingerprint = signed
    out = CHECK[name](report)
    assert fingerprint in out, name
    assert "release@example.com" in out, name
    assert "SSHSIG" in out and "minisign" in out, name  # how each was checked
    assert "\x1b" not in out, name  # a control sequence never reaches any output
    if name in ("markdown", "junit"):  # markup: the comment's tags never survive as tags
        assert "<b>" not in out, name


@pytest.mark.parametrize("name", list(CHECK))
def test_every_format_says_when_nothing_was_checked(tmp_path: Path, name: str) -> None:
    from tests.signing import small_archive

    out = CHECK[name](verify(small_archive(tmp_path / "a")))
    if name == "in-toto":  # a statement says it as a warned test, never a passed one
        import json

        predicate = json.loads(out)["predicate"]
        assert "authenticity" in predicate["warnedTests"]
        assert "authenticity" not in predicate["passedTests"]
        return
    assert "not checked" in out.lower() or "nothing-to-check" in out, name


def test_commands_without_trust_options_still_run_on_a_signed_archive(archive: Path) -> None:
    """``table`` without trust options: a signature beside the manifest is said (a note,
    nothing-to-check), and the table is made as for an unsigned archive; with them, the
    table's header names who signed."""
    import subprocess
    import sys

    ssh_sign(ssh_key(archive.parent / "keys"), archive / "manifest.sha256")
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", "table", str(archive), "--format", "text"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "manifest signature not checked" in proc.stdout.splitlines()[0]

    allowed = archive.parent / "allowed_signers"
    allowed.write_text(signer_line(archive.parent / "keys" / "key", "release@example.com"))
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "verifier", "table", str(archive), "--format", "text"),
            *("--allowed-signers", str(allowed), "--identity", "release@example.com"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    head = proc.stdout.splitlines()[0]
    assert "release@example.com" in head and "SHA256:" in head, head
