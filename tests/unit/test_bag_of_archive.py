"""A BagIt bag whose payload is an evidence archive with its own manifest and signature.

The bag's manifests say the payload arrived as bagged; the archive's manifest and its
signature say what was published. Both are checked: a record changed before bagging, or an
inner signature that does not verify, fails the run, and each finding names its manifest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.archives import git_repo, tar_tree, zip_tree
from tests.conftest import require_module, write_archive
from tests.signing import FILES, signer_line, small_archive, ssh_key, ssh_sign
from verifier import verify
from verifier.authenticity.interface import Trust
from verifier.plan.options import Options
from verifier.report import Report, StageStatus
from verifier.sources import open_source
from verifier.sources.bagit import BagSource
from verifier.views.check.json_view import render
from verifier.views.check.text import render as render_text

bagit: Any = require_module("bagit", "bagit-python (the BagIt maker) is not installed")
REPO = Path(__file__).resolve().parents[2]
INNER = "data/manifest.sha256"


def signed_bag(tmp_path: Path, change: str = "") -> tuple[Path, bytes]:
    """An archive signed with a fresh key, changed as ``change`` says after signing, then
    bagged (bagit-python hashes the payload as it is then); the bag and the trust."""
    root = small_archive(tmp_path / "bag")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    if change == "record":
        (root / "evidence" / "a.json").write_text('{"a": 2}\n')
    elif change == "manifest":
        manifest = root / "manifest.sha256"
        manifest.write_bytes(manifest.read_bytes() + b"\n")
    bagit.make_bag(str(root), checksums=["sha256"])
    return root, signer_line(key).encode()


def check(bag: Path, trust: bytes, **more: Any) -> Report:
    return verify(bag, Options(trust=Trust(allowed_signers=trust), **more))


def schema_valid(report: Report) -> dict[str, Any]:
    schema = json.loads(
        (REPO / "verifier" / "schemas" / "report.schema.json").read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(render(report))
    jsonschema.validate(data, schema)
    return data


def test_a_record_changed_before_bagging_fails(tmp_path: Path) -> None:
    bag, trust = signed_bag(tmp_path, "record")
    report = check(bag, trust)
    assert not report.ok
    bad = [(f.code, f.path, f.manifest) for f in report.integrity.findings]
    assert bad == [("manifest.mismatch", "data/evidence/a.json", INNER)]
    assert report.integrity.findings[0].at == INNER
    data = schema_valid(report)
    assert [f.get("manifest") for f in data["findings"] if f["stage"] == "integrity"] == [INNER]
    assert f"[against {INNER}]" in render_text(report)


def test_the_inner_signature_is_checked(tmp_path: Path) -> None:
    bag, trust = signed_bag(tmp_path, "manifest")
    report = check(bag, trust)
    assert report.authenticity.status is StageStatus.FAILED
    found = [(f.code, f.path, f.manifest) for f in report.authenticity.findings]
    assert found == [("signature.bad", "data/manifest.sha256.sig", INNER)]
    assert [(s.name, s.status) for s in report.signatures] == [
        ("data/manifest.sha256.sig", "failed")
    ]
    schema_valid(report)


def test_a_bag_of_a_signed_archive_verifies(tmp_path: Path) -> None:
    bag, trust = signed_bag(tmp_path)
    report = check(bag, trust, stages=frozenset({"integrity"}))
    assert report.ok and report.authenticity.status is StageStatus.PASSED
    assert [(s.name, s.status) for s in report.signatures] == [
        ("data/manifest.sha256.sig", "verified")
    ]
    assert report.integrity.findings == []
    # the bag's own manifest is unsigned, and the report says so
    assert report.authenticity.note is not None
    assert report.authenticity.note.startswith("manifest-sha256.txt: ")
    schema_valid(report)


def test_what_is_accepted_is_chosen_over_both_manifests(tmp_path: Path) -> None:
    bag, trust = signed_bag(tmp_path, "record")
    report = check(
        bag, trust, stages=frozenset({"integrity"}), ignore=frozenset({"manifest.mismatch"})
    )
    assert report.ok and report.integrity.findings == []
    assert [a.finding.manifest for a in report.integrity.accepted] == [INNER]


def test_a_bag_of_anything_else_is_checked_as_before(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "bag", FILES, manifest=False)
    bagit.make_bag(str(root), checksums=["sha256"])
    (root / "data" / "evidence" / "a.json").write_text('{"a": 2}\n')
    report = verify(root, Options(stages=frozenset({"integrity"})))
    found = [(f.code, f.path, f.manifest) for f in report.integrity.findings]
    assert found == [("manifest.mismatch", "data/evidence/a.json", None)]
    assert "[against" not in render_text(report)


def test_manifest_option_names_the_inner_manifest(tmp_path: Path) -> None:
    """``--manifest`` names the archive's manifest inside the payload: the bag is still read
    as a bag (its own manifests checked), and the archive against the one named."""
    root = small_archive(tmp_path / "bag")
    (root / "manifest.sha256").rename(root / "SHA256SUMS")
    (root / "evidence" / "a.json").write_text('{"a": 2}\n')
    bagit.make_bag(str(root), checksums=["sha256"])
    (root / "data" / "evidence" / "b.json").write_text('{"b": 3}\n')  # after bagging too
    options = Options(manifest="SHA256SUMS", stages=frozenset({"integrity"}))
    report = verify(root, options)
    assert report.source is not None and report.source["kind"] == "bag"
    found = sorted((f.code, f.path, f.manifest) for f in report.integrity.findings)
    assert found == [
        ("manifest.mismatch", "data/evidence/a.json", "data/SHA256SUMS"),
        ("manifest.mismatch", "data/evidence/b.json", "data/SHA256SUMS"),
        ("manifest.mismatch", "data/evidence/b.json", "manifest-sha256.txt"),
    ]


@pytest.mark.parametrize("kind", ["zip", "tar", "git"])
def test_a_bag_of_an_archive_in_any_container(tmp_path: Path, kind: str) -> None:
    """The same from a bag in a zip, a tarball or a git commit (the payload read through
    the container's own reader)."""
    bag, trust = signed_bag(tmp_path, "record")
    if kind == "zip":
        location = str(zip_tree(bag, tmp_path / "bag.zip"))
    elif kind == "tar":
        location = str(tar_tree(bag, tmp_path / "bag.tar.gz"))
    else:
        git_repo(bag)
        location = f"{bag}@HEAD"
    report = check(Path(location), trust, stages=frozenset({"integrity"}))
    found = [(f.code, f.path, f.manifest) for f in report.integrity.findings]
    assert found == [("manifest.mismatch", "data/evidence/a.json", INNER)]
    assert [(s.name, s.status) for s in report.signatures] == [
        ("data/manifest.sha256.sig", "verified")
    ]


def test_every_view_that_writes_a_finding_names_its_manifest(tmp_path: Path) -> None:
    from verifier.views.check.markdown import render as render_markdown

    bag, trust = signed_bag(tmp_path, "record")
    report = check(bag, trust, stages=frozenset({"integrity"}))
    assert f"[against {INNER}]" in render_text(report)
    assert f"\\[against {INNER}\\]" in render_markdown(report)  # (brackets escaped)


def test_a_trust_anchor_expects_the_inner_manifests_signature(tmp_path: Path) -> None:
    """A trust anchor expects a signature of the archive the bag holds, not of the bag's own
    manifest (BagIt has none): a bag of a signed archive passes, a bag of an unsigned one is
    signature.absent against the inner manifest."""
    bag, trust = signed_bag(tmp_path / "signed")
    report = check(bag, trust)
    assert [f.code for f in report.authenticity.findings] == []
    assert report.authenticity.status is StageStatus.PASSED
    unsigned = small_archive(tmp_path / "unsigned")
    bagit.make_bag(str(unsigned), checksums=["sha256"])
    report = check(unsigned, trust)
    assert report.authenticity.status is StageStatus.FAILED
    found = [(f.code, f.manifest) for f in report.authenticity.findings]
    assert found == [("signature.absent", INNER)]


def test_each_file_is_counted_once_and_each_manifest_apart(tmp_path: Path) -> None:
    """The integrity counts are the bag's (its manifests list every file, the archive's
    among them): the archive's own manifest's counts are kept apart, per manifest, in the
    JSON report and the text view (main added them, so each archive file was counted twice)."""
    bag, trust = signed_bag(tmp_path)
    report = check(bag, trust, stages=frozenset({"integrity"}))
    inner_listed = len(FILES)  # what data/manifest.sha256 lists
    bag_listed = sum(1 for f in report.files if f.listed)
    assert report.integrity.counts["listed"] == bag_listed
    assert report.integrity.counts["ok"] == bag_listed
    manifests = report.integrity.manifests
    assert list(manifests) == ["manifest-sha256.txt", INNER]
    assert manifests[INNER]["listed"] == manifests[INNER]["ok"] == inner_listed
    assert manifests["manifest-sha256.txt"] == report.integrity.counts
    data = schema_valid(report)
    integrity = next(s for s in data["stages"] if s["stage"] == "integrity")
    assert integrity["counts"]["listed"] == bag_listed
    assert [m["manifest"] for m in integrity["manifests"]] == ["manifest-sha256.txt", INNER]
    text = render_text(report)
    assert f"{INNER}: {inner_listed} listed, {inner_listed} ok, " in text
    assert f"integrity    passed           {bag_listed} listed, {bag_listed} ok, " in text


def test_a_finding_about_the_source_is_against_no_manifest(tmp_path: Path) -> None:
    """A bag of an archive in a tarball with data after its end: source.trailing-data is
    about the tarball, not a manifest (main marked it against the bag's manifest)."""
    import tarfile

    bag, trust = signed_bag(tmp_path)
    dest = tmp_path / "bag.tar"
    tar_tree(bag, dest, "w")
    hidden = tmp_path / "hidden.tar"
    (tmp_path / "hidden.txt").write_text("hi\n")
    with tarfile.open(hidden, "w") as archive:
        archive.add(tmp_path / "hidden.txt", "data/evidence/hidden.txt")
    dest.write_bytes(dest.read_bytes() + hidden.read_bytes())  # tar --ignore-zeros reads it
    report = check(dest, trust, stages=frozenset({"integrity"}))
    found = [(f.code, f.manifest) for f in report.integrity.findings]
    assert ("source.trailing-data", None) in found, found
    assert sum(code == "source.trailing-data" for code, _ in found) == 1
    line = next(x for x in render_text(report).splitlines() if "source.trailing-data" in x)
    assert "[against" not in line
    schema_valid(report)


@pytest.mark.parametrize("view", ["markdown", "rich"])
def test_every_human_view_shows_each_manifests_counts(tmp_path: Path, view: str) -> None:
    """The Markdown and rich check views show each manifest's own counts under the stage,
    as the text view does (main: only the bag's, the archive's own counts in no human view
    but text)."""
    bag, trust = signed_bag(tmp_path)
    report = check(bag, trust, stages=frozenset({"integrity"}))
    inner_listed = len(FILES)
    bag_listed = sum(1 for f in report.files if f.listed)
    if view == "markdown":
        from verifier.views.check import CHECK

        text = CHECK["markdown"](report)
    else:
        import io

        from rich.console import Console

        from verifier.views.check.rich_view import show

        out = io.StringIO()
        show(report, Console(file=out, width=400, force_terminal=False))
        text = out.getvalue()
    assert f"{INNER}: {inner_listed} listed, {inner_listed} ok, " in text
    assert f"manifest-sha256.txt: {bag_listed} listed, {bag_listed} ok, " in text


def test_an_unchecked_inner_signature_is_not_a_passed_stage(tmp_path: Path) -> None:
    """With no trust option, the inner manifest's signature is listed but not checked: the
    stage verified nothing, so it is nothing-to-check, as for the same archive unbagged
    (merging the bag's unsigned manifest's note made it 'passed, 0 of 1 verified')."""
    bag, _ = signed_bag(tmp_path)
    report = verify(bag, Options(stages=frozenset({"integrity"})))
    assert [(s.name, s.status) for s in report.signatures] == [
        ("data/manifest.sha256.sig", "not-checked")
    ]
    assert report.authenticity.status is StageStatus.NOTHING_TO_CHECK
    assert schema_valid(report)["authenticity"]["status"] == "nothing-to-check"


def test_naming_the_bags_own_manifest_still_checks_the_archive_inside(tmp_path: Path) -> None:
    """`--manifest manifest-sha256.txt` (one of the bag's own manifests) on a bag whose payload
    is an evidence archive read the bag as a plain archive: the payload's manifest was never
    looked at, and a record changed before bagging passed. The bag is read as a bag (which
    checks the manifest named) and the archive inside it as well."""
    bag, trust = signed_bag(tmp_path, "record")
    for manifest in ("manifest-sha256.txt", "tagmanifest-sha256.txt"):
        source = open_source(bag, manifest=manifest)
        assert isinstance(source, BagSource), manifest
        report = verify(bag, Options(manifest=manifest, trust=Trust(allowed_signers=trust)))
        assert not report.ok
        found = [(f.code, f.path, f.manifest) for f in report.integrity.findings]
        assert ("manifest.mismatch", "data/evidence/a.json", INNER) in found, found


TAG_FILES = {"bagit.txt", "bag-info.txt", "manifest-sha256.txt", "tagmanifest-sha256.txt"}


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every file inspected (read and hashed) from here on, as its run names it."""
    from verifier.inspect import inspect as inspecting

    real = inspecting.inspect
    seen: list[str] = []

    def counting(context: Any, task: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(task.name)
        return real(context, task, *args, **kwargs)

    monkeypatch.setattr(inspecting, "inspect", counting)
    return seen


@pytest.mark.parametrize("change", ["", "record"])
def test_each_file_of_the_payload_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """One read per file: the archive inside the bag is checked against its manifest with
    the digests of the bytes the bag's manifest was checked against (read twice, a file
    could change between the reads and each manifest pass over other bytes)."""
    root, trust = signed_bag(tmp_path, change)
    seen = _reads(monkeypatch)
    report = check(root, trust)
    assert (report.integrity.status is StageStatus.PASSED) is (change == "")
    assert report.authenticity.status is StageStatus.PASSED
    assert "data/evidence/a.json" in seen
    # the archive's run names its files inside the payload: each is the bag's data/ file
    as_bag = [n if n.startswith("data/") or n in TAG_FILES else f"data/{n}" for n in seen]
    assert sorted(as_bag) == sorted(set(as_bag))
    if change:  # the archive's own verdict still comes from those bytes
        codes = {(f.code, f.path) for f in report.integrity.errors}
        assert ("manifest.mismatch", "data/evidence/a.json") in codes


def test_an_archive_manifest_that_changed_between_the_reads_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The archive's manifest is read twice (a payload file of the bag, then the manifest the
    archive's run reads first): bytes that differ between the two are ``manifest.changed``,
    never a pass over two different manifests."""
    from verifier import pipeline

    root, trust = signed_bag(tmp_path)
    clean = check(root, trust, stages=frozenset({"integrity"}))
    assert clean.ok and clean.integrity.findings == []
    real = pipeline._payload_digests

    def changed(report: Report, prefix: str) -> dict[str, tuple[str, int]]:
        found = real(report, prefix)
        sha, size = found["manifest.sha256"]
        found["manifest.sha256"] = ("0" * 64 if sha != "0" * 64 else "1" * 64, size)
        return found

    monkeypatch.setattr(pipeline, "_payload_digests", changed)
    report = check(root, trust, stages=frozenset({"integrity"}))
    assert not report.ok and report.integrity.status is StageStatus.FAILED
    found = [f for f in report.integrity.findings if f.code == "manifest.changed"]
    assert [(f.path, f.manifest) for f in found] == [(INNER, INNER)]
    schema_valid(report)
