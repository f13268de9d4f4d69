"""What ``init --ci github`` and ``init --pre-commit`` add to a new archive: a GitHub Actions
workflow and a pre-commit configuration that run ``verify-evidence check`` as written.

* the workflow runs the verify-evidence GitHub Action (``action.yml`` at this project's root,
  :data:`ACTION`), which installs the version its ref names (``install``: another pip
  requirement or a wheel for its ``package`` input, e.g. ``verify-evidence==X``), checks the
  archive at the repository's root with annotations, SARIF, JUnit and a step summary; the
  workflow then uploads the SARIF;
* the pre-commit configuration is a ``repo: local`` hook of ``language: system``: it runs the
  ``verify-evidence`` already installed (nothing is downloaded), on every commit that
  touches the manifest, ``evidence/`` or ``schemas/``.
"""

from __future__ import annotations

import json

from verifier.errors import UsageError

WORKFLOW = ".github/workflows/verify-evidence.yml"
PRE_COMMIT = ".pre-commit-config.yaml"
CI_CHOICES = ("github",)
# the action as a workflow names it (OWNER: where the verify-evidence repository is published)
ACTION = "OWNER/verify-evidence@v1"

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
      - name: Verify the archive
        # annotations, SARIF and JUnit files, and the report (with the per-case outcome
        # table) in the step summary; replace OWNER with where verify-evidence is published
        uses: {action}
        with:
          source: .
          formats: github,sarif=verify-evidence.sarif,junit=verify-evidence.junit.xml
          summary: "true"{install}
      - name: Upload SARIF
        if: always()
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: verify-evidence.sarif
"""

_PRE_COMMIT = """\
# Verify the evidence archive before each commit that touches it.
# Written by 'verify-evidence init --pre-commit'. It runs the verify-evidence on PATH
# (language: system): install it first (pip install verify-evidence). pre-commit stashes
# unstaged changes, so the check reads what is being committed.
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


def _package(install: str | None) -> str:
    """The action's ``package`` input line, if --install names one."""
    if install is None:
        return ""  # the action installs its own checkout: the version its ref names
    if not install or not install.isprintable() or len(install) > 300 or install.strip() != install:
        raise UsageError("--install must be one pip requirement on one line")
    # a quoted YAML scalar; the action hands it to pip as one argument, never to a shell
    return "\n          package: " + json.dumps(install)


def extra_files(ci: str | None, pre_commit: bool, install: str | None) -> list[tuple[str, bytes]]:
    """The CI files asked for, as (relative path, bytes)."""
    out: list[tuple[str, bytes]] = []
    if ci is not None:
        if ci not in CI_CHOICES:
            raise UsageError(f"--ci {ci}: not one of {', '.join(CI_CHOICES)}")
        out.append((WORKFLOW, _WORKFLOW.format(action=ACTION, install=_package(install)).encode()))
    elif install is not None:
        raise UsageError("--install is an option of --ci github")
    if pre_commit:
        out.append((PRE_COMMIT, _PRE_COMMIT.encode()))
    return out
