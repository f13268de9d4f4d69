"""What ``init --ci github`` and ``init --pre-commit`` add to a new archive: a GitHub Actions
workflow and a pre-commit configuration that run ``verify-evidence check`` as written.

* the workflow installs the verifier with pip (``install``: a requirement, by default this
  version, ``verifier==X``; give another, such as a ``git+https://...@REV`` URL or a wheel,
  where the package index does not have it), checks the archive at the repository's root
  with annotations, SARIF, JUnit and a step summary, and uploads the SARIF;
* the pre-commit configuration is a ``repo: local`` hook of ``language: system``: it runs the
  ``verify-evidence`` already installed (nothing is downloaded), on every commit that
  touches the manifest, ``evidence/`` or ``schemas/``.
"""

from __future__ import annotations

import json

from verifier.errors import UsageError
from verifier.version import __version__

WORKFLOW = ".github/workflows/verify-evidence.yml"
PRE_COMMIT = ".pre-commit-config.yaml"
CI_CHOICES = ("github",)

_WORKFLOW = """\
# Verify this repository's evidence archive on every push and pull request.
# Written by 'verify-evidence init --ci github'.
name: verify-evidence

on:
  push:
  pull_request:

permissions:
  contents: read
  security-events: write  # to upload SARIF to code scanning

jobs:
  verify:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install verify-evidence
        run: python -m pip install {install}
      - name: Verify the archive
        run: |
          verify-evidence check . \\
            --format github \\
            --output sarif=verify-evidence.sarif \\
            --output junit=verify-evidence.junit.xml \\
            --output markdown=verify-evidence.md
      - name: Step summary (including the per-case outcome table)
        if: always()
        run: cat verify-evidence.md >> "$GITHUB_STEP_SUMMARY"
      - name: Upload SARIF
        if: always()
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: verify-evidence.sarif
"""

_PRE_COMMIT = """\
# Verify the evidence archive before each commit that touches it.
# Written by 'verify-evidence init --pre-commit'. It runs the verify-evidence on PATH
# (language: system): install the verifier first. pre-commit stashes unstaged changes,
# so the check reads what is being committed.
repos:
  - repo: local
    hooks:
      - id: verify-evidence
        name: verify-evidence check
        entry: verify-evidence check
        args: [--format, text]
        language: system
        pass_filenames: false
        files: ^(manifest\\.sha256|evidence/.*|schemas/.*)$
"""


def _requirement(install: str | None) -> str:
    spec = install if install is not None else f"verifier=={__version__}"
    if not spec or not spec.isprintable() or len(spec) > 300 or spec.strip() != spec:
        raise UsageError("--install must be one pip requirement on one line")
    return json.dumps(spec)  # a quoted YAML scalar that the shell reads as one word


def extra_files(ci: str | None, pre_commit: bool, install: str | None) -> list[tuple[str, bytes]]:
    """The CI files asked for, as (relative path, bytes)."""
    out: list[tuple[str, bytes]] = []
    if ci is not None:
        if ci not in CI_CHOICES:
            raise UsageError(f"--ci {ci}: not one of {', '.join(CI_CHOICES)}")
        out.append((WORKFLOW, _WORKFLOW.format(install=_requirement(install)).encode()))
    elif install is not None:
        raise UsageError("--install is an option of --ci github")
    if pre_commit:
        out.append((PRE_COMMIT, _PRE_COMMIT.encode()))
    return out
