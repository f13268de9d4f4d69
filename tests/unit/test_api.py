"""The Python API: ``verifier.verify`` and the report's types, as documented in docs/api.md."""

from __future__ import annotations

from pathlib import Path

import pytest

import verifier
from tests.conftest import REPO


def test_verify_returns_a_report_without_printing(capsys: pytest.CaptureFixture[str]) -> None:
    report = verifier.verify(REPO)
    assert isinstance(report, verifier.Report)
    assert report.ok
    assert all(isinstance(s, verifier.StageResult) for s in report.stages)
    assert capsys.readouterr() == ("", "")


def test_keyword_settings_are_options() -> None:
    report = verifier.verify(REPO, scope=("evidence",))
    assert report.scope == ["evidence"]
    with pytest.raises(TypeError):
        verifier.verify(REPO, verifier.Options(), scope=("evidence",))


def test_usage_error_when_it_cannot_run(tmp_path: Path) -> None:
    with pytest.raises(verifier.UsageError):
        verifier.verify(tmp_path)


def test_exported_names() -> None:
    for name in verifier.__all__:
        assert getattr(verifier, name) is not None
    with pytest.raises(AttributeError):
        verifier.no_such_name  # noqa: B018


def test_the_guides_pytest_example_runs(tmp_path: Path) -> None:
    readme = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    start = readme.index("```python\n# tests/test_evidence.py")
    code = readme[start + len("```python\n") : readme.index("```", start + 10)]
    namespace: dict[str, object] = {}
    exec(compile(code.replace('"evidence-archive"', repr(str(REPO))), "readme", "exec"), namespace)
    test = namespace["test_evidence_archive_verifies"]
    assert callable(test)
    test()


def test_all_lists_every_lazy_name() -> None:
    assert set(verifier.__all__) == set(verifier._LAZY) | {"__version__", "verify"}
