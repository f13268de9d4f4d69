"""OpenPGP detached signatures (``.asc``, ``.gpg``, ``.sign``), verified by ``gpgv``.

``gpgv`` runs with a fixed argv (no shell), a fresh empty home folder (no user keyring, no
agent, no network: gpgv has none), the keyring the user gave (an armoured export is turned
into the binary keyring gpgv reads), the signature and the manifest's bytes (those integrity
hashes) written beside it, and a time limit. Its machine-readable ``--status-fd`` lines
decide: ``GOODSIG`` and ``VALIDSIG`` verify; ``BADSIG`` is ``signature.bad``; ``NO_PUBKEY``
(a key not in the keyring) and ``REVKEYSIG`` are ``signature.untrusted-key``; ``EXPKEYSIG``
and ``EXPSIG`` are ``signature.key-expired`` (refused, as an SSH key outside its window is).
No ``gpgv`` is one ``signature.tool-missing`` finding, never a pass.

Before ``gpgv`` runs, the signature file is read (:mod:`verifier.authenticity.pgppackets`):
nothing but signature packets, each of class 0x00 (a binary document, so the manifest's exact
bytes are what is signed; a text signature is ``signature.not-exact-bytes``); ``gpgv`` is
given those packets.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from types import MappingProxyType

from verifier.authenticity.interface import SignatureFile, Signer, Trust, Verdict
from verifier.authenticity.pgppackets import NOT_EXACT, PacketError, inexact, read_packets
from verifier.authenticity.sshblob import WireError, b64decode
from verifier.findings import Finding

ARMOUR = b"-----BEGIN PGP SIGNATURE-----"
KEY_ARMOUR = b"-----BEGIN PGP PUBLIC KEY BLOCK-----"
TIMEOUT_SECONDS = 60
MAX_STATUS_BYTES = 1 << 20
#: OpenPGP public-key algorithm ids (RFC 4880, 9580) as the report names them
ALGORITHMS: Mapping[str, str] = MappingProxyType(
    {
        "1": "RSA",
        "3": "RSA",
        "17": "DSA",
        "19": "ECDSA",
        "22": "EdDSA",
        "27": "Ed25519",
        "28": "Ed448",
    }
)
INSTALL = "install gpgv (Debian/Ubuntu: apt-get install gpgv; Fedora: dnf install gnupg2)"


class OpenPGP:
    NAME = "openpgp"
    LABEL = "OpenPGP signature"
    TRUST = "--keyring"

    def detect(self, data: bytes) -> bool:
        head = data.lstrip()
        # armoured, or a binary signature packet (old format, tag 2; or new format, tag 2)
        return head.startswith(ARMOUR) or (bool(data) and data[0] in (0x88, 0x89, 0x8A, 0xC2))

    def has_trust(self, trust: Trust) -> bool:
        return trust.keyring is not None

    def verify(self, message: bytes, signature: SignatureFile, trust: Trust) -> Verdict:
        return verify(message, signature, trust)


FORMAT = OpenPGP()


def dearmour(data: bytes) -> bytes:
    """A keyring's binary packets: an armoured export decoded (every block), a binary one
    as it is (:class:`WireError` for broken armour)."""
    if KEY_ARMOUR not in data:
        return data
    out: list[bytes] = []
    lines = data.replace(b"\r", b"").split(b"\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() != KEY_ARMOUR:
            i += 1
            continue
        i += 1
        while i < len(lines) and lines[i].strip():  # armour headers, up to a blank line
            i += 1
        body: list[bytes] = []
        while i < len(lines) and not lines[i].startswith(b"-----END"):
            line = lines[i].strip()
            if line and not line.startswith(b"="):  # "=" starts the CRC-24 line
                body.append(line)
            i += 1
        if i == len(lines):
            raise WireError("an armoured key block without its end line")
        out.append(b64decode(b"".join(body)))
    return b"".join(out)


def _status(text: str) -> dict[str, list[list[str]]]:
    found: dict[str, list[list[str]]] = {}
    for line in text.splitlines():
        if line.startswith("[GNUPG:] "):
            key, *rest = line[9:].split(" ")
            found.setdefault(key, []).append(rest)
    return found


def verify(message: bytes, signature: SignatureFile, trust: Trust) -> Verdict:
    name = signature.name
    label = trust.keyring_label
    verdict = Verdict("openpgp", f"OpenPGP signature, gpgv against {label}")

    def fail(code: str, text: str) -> Verdict:
        verdict.findings.append(Finding(code, name, text))
        return verdict

    try:
        packets, signatures = read_packets(signature.data)
    except PacketError as exc:
        return fail(exc.code, f"Not a plain OpenPGP detached signature ({exc}).")
    loose = inexact(signatures)
    if loose is not None:
        return fail(
            NOT_EXACT,
            f"An OpenPGP signature of class {loose.class_name}: it does not sign the manifest's "
            "exact bytes (gpgv normalises a text signature's line endings, so bytes changed "
            "after signing could still verify). Sign the manifest as a binary document (gpg "
            "--detach-sign, without --textmode).",
        )
    exe = shutil.which(trust.gpgv)
    if exe is None:
        return fail(
            "signature.tool-missing",
            f"An OpenPGP signature needs gpgv to be verified, and {trust.gpgv} is not on PATH: "
            f"{INSTALL}. Nothing was verified.",
        )
    try:
        keyring = dearmour(trust.keyring or b"")
    except WireError as exc:
        return fail("signature.unparsable", f"The keyring {label} cannot be read ({exc}).")
    with tempfile.TemporaryDirectory(prefix="verifier-gpgv-") as tmp:
        home = os.path.join(tmp, "home")
        os.mkdir(home, 0o700)
        paths = {}
        for part, data in (
            ("keyring.gpg", keyring),
            ("manifest.sig", packets),  # the packets read above, never the file's other bytes
            ("manifest", message),
        ):
            paths[part] = os.path.join(tmp, part)
            with open(paths[part], "wb") as out:
                out.write(data)
        argv = [
            exe,
            "--homedir",
            home,
            "--status-fd",
            "1",
            "--keyring",
            paths["keyring.gpg"],
            "--",
            paths["manifest.sig"],
            paths["manifest"],
        ]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "GNUPGHOME": home}
        try:
            proc = subprocess.run(
                argv,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                env=env,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return fail("signature.unparsable", f"gpgv did not finish in {TIMEOUT_SECONDS} s.")
        except OSError as exc:
            return fail("signature.tool-missing", f"gpgv could not be run ({exc}): {INSTALL}.")
    status = _status(proc.stdout[:MAX_STATUS_BYTES].decode("utf-8", errors="replace"))
    found = _judge(status, proc.returncode, label)
    if isinstance(found, Signer):
        verdict.signer = found
        return verdict
    return fail(*found)


def _who(rest: list[str]) -> str:
    """A status line's key id and user id, for a message."""
    return " ".join(rest[:1]) + (f" ({' '.join(rest[1:])})" if rest[1:] else "")


def _judge(status: dict[str, list[list[str]]], rc: int, label: str) -> Signer | tuple[str, str]:
    """The signer, or a finding's code and message, from gpgv's status lines."""
    if "BADSIG" in status:
        return (
            "signature.bad",
            f"BAD signature by key {_who(status['BADSIG'][0])}: the manifest or the signature "
            "was changed after signing.",
        )
    for code in ("EXPKEYSIG", "EXPSIG"):
        if code in status:
            what = "key" if code == "EXPKEYSIG" else "signature"
            return (
                "signature.key-expired",
                f"Signed by key {_who(status[code][0])}, but the {what} has expired.",
            )
    if "REVKEYSIG" in status:
        return (
            "signature.untrusted-key",
            f"Signed by key {_who(status['REVKEYSIG'][0])}, which has been revoked.",
        )
    if "NO_PUBKEY" in status:
        return (
            "signature.untrusted-key",
            f"Signed by key {status['NO_PUBKEY'][0][0] if status['NO_PUBKEY'][0] else '?'}, "
            f"which {label} does not hold.",
        )
    good, valid = status.get("GOODSIG", []), status.get("VALIDSIG", [])
    if rc == 0 and good and valid and len(good) == len(status.get("NEWSIG", good)):
        fields = valid[0]
        algorithm = ALGORITHMS.get(fields[6] if len(fields) > 6 else "", "unknown algorithm")
        return Signer(
            f"OpenPGP {algorithm}",
            fields[-1] if fields else "?",
            principal=" ".join(good[0][1:]) or None,
        )
    if "NODATA" in status or "ERRSIG" in status:
        return ("signature.unparsable", "gpgv could not read an OpenPGP signature in it.")
    return ("signature.unparsable", f"gpgv did not report a good signature (exit {rc}).")
