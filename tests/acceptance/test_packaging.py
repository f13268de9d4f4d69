"""The distribution ``verify-evidence``: ``python -m build`` makes an sdist and, from it, a
wheel; they hold the package and every data file it reads at run time (the ``init``
templates, ``py.typed``), the LICENSE, and nothing of the tests; the wheel, installed in a
fresh virtual environment, runs ``--version``, ``check`` (text and JSON) and ``init`` from a
folder outside the clone.

The build runs with build isolation: it fetches the build-system's requirements (setuptools)
from the package index, as ``pip install .`` does. The fresh venv installs the wheel alone
(``--no-index --no-deps``) and finds the dependencies in this environment's site-packages
through a ``.pth`` file (``--system-site-packages`` would show it the base interpreter's,
not this venv's), so nothing else is fetched.
"""

from __future__ import annotations

import email.parser
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import REPO, copy_bundled, require_module
from verifier.version import __version__

# slow: builds the sdist and the wheel, installs it in a fresh venv (-m "not slow" leaves it out)
pytestmark = pytest.mark.slow

# the clone as a fresh checkout has it (tests/ too: leaving it out of the sdist is checked)
IGNORE = shutil.ignore_patterns(
    ".*", "__pycache__", "*.pyc", "*.egg-info", "build", "dist", "node_modules"
)


# a pip requirement naming the import package as if it were the distribution (PyPI's
# "verifier" is another project): "verifier[dask]", "verifier==0.1", "verifier @ git+...",
# "pip install verifier"
WRONG_NAME = re.compile(r"(?<![\w./-])verifier(\[|==|\s@\s)|pip install\s+['\"]?verifier\b(?!-)")
# where install hints are: the package (messages, help, templates), docs, examples, CI, the
# benchmarks, the pre-commit hooks, the action (README.md is rewritten apart, issue 36)
HINTED = (
    "verifier",
    "docs",
    "examples",
    "benchmarks",
    ".ci",
    ".pre-commit-hooks.yaml",
    "action.yml",
)


def test_every_install_hint_names_the_distribution() -> None:
    """Each ``pip install`` hint or requirement names ``verify-evidence``, never ``verifier``."""
    wrong: list[str] = []
    looked = 0
    for part in HINTED:
        root = REPO / part
        for path in [root] if root.is_file() else sorted(root.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            looked += 1
            for n, line in enumerate(text.splitlines(), 1):
                if WRONG_NAME.search(line):
                    wrong.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert looked > 100  # it read the package at least
    assert not wrong, "\n".join(wrong)


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, (args, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sdist and the wheel built from it, in a folder of their own."""
    require_module("build", "the build frontend is not installed (pip install build)")
    src = tmp_path_factory.mktemp("clone") / "src"
    shutil.copytree(REPO, src, ignore=IGNORE)
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--outdir", out, src, cwd=src)
    yield out


def _package_data() -> set[str]:
    """Every file of the package that is not Python source: each must ship."""
    return {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "verifier").rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }


def test_the_wheel_holds_the_package_its_data_and_the_license(dist: Path) -> None:
    (wheel,) = dist.glob("verify_evidence-*-py3-none-any.whl")
    assert wheel.name == f"verify_evidence-{__version__}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    assert not [n for n in names if not n.startswith(("verifier/", "verify_evidence-"))], names
    assert _package_data() <= names
    assert {"verifier/py.typed", "verifier/templates/init/evidence/assertions.json"} <= names
    sources = {p.relative_to(REPO).as_posix() for p in (REPO / "verifier").rglob("*.py")}
    assert sources <= names
    info = f"verify_evidence-{__version__}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    with zipfile.ZipFile(wheel) as zf:
        meta = email.parser.Parser().parsestr(zf.read(f"{info}/METADATA").decode("utf-8"))
        license_text = zf.read(f"{info}/licenses/LICENSE").decode("utf-8")
        entry_points = zf.read(f"{info}/entry_points.txt").decode("utf-8")
    assert meta["Name"] == "verify-evidence" and meta["Version"] == __version__
    assert meta["License-Expression"] == "MIT"
    assert {"dask", "zstd", "test"} <= set(meta.get_all("Provides-Extra") or [])
    assert license_text.startswith("MIT License") and "verifier developers" in license_text
    assert "verify-evidence = verifier.cli:run" in entry_points


def test_the_sdist_holds_the_sources_and_no_tests(dist: Path) -> None:
    (sdist,) = dist.glob("verify_evidence-*.tar.gz")
    top = f"verify_evidence-{__version__}"
    with tarfile.open(sdist) as tf:
        names = {n.removeprefix(top + "/") for n in tf.getnames()}
    assert not [n for n in names if n == "tests" or n.startswith("tests/")], sorted(names)
    assert {"LICENSE", "README.md", "pyproject.toml", "PKG-INFO"} <= names
    assert _package_data() <= names


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed in it; returns its bin folder."""
    venv = tmp_path_factory.mktemp("venv")
    _run(sys.executable, "-m", "venv", "--clear", venv, cwd=venv)
    python = venv / "bin" / "python"
    purelib = _run(
        python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=venv
    ).strip()
    # this environment's dependencies, after the venv's own packages (so not its verifier)
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(purelib, "zz-test-dependencies.pth").write_text(
        "".join(f"{p}\n" for p in sorted(ours)), encoding="utf-8"
    )
    (wheel,) = dist.glob("*.whl")
    _run(python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", wheel, cwd=venv)
    return venv / "bin"


def _outside(tmp: Path) -> dict[str, str]:
    """An environment that cannot reach the clone: no PYTHONPATH, a HOME of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["HOME"] = str(tmp)
    return env


def _report_schema() -> dict[str, object]:
    """The JSON report's schema, wherever in the clone the project keeps it."""
    found = sorted(
        p
        for p in REPO.glob("**/report.schema.json")
        # the parts inside the clone only: the clone itself may sit in a folder named tests
        if not {".venv", "tests"} & set(p.relative_to(REPO).parts)
    )
    assert found, "no report.schema.json in the clone"
    loaded: dict[str, object] = json.loads(found[0].read_text(encoding="utf-8"))
    return loaded


def test_the_installed_wheel_runs_outside_the_clone(installed: Path, tmp_path: Path) -> None:
    env = _outside(tmp_path)
    where = _run(
        installed / "python",
        "-c",
        "import verifier; print(verifier.__file__)",
        cwd=tmp_path,
        env=env,
    )
    assert Path(where.strip()).is_relative_to(installed.parent), where  # not the clone's
    exe = installed / "verify-evidence"
    assert _run(exe, "--version", cwd=tmp_path, env=env).strip() == f"verify-evidence {__version__}"

    archive = copy_bundled(tmp_path / "archive")
    text = _run(exe, "check", "archive", "--format", "text", cwd=tmp_path, env=env)
    assert "passed" in text
    report = json.loads(_run(exe, "check", "archive", "--format", "json", cwd=tmp_path, env=env))
    Draft202012Validator(_report_schema()).validate(report)
    assert report["ok"] is True and report["files"]
    assert archive.is_dir()

    _run(exe, "init", "new-archive", "--ci", "github", cwd=tmp_path, env=env)
    assert (tmp_path / "new-archive/.github/workflows/verify-evidence.yml").is_file()
    _run(exe, "check", "new-archive", cwd=tmp_path, env=env)
    assert not (REPO / "new-archive").exists()
