"""``check --format in-toto``: an in-toto Statement v1 that validates against the schema
shipped under ``schemas/``, whose subject is the manifest's digest and whose predicate says
the result per stage, the policy's digest and who signed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema

from tests.conftest import REPO
from tests.signing import check, signer_line, small_archive, ssh_key, ssh_sign
from verifier.pipeline import verify
from verifier.views.check import CHECK

SCHEMA = json.loads((REPO / "verifier" / "schemas" / "in-toto-statement.schema.json").read_text())


def _statement(report: object) -> dict[str, object]:
    data: dict[str, object] = json.loads(CHECK["in-toto"](report))  # type: ignore[arg-type]
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(data, SCHEMA)
    return data


def test_the_bundled_archive_statement(archive: Path) -> None:
    data = _statement(verify(archive))
    manifest = (archive / "manifest.sha256").read_bytes()
    assert data["subject"] == [
        {"name": "manifest.sha256", "digest": {"sha256": hashlib.sha256(manifest).hexdigest()}}
    ]
    predicate = data["predicate"]
    assert isinstance(predicate, dict)
    assert predicate["result"] == "WARNED"  # unsigned: authenticity not checked
    assert predicate["warnedTests"] == ["authenticity"]
    assert predicate["passedTests"] == ["integrity", "validity", "consistency"]
    spec = (archive / "evidence" / "assertions.json").read_bytes()
    policy = [c for c in predicate["configuration"] if c["name"] == "evidence/assertions.json"]
    assert policy[0]["digest"] == {"sha256": hashlib.sha256(spec).hexdigest()}


def test_a_signed_archive_passes_and_names_the_signer(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    ssh_sign(key, root / "manifest.sha256")
    data = _statement(check(root, allowed_signers=signer_line(key).encode()))
    predicate = data["predicate"]
    assert isinstance(predicate, dict)
    assert "authenticity" in predicate["passedTests"]
    (sig,) = [c for c in predicate["configuration"] if c["annotations"].get("role") == "signature"]
    assert sig["annotations"]["signer"]["fingerprint"].startswith("SHA256:")


def test_a_tampered_archive_fails(archive: Path) -> None:
    (archive / "evidence" / "README.md").write_text("changed\n")
    predicate = _statement(verify(archive))["predicate"]
    assert isinstance(predicate, dict)
    assert predicate["result"] == "FAILED" and "integrity" in predicate["failedTests"]


def test_a_zip_or_a_commit_is_a_subject_beside_the_manifest(archive: Path, tmp_path: Path) -> None:
    """What was verified: the zip by its SHA-256, the git commit by its id, and the manifest."""
    from tests.archives import git, git_repo, zip_tree

    digest = hashlib.sha256((archive / "manifest.sha256").read_bytes()).hexdigest()
    manifest = {"name": "manifest.sha256", "digest": {"sha256": digest}}
    packed = zip_tree(archive, tmp_path / "a.zip")
    subject = _statement(verify(packed))["subject"]
    assert isinstance(subject, list) and len(subject) == 2
    assert subject[0]["digest"] == {"sha256": hashlib.sha256(packed.read_bytes()).hexdigest()}
    assert subject[1] == manifest
    repo = git_repo(archive)
    commit = git(repo, "rev-parse", "HEAD").strip()
    subject = _statement(verify(f"{repo}@HEAD"))["subject"]
    assert isinstance(subject, list) and len(subject) == 2
    assert subject[0]["digest"] == {"gitCommit": commit}
    assert subject[1] == manifest
