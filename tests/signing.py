"""Keys and signatures made in the tests with the real tools (ssh-keygen, minisign, gpg),
and the authenticity stage read back from a run. Every tool is found through
:func:`tests.conftest.require_tool`: missing, a test skips on a developer's machine and fails
under CI."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import require_tool, write_archive
from verifier.authenticity.interface import Trust
from verifier.pipeline import Options, verify
from verifier.report import Report

FILES = {"evidence/a.json": '{"a": 1}\n', "evidence/b.json": '{"b": 2}\n'}


def small_archive(root: Path) -> Path:
    """A two-file archive with its manifest."""
    return write_archive(root, FILES)


def ssh_key(
    folder: Path, name: str = "key", kind: str = "ed25519", bits: int | None = None
) -> Path:
    """A fresh unencrypted OpenSSH key pair (``name`` and ``name.pub``)."""
    exe = require_tool("ssh-keygen")
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / name
    argv = [exe, "-q", "-t", kind, "-N", "", "-C", f"{name}@test", "-f", str(key)]
    if bits is not None:
        argv[4:4] = ["-b", str(bits)]
    subprocess.run(argv, check=True, capture_output=True)
    return key


def ssh_sign(key: Path, file: Path, namespace: str = "file", *extra: str) -> Path:
    """``ssh-keygen -Y sign`` over ``file``: writes and returns ``file.sig``."""
    exe = require_tool("ssh-keygen")
    sig = file.with_name(file.name + ".sig")
    sig.unlink(missing_ok=True)
    subprocess.run(
        [exe, "-Y", "sign", "-f", str(key), "-n", namespace, *extra, str(file)],
        check=True,
        capture_output=True,
    )
    return sig


def signer_line(key: Path, principals: str = "alice@example.com", options: str = "") -> str:
    """An allowed_signers line for ``key``."""
    kind, blob = (key.with_name(key.name + ".pub")).read_text().split()[:2]
    return " ".join(x for x in (principals, options, kind, blob) if x) + "\n"


def ssh_keygen_verifies(
    allowed: Path, identity: str, signature: Path, message: Path, namespace: str = "file"
) -> bool:
    """What ``ssh-keygen -Y verify`` says (the oracle)."""
    exe = require_tool("ssh-keygen")
    with message.open("rb") as stdin:
        proc = subprocess.run(
            [
                exe,
                "-Y",
                "verify",
                "-f",
                str(allowed),
                "-I",
                identity,
                "-n",
                namespace,
                "-s",
                str(signature),
            ],
            stdin=stdin,
            capture_output=True,
            check=False,
        )
    return proc.returncode == 0


def check(root: Path, **trust: Any) -> Report:
    """The report of a run with the trust given (the library API)."""
    return verify(root, Options(trust=Trust(**trust)))


def codes(report: Report) -> list[str]:
    return sorted(f.code for f in report.authenticity.findings)


def minisign_key(folder: Path, name: str = "mk") -> tuple[Path, Path]:
    """A fresh unencrypted minisign key pair (``minisign -G -W``): (public, secret)."""
    exe = require_tool("minisign")
    folder.mkdir(parents=True, exist_ok=True)
    pub, sec = folder / f"{name}.pub", folder / f"{name}.key"
    subprocess.run(
        [exe, "-G", "-W", "-p", str(pub), "-s", str(sec)], check=True, capture_output=True
    )
    return pub, sec


def minisign_sign(
    secret: Path, file: Path, comment: str = "timestamp:0", legacy: bool = False
) -> Path:
    """``minisign -S`` over ``file``: writes and returns ``file.minisig``."""
    exe = require_tool("minisign")
    argv = [exe, "-S", "-s", str(secret), "-m", str(file), "-t", comment]
    if legacy:
        argv.append("-l")
    subprocess.run(argv, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    return file.with_name(file.name + ".minisig")


def minisign_verifies(public: Path, file: Path, prehashed_only: bool = False) -> bool:
    """What ``minisign -V`` says (the oracle); ``-H`` when only prehashed is accepted."""
    exe = require_tool("minisign")
    argv = [exe, "-V", "-q", "-p", str(public), "-m", str(file)]
    if prehashed_only:
        argv.append("-H")
    return subprocess.run(argv, capture_output=True, check=False).returncode == 0


class GnuPG:
    """A throwaway GnuPG home (its agent stopped by :meth:`close`) that makes keys and
    detached signatures for the tests, never touching the user's keyring."""

    def __init__(self, home: Path) -> None:
        self.gpg = require_tool("gpg")
        require_tool("gpgv")
        self.home = home
        home.mkdir(mode=0o700, parents=True)

    def run(self, *args: str, faked: str | None = None) -> bytes:
        argv = [self.gpg, "--homedir", str(self.home), "--batch", "--pinentry-mode", "loopback"]
        argv += ["--passphrase", ""]
        if faked is not None:
            argv += ["--faked-system-time", faked]
        proc = subprocess.run([*argv, *args], capture_output=True, check=True)
        return proc.stdout

    def key(self, uid: str, expire: str = "never", faked: str | None = None) -> None:
        self.run("--quick-gen-key", uid, "ed25519", "sign", expire, faked=faked)

    def export(self, path: Path, uid: str, armor: bool = False) -> Path:
        path.write_bytes(self.run("--export", *(["--armor"] if armor else []), uid))
        return path

    def sign(
        self,
        uid: str,
        file: Path,
        suffix: str = ".asc",
        faked: str | None = None,
        textmode: bool = False,
    ) -> Path:
        out = file.with_name(file.name + suffix)
        out.unlink(missing_ok=True)
        armor = ["--armor"] if suffix == ".asc" else []
        mode = ["--textmode"] if textmode else []
        self.run("-u", uid, *armor, *mode, "--detach-sign", "-o", str(out), str(file), faked=faked)
        return out

    def close(self) -> None:
        gpgconf = require_tool("gpgconf")
        subprocess.run(
            [gpgconf, "--homedir", str(self.home), "--kill", "gpg-agent"],
            capture_output=True,
            check=False,
        )


def gpgv_status(keyring: Path, signature: Path, file: Path, home: Path) -> set[str]:
    """The status keywords ``gpgv`` itself prints (the oracle), run by the test."""
    exe = require_tool("gpgv")
    home.mkdir(mode=0o700, exist_ok=True)
    proc = subprocess.run(
        [
            exe,
            "--homedir",
            str(home),
            "--status-fd",
            "1",
            "--keyring",
            str(keyring),
            str(signature),
            str(file),
        ],
        capture_output=True,
        check=False,
    )
    return {
        line.split()[1]
        for line in proc.stdout.decode(errors="replace").splitlines()
        if line.startswith("[GNUPG:] ")
    }
