"""Hostile BagIt bags through the real CLI: issue 12 items 10-12 and issue 11 item 7 (the
Payload-Oxum), each with its neighbouring variants. Every bag is written here, byte by byte
(no oracle needed), and every run is held to the safety contract: no crash, no hang, no write,
bounded memory, a JSON report valid against its schema, the expected finding codes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.archives import zip_tree
from tests.hostile.harness import assert_safe, run_cli

PAYLOAD = {"data/a.txt": b"alpha\n", "data/sub/b.json": b'{"b": 1}\n'}
DECLARATION = "BagIt-Version: 1.0\nTag-File-Character-Encoding: {encoding}\n"


def write_bag(
    root: Path,
    algorithms: Iterable[str] = ("sha256",),
    *,
    encoding: str = "UTF-8",
    declaration: str | None = None,
    info: str | None = None,
    fetch: str | None = None,
    payload: dict[str, bytes] | None = None,
    separator: str = "  ",
) -> Path:
    """A bag: payload, one payload and one tag manifest per algorithm, in ``encoding``."""
    files = PAYLOAD if payload is None else payload
    codec = encoding
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "data").mkdir(parents=True, exist_ok=True)
    decl = declaration if declaration is not None else DECLARATION.format(encoding=encoding)
    (root / "bagit.txt").write_bytes(decl.encode("utf-8"))
    size = sum(len(d) for d in files.values())
    text = info if info is not None else f"Payload-Oxum: {size}.{len(files)}\n"
    (root / "bag-info.txt").write_bytes(text.encode(codec))
    if fetch is not None:
        (root / "fetch.txt").write_bytes(fetch.encode(codec))
    for algorithm in algorithms:
        lines = "".join(
            f"{hashlib.new(algorithm, d).hexdigest()}{separator}{n}\n"
            for n, d in sorted(files.items())
        )
        (root / f"manifest-{algorithm}.txt").write_bytes(lines.encode(codec))
    for algorithm in algorithms:
        tags = sorted(p for p in root.iterdir() if p.is_file() and "tagmanifest" not in p.name)
        lines = "".join(
            f"{hashlib.new(algorithm, p.read_bytes()).hexdigest()}  {p.name}\n" for p in tags
        )
        (root / f"tagmanifest-{algorithm}.txt").write_bytes(lines.encode(codec))
    return root


def check(bag: Path) -> list[str]:
    return ["check", str(bag), "--format", "json"]


# 12.10: every algorithm's manifests are checked; none is malformed for lacking SHA-256
@pytest.mark.parametrize(
    "algorithms", [("md5",), ("sha1",), ("sha512",), ("sha512", "md5"), ("blake2b", "sha3_256")]
)
def test_a_bag_without_sha256_is_valid(tmp_path: Path, algorithms: tuple[str, ...]) -> None:
    bag = write_bag(tmp_path / "bag", algorithms)
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=0)
    note = run.report()["stages"][0].get("note", "")
    assert all(f"manifest-{a}.txt" in note for a in algorithms)


@pytest.mark.parametrize("algorithms", [("md5",), ("sha512",), ("sha256", "md5")])
def test_a_flipped_byte_fails_every_algorithm(tmp_path: Path, algorithms: tuple[str, ...]) -> None:
    bag = write_bag(tmp_path / "bag", algorithms)
    (bag / "data/a.txt").write_bytes(b"alphA\n")
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["manifest.mismatch"])
    found = run.findings("manifest.mismatch")
    assert len(found) == len(algorithms)
    # each names the manifest it is against (none: the report's), by its own algorithm
    against = {}
    for f in found:
        name = f.get("manifest") or run.report()["manifest"]
        against[name] = f["message"].split(" is ")[0]
    labels = {"sha256": "SHA-256", "sha512": "SHA-512", "md5": "MD5"}
    assert against == {f"manifest-{a}.txt": labels[a] for a in algorithms}


def test_a_file_one_payload_manifest_lacks_fails(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "bag", ("sha256", "sha512"))
    lines = (bag / "manifest-sha512.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (bag / "manifest-sha512.txt").write_text(lines[0], encoding="utf-8")
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["manifest.unlisted"])


def test_an_unknown_algorithm_manifest_is_a_finding(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "bag", ("sha256",))
    (bag / "manifest-shake_128.txt").write_text("00  data/a.txt\n", encoding="utf-8")
    (bag / ("tagmanifest-x" + "y" * 200 + ".txt")).write_text("", encoding="utf-8")
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["bag.malformed"])


def test_a_huge_manifest_line_is_bounded(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "bag", ("sha512",))
    with (bag / "manifest-sha512.txt").open("a", encoding="utf-8") as handle:
        handle.write("f" * 128 + "  data/" + "x" * 5_000_000 + "\n")
        handle.write(("0" * 5000 + " data/y\n") * 2000)
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["manifest.malformed", "manifest.not-regular"])


# 12.11: fetch.txt is parsed, never fetched
@pytest.mark.parametrize(
    "path", ["../../README.md", "/tmp/x", "~/x", "~root/x", "data/../../x", "C:\\x", "bag-info.txt"]
)
def test_fetch_paths_outside_the_payload_are_invalid(tmp_path: Path, path: str) -> None:
    bag = write_bag(tmp_path / "bag", fetch=f"https://example.invalid/x 5 {path}\n")
    run = run_cli(check(bag), watch=[bag, tmp_path])
    assert_safe(run, rc=1, codes=["bag.fetch-invalid"])
    assert [f["line"] for f in run.findings("bag.fetch-invalid")] == [1]


def test_fetch_in_a_zip_is_parsed_too(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "bag", fetch="https://example.invalid/x - ~root/.ssh/id\n")
    location = zip_tree(bag, tmp_path / "bag.zip", prefix="bag/")
    run = run_cli(["check", str(location), "--format", "json"], watch=[tmp_path])
    assert_safe(run, rc=1, codes=["bag.fetch-invalid"])


def test_an_absent_file_to_fetch_is_not_fetched_never_ok(tmp_path: Path) -> None:
    bag = write_bag(
        tmp_path / "bag", ("sha512",), fetch="https://example.invalid/b - data/sub/b.json\n"
    )
    (bag / "data/sub/b.json").unlink()
    run = run_cli(check(bag), watch=[bag, tmp_path])
    assert_safe(run, rc=1, codes=["bag.not-fetched"])
    assert not run.findings("manifest.missing")
    statuses = {f["path"]: f["status"] for f in run.report()["files"]}
    assert statuses["data/sub/b.json"] == "not-fetched"


def test_a_huge_fetch_file_is_bounded(tmp_path: Path) -> None:
    lines = "".join(f"https://example.invalid/{i} - ../{i}\n" for i in range(200_000))
    bag = write_bag(tmp_path / "bag", fetch=lines + "x" * 3_000_000 + "\n")
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["bag.fetch-invalid"])
    assert len(run.findings("bag.fetch-invalid")) <= 25


def test_many_unlisted_files_to_fetch_are_bounded(tmp_path: Path) -> None:
    lines = "".join(f"https://example.invalid/{i} - data/n{i}\n" for i in range(100_000))
    bag = write_bag(tmp_path / "bag", fetch=lines)
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["bag.fetch-invalid"])
    found = run.findings("bag.fetch-invalid")
    assert len(found) == 20 and "99980 more" in found[-1]["message"]


# 12.12: the declared encoding, the exact declaration, blank runs in manifest lines
@pytest.mark.parametrize("encoding", ["UTF-16", "UTF-16BE", "ISO-8859-1", "cp1252"])
def test_a_bag_in_its_declared_encoding_is_valid(tmp_path: Path, encoding: str) -> None:
    payload = {"data/caf\u00e9.txt": b"cafe\n", **PAYLOAD}
    bag = write_bag(tmp_path / "bag", ("sha256", "md5"), encoding=encoding, payload=payload)
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=0)


@pytest.mark.parametrize(
    "encoding", ["rot13", "hex", "no-such-codec", "x" * 5000, "UTF-8\u202e", "../../etc"]
)
def test_an_unusable_encoding_is_a_finding(tmp_path: Path, encoding: str) -> None:
    bag = write_bag(tmp_path / "bag")
    (bag / "bagit.txt").write_bytes(DECLARATION.format(encoding=encoding).encode("utf-8"))
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["bag.malformed"])


def test_tag_files_that_are_not_valid_in_their_encoding(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "bag", encoding="UTF-16")
    (bag / "manifest-sha256.txt").write_bytes(b"\xff\xfe\x00\xd8")  # a lone surrogate
    (bag / "bag-info.txt").write_bytes(b"\xff")
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["manifest.malformed", "bag.malformed"])


@pytest.mark.parametrize(
    "declaration",
    [
        "BagIt-Version : 1.0\nTag-File-Character-Encoding: UTF-8\n",
        "BagIt-Version: 1.0\nTag-File-Character-Encoding : UTF-8\n",
        "BagIt-Version:1.0\nTag-File-Character-Encoding: UTF-8\n",  # (a tab is allowed)
        "BagIt-Version: 1.0\n\nTag-File-Character-Encoding: UTF-8\n",
        "BagIt-Version: " + "9" * 5000 + ".0\nTag-File-Character-Encoding: UTF-8\n",
        "BagIt-Version: 2.0\nTag-File-Character-Encoding: UTF-8\n",
        "\ufeffBagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n",
        "",
    ],
)
def test_the_declaration_has_one_exact_form(tmp_path: Path, declaration: str) -> None:
    bag = write_bag(tmp_path / "bag", declaration=declaration)
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["bag.malformed"])


@pytest.mark.parametrize("separator", [" ", "   ", "\t", " \t  \t"])
def test_any_blank_run_separates_digest_and_path(tmp_path: Path, separator: str) -> None:
    bag = write_bag(tmp_path / "bag", ("sha256", "sha1"), separator=separator)
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=0)


# 11.7: a Payload-Oxum with thousands of digits, and its neighbours
@pytest.mark.parametrize(
    "oxum",
    ["9" * 5000 + ".2", "15." + "9" * 5000, "1" * 21 + ".2", "\u0661\u0665.\u0662", "15.2.0", "15"],
)
def test_a_malformed_oxum_is_a_finding(tmp_path: Path, oxum: str) -> None:
    bag = write_bag(tmp_path / "bag", ("sha512",), info=f"Payload-Oxum: {oxum}\n")
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["bag.malformed"])
    assert [f["path"] for f in run.findings()] == ["bag-info.txt"]


def test_many_bad_info_lines_are_bounded(tmp_path: Path) -> None:
    info = "not a label and a value\n" * 100_000
    bag = write_bag(tmp_path / "bag", info=info)
    run = run_cli(check(bag), watch=[bag])
    assert_safe(run, rc=1, codes=["bag.malformed"])
    assert len(run.findings("bag.malformed")) <= 25
