"""BagIt bags: a bag made by the reference tool (bagit-python, in the test extra) verifies the
same as bagit's own validation, intact and for each kind of damage."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.archives import tar_tree, zip_tree
from tests.conftest import require_module, write_archive
from verifier import verify
from verifier.pipeline import UsageError, run
from verifier.sources.bagit import decode_name, parse_tags

bagit: Any = require_module("bagit")

PAYLOAD = {
    "a.txt": b"alpha\n",
    "sub/b.json": b'{"b": 1}\n',
    "sub/deeper/c.bin": bytes(range(256)),
    "name with spaces.txt": b"spaces\n",
}

# bagit's own error details, and the finding code that says the same thing
DETAIL_CODES = {
    "ChecksumMismatch": "manifest.mismatch",
    "FileMissing": "manifest.missing",
    "UnexpectedFile": "manifest.unlisted",
}


def make_bag(root: Path, checksums: tuple[str, ...] = ("sha256",)) -> Path:
    write_archive(root, PAYLOAD, manifest=False)
    bagit.make_bag(str(root), checksums=list(checksums))
    return root


def bagit_says(path: Path) -> tuple[bool | None, set[tuple[str, str]], bool]:
    """bagit's verdict (None: it cannot open the bag), the (code, path) pairs of its details
    and of its completeness comparison, and whether the Payload-Oxum check failed."""
    try:
        bag = bagit.Bag(str(path))
    except bagit.BagError:
        return None, set(), False
    pairs: set[tuple[str, str]] = set()
    only_in_manifests, only_on_fs = bag.compare_manifests_with_fs()
    pairs |= {("manifest.missing", p) for p in only_in_manifests}
    pairs |= {("manifest.unlisted", p) for p in only_on_fs}
    # bagit stops at the first failing phase (Payload-Oxum, bagit.txt, completeness) while the
    # verifier reports every problem: ask bagit's checksum phase on its own as well.
    try:
        bag._validate_entries(1)
    except bagit.BagValidationError as exc:  # an absent file is "Could not read": missing
        pairs |= {
            (DETAIL_CODES[type(d).__name__], d.path)
            for d in exc.details
            if not str(getattr(d, "found", "")).startswith("Could not read")
        }
    try:
        bag.validate()
    except bagit.BagValidationError as exc:
        for detail in exc.details:
            pairs.add((DETAIL_CODES[type(detail).__name__], detail.path))
        return False, pairs, "Payload-Oxum" in exc.message
    except bagit.BagError:
        return False, pairs, False
    return True, pairs, False


def we_say(path: Path) -> tuple[bool | None, set[tuple[str, str]], bool]:
    try:
        report = verify(path)
    except UsageError:
        return None, set(), False
    pairs = {(f.code, f.path) for f in report.findings if f.code in DETAIL_CODES.values()}
    oxum = any(f.code == "bag.oxum-mismatch" for f in report.findings)
    return report.ok, pairs, oxum


def modify(name: str, data: bytes) -> Callable[[Path], object]:
    return lambda bag: (bag / name).write_bytes(data)


def delete(name: str) -> Callable[[Path], object]:
    return lambda bag: (bag / name).unlink()


def edit_manifest_digest(bag: Path) -> None:
    path = bag / "manifest-sha256.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    digest = lines[0][:64]
    lines[0] = ("0" if digest[0] != "0" else "1") + lines[0][1:]
    path.write_text("".join(lines), encoding="utf-8")


def drop_manifest_line(bag: Path) -> None:
    path = bag / "manifest-sha256.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[1:]), encoding="utf-8")


# each damages the bag at the path given (what it returns is not used)
DAMAGE: dict[str, Callable[[Path], object]] = {
    "intact": lambda bag: None,
    "payload changed, same size": modify("data/a.txt", b"alphA\n"),
    "payload changed, other size": modify("data/a.txt", b"alpha, longer\n"),
    "payload file deleted": delete("data/sub/b.json"),
    "payload file added": modify("data/extra.txt", b"extra\n"),
    "manifest digest edited": edit_manifest_digest,
    "manifest line dropped": drop_manifest_line,
    "bag-info.txt edited": lambda bag: (bag / "bag-info.txt").write_text(
        (bag / "bag-info.txt").read_text(encoding="utf-8") + "Contact-Name: Someone\n",
        encoding="utf-8",
    ),
    "bagit.txt with a byte-order mark": lambda bag: (bag / "bagit.txt").write_bytes(
        b"\xef\xbb\xbf" + (bag / "bagit.txt").read_bytes()
    ),
    "tag file deleted": delete("bag-info.txt"),
    "payload folder renamed": lambda bag: (bag / "data").rename(bag / "payload"),
    "bagit.txt deleted": delete("bagit.txt"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_we_agree_with_bagit(tmp_path: Path, damage: str) -> None:
    bag = make_bag(tmp_path / "bag")
    DAMAGE[damage](bag)
    theirs = bagit_says(bag)
    ours = we_say(bag)
    assert ours[0] == theirs[0], (ours, theirs)
    assert ours[1] == theirs[1], (ours, theirs)
    if theirs[2]:
        assert ours[2], "bagit refused the Payload-Oxum; so must we"


def test_each_damage_is_seen(tmp_path: Path) -> None:
    """The comparison above is not vacuous: every damage but none makes the bag invalid."""
    for damage, apply in DAMAGE.items():
        bag = make_bag(tmp_path / damage.replace(" ", "-"))
        apply(bag)
        assert (we_say(bag)[0] is True) == (damage == "intact"), damage


def test_a_bag_in_a_zip_or_tarball_verifies_like_the_folder(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag")
    folder = verify(bag)
    assert folder.ok
    for location in (
        zip_tree(bag, tmp_path / "bag.zip", prefix="bag/"),
        tar_tree(bag, tmp_path / "bag.tar.gz"),
    ):
        result = run(location)
        assert result.report.findings == []
        assert result.source["kind"] == "bag"
        assert [f.to_dict() for f in result.report.files] == [f.to_dict() for f in folder.files]


def test_other_algorithms_are_checked(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag", ("sha256", "sha512"))
    result = run(bag)
    assert result.report.ok
    assert result.source["uncheckedManifests"] == []
    assert result.source["manifests"] == {
        "manifest-sha256.txt": "sha256",
        "manifest-sha512.txt": "sha512",
        "tagmanifest-sha256.txt": "sha256",
        "tagmanifest-sha512.txt": "sha512",
    }


def test_a_bag_with_only_a_sha512_manifest_is_valid(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag", ("sha512",))
    assert verify(bag).ok
    (bag / "data" / "a.txt").write_bytes(b"alphA\n")
    assert {(f.code, f.path) for f in verify(bag).findings} == {("manifest.mismatch", "data/a.txt")}


def test_a_bag_without_a_payload_manifest_says_so_and_nothing_more(tmp_path: Path) -> None:
    """Its payload is not read, so the Payload-Oxum is not compared with an unread payload
    (which would claim the payload is empty)."""
    bag = make_bag(tmp_path / "bag", ("sha512",))
    (bag / "manifest-sha512.txt").unlink()
    findings = [f for f in verify(bag).findings if f.code != "manifest.missing"]
    assert [(f.code, f.path) for f in findings] == [("bag.malformed", "manifest-sha256.txt")]
    assert "not checked" in findings[0].message


def test_an_empty_payload(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    bagit.make_bag(str(root), checksums=["sha256"])  # writes no payload manifest at all
    assert we_say(root)[0] is False is bagit_says(root)[0]
    assert [f.code for f in verify(root).findings] == ["bag.malformed"]
    (root / "manifest-sha256.txt").write_bytes(b"")  # an empty one is a valid empty bag
    assert bagit.Bag(str(root)).is_valid()
    assert verify(root).ok


def test_the_payload_oxum_is_checked(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag")
    info = bag / "bag-info.txt"
    text = info.read_text(encoding="utf-8")
    (bag / "data" / "a.txt").write_bytes(b"alpha, longer\n")
    report = verify(bag)
    assert "bag.oxum-mismatch" in {f.code for f in report.findings}
    assert "Payload-Oxum" in text


def test_manifest_names_are_percent_decoded() -> None:
    assert decode_name("data/a%0Ab%0dc%25d") == "data/a\nb\rc%d"
    assert decode_name("data/100%") == "data/100%"


def test_tag_lines() -> None:
    tags, problem = parse_tags(b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
    assert problem is None and tags["BagIt-Version"] == "1.0"
    assert parse_tags(b"\xef\xbb\xbfBagIt-Version: 1.0\n")[1] is None  # as bagit-python
    assert parse_tags(b"BagIt-Version : 1.0\n")[1] is None  # as bagit-python
    assert parse_tags(b"no colon here\n")[1] is not None
    tags, _ = parse_tags(b"Long: first\n  second\n")
    assert tags["Long"] == "first second"


def test_a_bag_copy_is_not_changed(tmp_path: Path) -> None:
    bag = make_bag(tmp_path / "bag")
    copy = tmp_path / "copy"
    shutil.copytree(bag, copy)
    verify(bag)
    assert sorted(p.read_bytes() for p in bag.rglob("*") if p.is_file()) == sorted(
        p.read_bytes() for p in copy.rglob("*") if p.is_file()
    )
