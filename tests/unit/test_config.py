"""Configuration files (issue 16): strict keys and types, command-line-only options refused,
relaxing keys known."""

from __future__ import annotations

import pytest

from verifier.errors import UsageError
from verifier.plan.config import COMMAND_LINE_ONLY, KEYS, parse_config


def test_a_file_parses_to_its_values() -> None:
    config = parse_config(
        b'fail-on = "warning"\njobs = 2\nignore = "manifest.unlisted"\nstages = ["integrity"]\n',
        "v.toml",
        False,
    )
    assert config is not None
    assert dict(config.values) == {
        "fail-on": "warning",
        "jobs": "2",
        "ignore": ["manifest.unlisted"],
        "stages": ["integrity"],
    }
    assert config.relaxing == ("ignore", "stages")


def test_pyproject_reads_its_table_only() -> None:
    text = b'[project]\nname = "x"\n[tool.verify-evidence]\nquiet = true\n'
    config = parse_config(text, "pyproject.toml", True)
    assert config is not None and dict(config.values) == {"quiet": True}
    assert parse_config(b'[project]\nname = "x"\n', "pyproject.toml", True) is None
    with pytest.raises(UsageError, match="must be a table"):
        parse_config(b"[tool]\nverify-evidence = 1\n", "pyproject.toml", True)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"fail_on = 'note'\n", "unknown key 'fail_on'; did you mean 'fail-on'"),
        (b"jobs = true\n", "jobs must be a whole number, not bool"),
        (b"ignore = [1]\n", "ignore must be a code or a list of codes, not list"),
        (b"quiet = 'yes'\n", "quiet must be true or false, not str"),
        (b"output = 'x'\n", "output cannot be set in a file"),
        (b"write-baseline = 'x'\n", "write-baseline cannot be set in a file"),
        (b"git = '.'\n", "git cannot be set in a file"),
        (b"scheduler = 'tcp://h:1'\n", "scheduler cannot be set in a file"),
        (b"executor = 'dask'\n", "executor dask is given on the command line only"),
        (b"x = \n", "not valid TOML"),
        (b"\xff", "not UTF-8"),
    ],
)
def test_bad_files_are_one_line_errors(text: bytes, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_config(text, "v.toml", False)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_no_key_writes_files_or_names_code() -> None:
    assert not {"output", "write-baseline", "plugin", "command"} & set(KEYS)
    assert set(COMMAND_LINE_ONLY).isdisjoint(KEYS)
    safe = {k for k, v in KEYS.items() if not v.relaxing and not v.processes}
    assert safe == {"format", "color", "no-color", "quiet", "fail-on"}
    assert {k for k, v in KEYS.items() if v.processes} == {"jobs", "executor"}
