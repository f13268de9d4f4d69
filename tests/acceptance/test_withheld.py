"""Withheld files: ``withheld.json`` beside the manifest names listed files the publisher does
not publish. Absent, each is reported as withheld (never missing, never verified) in the JSON
report, the text view and the table, through a folder, a zip, a tarball, a git commit and a
BagIt bag whose payload is the archive (withheld before bagging, or after); an
assertion that needs one is ``assertion.withheld``, blocked by it; a list the manifest does not
bind, an entry the manifest does not list, a malformed list and a withheld file that is there
after all are findings of their own."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.archives import git_repo, need_git, tar_tree, zip_tree
from tests.conftest import REPO, copy_bundled, require_module

README = "evidence/README.md"  # read by no assertion
TRANSCRIPT = "evidence/e1-local-crash/runner-result.json"  # read by assertions and the table


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args], capture_output=True, text=True, check=False
    )


def withhold(root: Path, *names: str, listed: bool = True, drop: bool = True) -> None:
    """Write the withheld list for ``names`` (and list it in the manifest), and take the files
    out of the archive, the manifest unchanged otherwise (as a publisher does)."""
    body = {"withheld": [{"path": n, "reason": "personal data"} for n in names]}
    data = (json.dumps(body, indent=2) + "\n").encode()
    (root / "withheld.json").write_bytes(data)
    if listed:
        with (root / "manifest.sha256").open("a", encoding="utf-8") as manifest:
            manifest.write(f"{hashlib.sha256(data).hexdigest()}  withheld.json\n")
    if drop:
        for name in names:
            (root / name).unlink()


def report(target: Path | str, *more: str) -> tuple[int, dict[str, Any]]:
    proc = cli("check", str(target), "--format", "json", *more)
    return proc.returncode, json.loads(proc.stdout)


def checked(*args: str) -> tuple[int, dict[str, Any]]:
    proc = cli("check", *args, "--format", "json")
    return proc.returncode, json.loads(proc.stdout)


def codes(data: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["code"], f["path"]) for f in data["findings"])


def test_a_withheld_file_is_withheld_not_missing_and_the_run_passes(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    withhold(root, README)
    code, data = report(root)
    assert code == 0
    entry = next(f for f in data["files"] if f["path"] == README)
    assert entry["status"] == "withheld" and entry["sha256"] is None
    found = [f for f in data["findings"] if f["path"] == README]
    assert [(f["code"], f["severity"]) for f in found] == [("manifest.withheld", "warning")]
    assert "personal data" in found[0]["message"]
    assert not any(f["code"] == "manifest.missing" for f in data["findings"])
    text = cli("check", str(root), "--format", "text").stdout
    assert "1 withheld" in text and "manifest.withheld" in text


def test_an_assertion_that_needs_a_withheld_file_is_not_evaluable(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    withhold(root, TRANSCRIPT)
    code, data = report(root)
    assert code == 1
    blocked = [f for f in data["findings"] if f["code"] == "assertion.withheld"]
    assert blocked and all(f["cause"]["code"] == "manifest.withheld" for f in blocked)
    assert not any(f["code"] == "assertion.error" for f in data["findings"])
    statuses = {a["id"]: a["status"] for a in data["assertions"]}
    assert "passed" not in {statuses[f["message"].split(":")[0]] for f in blocked}
    table = json.loads(cli("table", str(root), "--format", "json").stdout)
    cells = [
        c for row in table["cases"] for c in row["outcomes"] if c["source"]["path"] == TRANSCRIPT
    ]
    assert cells and all(not c["verified"] for c in cells)
    assert all(any("withheld" in p for p in c["problems"]) for c in cells)


def bagged(root: Path, *checksums: str) -> Path:
    """``root`` made a BagIt bag in place (its files moved to ``data/``)."""
    bagit: Any = require_module("bagit", "bagit-python (the BagIt maker) is not installed")
    bagit.make_bag(str(root), checksums=list(checksums or ["sha256"]))
    return root


def in_bag(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The findings' codes and paths of a bag's report, as the archive in it names them."""
    return sorted((c, p.removeprefix("data/")) for c, p in codes(data))


@pytest.mark.parametrize("kind", ["zip", "tar", "git", "bag", "zipped bag"])
def test_every_source_kind_reports_it_the_same(tmp_path: Path, kind: str) -> None:
    """Each source kind (and a bag, as a folder and zipped): the same findings as the folder,
    the files withheld; given later with --withheld-dir, both are read and the run passes."""
    import shutil

    root = copy_bundled(tmp_path / "a")
    given = tmp_path / "given"
    for name in (README, TRANSCRIPT):
        (given / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, given / name)
    withhold(root, README, TRANSCRIPT)
    folder = report(root)
    target: list[str] = [str(root)]
    if kind == "zip":
        target = [str(zip_tree(root, tmp_path / "a.zip"))]
    elif kind == "tar":
        target = [str(tar_tree(root, tmp_path / "a.tar.gz"))]
    elif kind == "git":
        need_git()
        git_repo(root)  # (one commit of everything)
        target = ["--git", str(root)]
    elif kind == "bag":  # withheld, then bagged: the bag's manifests list what it holds
        bagged(root)
    else:
        target = [str(zip_tree(bagged(root), tmp_path / "bag.zip"))]
    packed = checked(*target)
    prefix = "data/" if "bag" in kind else ""
    assert folder[0] == packed[0] == 1
    assert (in_bag(packed[1]) if prefix else codes(packed[1])) == codes(folder[1])
    statuses = {f["path"]: f["status"] for f in packed[1]["files"]}
    assert statuses[prefix + README] == statuses[prefix + TRANSCRIPT] == "withheld"
    if prefix:  # (the bag's manifests do not list them: the archive's manifest does)
        found = packed[1]["findings"]
        against = {f["manifest"] for f in found if f["code"] == "manifest.withheld"}
        assert against == {"data/manifest.sha256"}
    code, data = checked(*target, "--withheld-dir", str(given))
    assert code == 0, codes(data)
    supplied = sorted(p.removeprefix(prefix) for c, p in codes(data) if c == "withheld.supplied")
    assert supplied == sorted([README, TRANSCRIPT])
    statuses = {f["path"]: f["status"] for f in data["files"]}
    assert statuses[prefix + README] == statuses[prefix + TRANSCRIPT] == "ok"


def test_an_unbound_list_is_not_honored(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    withhold(root, README, listed=False)
    code, data = report(root)
    assert code == 1
    found = codes(data)
    assert ("withheld.unbound", "withheld.json") in found
    assert ("manifest.missing", README) in found  # not withheld: nothing binds the list


def test_entries_the_manifest_does_not_list_and_a_malformed_list(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    withhold(root, "evidence/not-listed.json", drop=False)
    code, data = report(root)
    assert code == 1 and ("withheld.not-listed", "withheld.json") in codes(data)
    other = copy_bundled(tmp_path / "b")
    (other / "withheld.json").write_text('{"withheld": []}\n', encoding="utf-8")
    data_bytes = (other / "withheld.json").read_bytes()
    with (other / "manifest.sha256").open("a", encoding="utf-8") as manifest:
        manifest.write(f"{hashlib.sha256(data_bytes).hexdigest()}  withheld.json\n")
    code, data = report(other)
    assert code == 1 and ("withheld.malformed", "withheld.json") in codes(data)


def test_a_withheld_file_that_is_present_is_checked_and_said(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    withhold(root, README, drop=False)
    code, data = report(root)
    assert code == 0
    assert ("withheld.present", README) in codes(data)
    assert next(f for f in data["files"] if f["path"] == README)["status"] == "ok"


def test_given_later_a_withheld_file_is_checked_and_judged(tmp_path: Path) -> None:
    """--withheld-dir: the file is checked against the committed digest, every stage runs on
    it (the assertions that needed it pass again); a changed copy is a mismatch."""
    import shutil

    root = copy_bundled(tmp_path / "a")
    given = tmp_path / "given"
    (given / Path(TRANSCRIPT).parent).mkdir(parents=True)
    shutil.copy2(root / TRANSCRIPT, given / TRANSCRIPT)
    withhold(root, TRANSCRIPT)
    code, data = report(root, "--withheld-dir", str(given))
    assert code == 0, codes(data)
    assert ("withheld.supplied", TRANSCRIPT) in codes(data)
    assert next(f for f in data["files"] if f["path"] == TRANSCRIPT)["status"] == "ok"
    assert not any(f["code"] == "assertion.withheld" for f in data["findings"])
    (given / TRANSCRIPT).write_bytes((given / TRANSCRIPT).read_bytes() + b" ")
    code, data = report(root, "--withheld-dir", str(given))
    assert code == 1 and ("manifest.mismatch", TRANSCRIPT) in codes(data)
    assert cli("check", str(root), "--withheld-dir", str(tmp_path / "none")).returncode == 2


@pytest.mark.parametrize("checksums", [("sha256", "sha512"), ("sha512",)])
def test_a_bag_of_the_archive_given_the_withheld_file_later(
    tmp_path: Path, checksums: tuple[str, ...]
) -> None:
    """--withheld-dir with a bag whose payload is the archive: the file is read from there,
    checked against the archive's manifest and judged by every stage; the bag's own rules
    (its manifests, its Payload-Oxum) are over the files it holds; a changed copy is a
    mismatch against the archive's manifest, reported once. The same when the bag's
    manifests use another algorithm than the archive's (a sha512-only bag): the file is
    checked by the archive's SHA-256 digest, and withheld, it blocks the assertions that
    need it, never "not listed"."""
    import shutil

    root = copy_bundled(tmp_path / "a")
    given = tmp_path / "given"
    (given / Path(TRANSCRIPT).parent).mkdir(parents=True)
    shutil.copy2(root / TRANSCRIPT, given / TRANSCRIPT)
    withhold(root, TRANSCRIPT)
    bagged(root, *checksums)
    code, data = report(root)
    assert code == 1
    blocked = {c for c, p in in_bag(data) if p == TRANSCRIPT}
    assert blocked == {"manifest.withheld", "assertion.withheld"}, in_bag(data)
    code, data = report(root, "--withheld-dir", str(given))
    assert code == 0, codes(data)
    assert in_bag(data) == [("withheld.supplied", TRANSCRIPT)]
    entry = next(f for f in data["files"] if f["path"] == "data/" + TRANSCRIPT)
    assert (entry["status"], entry["algorithm"]) == ("ok", "sha256")
    counts = {m["manifest"]: m["counts"] for s in data["stages"] for m in s.get("manifests", [])}
    assert counts["data/manifest.sha256"]["ok"] == counts["data/manifest.sha256"]["listed"]
    bag = f"manifest-{checksums[0]}.txt"
    assert counts[bag]["listed"] == counts[bag]["ok"]
    (given / TRANSCRIPT).write_bytes((given / TRANSCRIPT).read_bytes() + b" ")
    code, data = report(root, "--withheld-dir", str(given))
    assert code == 1
    mismatch = [f for f in data["findings"] if f["code"] == "manifest.mismatch"]
    assert [(f["path"], f["manifest"]) for f in mismatch] == [
        ("data/" + TRANSCRIPT, "data/manifest.sha256")
    ]
    assert not any(
        f["code"] in ("manifest.unlisted", "bag.oxum-mismatch") for f in data["findings"]
    )


def test_a_bag_that_lists_a_file_the_archive_withholds(tmp_path: Path) -> None:
    """Bagged, then withheld: every payload manifest of the bag lists the file; each reports
    it withheld (its list is in the payload the bag binds), never missing; the bag's
    Payload-Oxum no longer holds, and says why."""
    root = copy_bundled(tmp_path / "a")
    withhold(root, README, drop=False)
    bagged(root, "sha256", "sha512")
    (root / "data" / README).unlink()
    code, data = report(root)
    assert code == 1
    found = [(f["code"], f["path"]) for f in data["findings"]]
    assert ("manifest.missing", "data/" + README) not in found
    assert found.count(("manifest.withheld", "data/" + README)) == 3  # 2 bag manifests, 1 ours
    oxum = [f["message"] for f in data["findings"] if f["code"] == "bag.oxum-mismatch"]
    assert len(oxum) == 1 and "1 withheld" in oxum[0]


def test_every_view_shows_a_withheld_file_as_withheld(tmp_path: Path) -> None:
    """Every member of every report registry (the check formats, the rich view, the table's
    formats, coverage's), rendered on an archive with a withheld record: each says withheld,
    none says missing; the in-toto statement names the file by its committed digest,
    unverified, never as a subject."""
    import io

    from rich.console import Console

    from verifier import verify
    from verifier.views.check import CHECK
    from verifier.views.check.rich_view import show
    from verifier.views.coverage import COVERAGE
    from verifier.views.table import TABLE

    root = copy_bundled(tmp_path / "a")
    withhold(root, TRANSCRIPT)
    outputs: dict[str, str] = {}
    for name in CHECK:
        outputs[f"check {name}"] = cli("check", str(root), "--format", name).stdout
    for name in TABLE:
        outputs[f"table {name}"] = cli("table", str(root), "--format", name).stdout
    for name in COVERAGE:
        outputs[f"coverage {name}"] = cli("coverage", str(root), "--format", name).stdout
    out = io.StringIO()
    show(verify(root), Console(file=out, width=300, force_terminal=False))
    outputs["check rich"] = out.getvalue()
    assert len(outputs) == len(CHECK) + len(TABLE) + len(COVERAGE) + 1
    # (SARIF carries every rule the tool has, manifest.missing among them: its results say it)
    outputs["check sarif"] = json.dumps(json.loads(outputs["check sarif"])["runs"][0]["results"])
    for name, text in outputs.items():
        assert text and ("withheld" in text or "withholds" in text), name
        assert "manifest.missing" not in text and "missing from the archive" not in text, name
    statement = json.loads(outputs["check in-toto"])
    assert TRANSCRIPT not in {s["name"] for s in statement["subject"]}
    held = [
        c
        for c in statement["predicate"]["configuration"]
        if c["annotations"].get("role") == "withheld-file"
    ]
    committed = hashlib.sha256((REPO / TRANSCRIPT).read_bytes()).hexdigest()
    assert held == [
        {
            "name": TRANSCRIPT,
            "digest": {"sha256": committed},
            "annotations": {"role": "withheld-file", "verified": False},
        }
    ]
