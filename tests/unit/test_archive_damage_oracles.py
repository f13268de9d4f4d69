"""Damaged tarballs against the tools that test them: ``tar -t`` (GNU tar), ``gzip -t``,
``xz -t``, ``bzip2 -t``. Every damaged variant of a small archive (cut at many offsets, a byte
of the compressed trailer flipped, bytes appended) that a tool rejects, the verifier rejects
too (``source.unreadable``, ``source.trailing-data`` or, when nothing at all is readable, an
error opening the source); every cut before the end of the archive's data is rejected, even
where GNU tar is silent; the intact archive passes everywhere.

Without a tool the test skips, except under CI (``CI`` set), where it fails."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import require_tool
from verifier.sources.interface import SourceError
from verifier.sources.tar import TarSource

REJECTING = {"source.unreadable", "source.trailing-data"}
COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    ".tar": lambda b: b,
    ".tar.gz": gzip.compress,
    ".tar.xz": lzma.compress,
    ".tar.bz2": bz2.compress,
}
TESTER = {".tar.gz": "gzip", ".tar.xz": "xz", ".tar.bz2": "bzip2"}


def need(tool: str) -> None:
    require_tool(tool, f"{tool} is not installed")


def tar_bytes() -> tuple[bytes, int]:
    """A small GNU tar and where its data ends (the end of its end-of-archive marker)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for i, size in enumerate((10, 700, 0, 3000)):
            info = tarfile.TarInfo(f"evidence/{'deep/' * 25}{i}.bin")
            info.size = size
            archive.addfile(info, io.BytesIO(bytes([65 + i]) * size))
        data_end = archive.offset + 1024
    return buf.getvalue(), data_end


def rejected_by_us(path: Path) -> bool:
    try:
        source = TarSource(str(path))
    except SourceError:
        return True
    try:
        return bool(REJECTING & {f.code for f in source.findings()})
    finally:
        source.close()


def rejected_by(argv: list[str]) -> bool:
    return subprocess.run(argv, capture_output=True, check=False).returncode != 0


def variants(good: bytes, suffix: str, data_end: int) -> list[tuple[str, bytes, bool]]:
    """(what, bytes, must we reject whatever the tools say)."""
    out: list[tuple[str, bytes, bool]] = []
    n = len(good)
    end = data_end if suffix == ".tar" else n
    cuts = sorted({*range(1, n, max(1, n // 40)), n - 1, n - 4, n - 8, n - 12, data_end - 1})
    for cut in cuts:
        if 0 < cut < n:
            out.append((f"cut at {cut}", good[:cut], cut < end))
    if suffix != ".tar":
        for back in range(1, 13):
            flipped = bytearray(good)
            flipped[-back] ^= 0x01
            out.append((f"byte -{back} flipped", bytes(flipped), False))
    out.append(("garbage appended", good + b"garbage!" * 64, False))
    return out


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_every_damage_a_tool_rejects_is_rejected(tmp_path: Path, suffix: str) -> None:
    need("tar")
    tester = TESTER.get(suffix)
    if tester:
        need(tester)
    raw, data_end = tar_bytes()
    good = COMPRESS[suffix](raw)
    path = tmp_path / f"x{suffix}"

    def oracles() -> dict[str, bool]:
        verdicts = {"tar -t": rejected_by(["tar", "-tf", str(path)])}
        if tester:
            verdicts[f"{tester} -t"] = rejected_by([tester, "-t", str(path)])
        return verdicts

    path.write_bytes(good)
    assert not any(oracles().values()), "the intact archive must pass the tools"
    assert not rejected_by_us(path), "the intact archive must pass the verifier"
    missed: list[str] = []
    agreed = 0
    for what, data, must in variants(good, suffix, data_end):
        path.write_bytes(data)
        tools = oracles()
        ours = rejected_by_us(path)
        rejecting = sorted(k for k, v in tools.items() if v)
        if (rejecting or must) and not ours:
            missed.append(f"{what}: rejected by {rejecting or 'nobody'}, passed by the verifier")
        agreed += ours == bool(rejecting)
    assert not missed, "\n".join(missed)
    assert agreed > 0
