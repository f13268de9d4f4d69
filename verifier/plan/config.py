"""Configuration files: ``verify-evidence.toml`` (top-level keys) or the
``[tool.verify-evidence]`` table of ``pyproject.toml``, read with the standard library's
:mod:`tomllib` and checked key by key before anything is verified.

Keys are the long option names of ``check`` without dashes in front (``fail-on``,
``max-bytes``). Each key has a type and a class:

* **safe** keys change how a run looks, never what it passes: ``format`` (standard output
  only), ``color``, ``quiet``, ``fail-on`` (its default is already the most lenient);
* **process** keys choose how many processes the verifier starts: ``jobs``, ``executor``
  (not the network-reaching ``dask`` scheduler); like relaxing keys, only the user's own
  configuration may set them, never one found inside the archive being verified;
* **relaxing** keys can make a run pass that would fail: ``ignore``, ``select``, ``baseline``,
  ``stages``, ``scope``, ``manifest``, ``base``, ``max-bytes``, ``max-ratio``;
* some options are **command-line only** and refused in a file: what is verified (``source``,
  ``git``, ``rev``), where files are written (``output``, ``write-baseline``) and a network
  address (``scheduler``).

A configuration file is plain data: no key names code, a module, a command or an output path.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from verifier.errors import UsageError
from verifier.suggest import did_you_mean

MAX_CONFIG_BYTES = 1 << 20
CONFIG_FILE = "verify-evidence.toml"
PYPROJECT = "pyproject.toml"
TABLE = ("tool", "verify-evidence")


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _strings(value: Any) -> list[str] | None:
    """A string (``"a,b"`` is split later, as on the command line) or a list of strings."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _boolean(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _number_text(value: Any) -> str | None:
    """An integer or a string (``"500M"``); parsed later by the option's own strict parser."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(value)
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class Key:
    param: str  # the check command's parameter it sets
    convert: Callable[[Any], Any]
    expect: str  # what the type error says it must be
    relaxing: bool
    processes: bool = False  # chooses how many processes (or threads) the verifier starts


KEYS: Mapping[str, Key] = MappingProxyType(
    {
        "format": Key("fmt", _string, "a format name (string)", False),
        "color": Key("color", _string, "auto, always or never (string)", False),
        "no-color": Key("no_color", _boolean, "true or false", False),
        "quiet": Key("quiet", _boolean, "true or false", False),
        "jobs": Key("jobs", _number_text, "a whole number", False, True),
        "executor": Key("executor", _string, "an executor name (string)", False, True),
        "fail-on": Key("fail_on", _string, "error, warning or note (string)", False),
        "ignore": Key("ignore", _strings, "a code or a list of codes", True),
        "select": Key("select", _strings, "a code or a list of codes", True),
        "baseline": Key("baseline", _string, "a file name (string)", True),
        "stages": Key("stages", _strings, "a list of stage names", True),
        "scope": Key("scope", _strings, "a folder or a list of folders", True),
        "manifest": Key("manifest", _string, "a file name (string)", True),
        "base": Key("base", _string, "a folder name (string)", True),
        "max-bytes": Key("max_bytes", _number_text, "a size such as 500M", True),
        "max-ratio": Key("max_ratio", _number_text, "a number", True),
    }
)

#: options a configuration file may not set, and why
COMMAND_LINE_ONLY: Mapping[str, str] = MappingProxyType(
    {
        "source": "what is verified is the command's argument",
        "git": "what is verified is the command's argument",
        "rev": "what is verified is the command's argument",
        "output": "a configuration file never chooses where files are written",
        "write-baseline": "a configuration file never chooses where files are written",
        "scheduler": "a network address is given on the command line only",
        "config": "a configuration file cannot name another",
    }
)


@dataclass(frozen=True, slots=True)
class Config:
    """A configuration file as read: its name as shown, and each key's converted value."""

    name: str
    values: Mapping[str, Any]

    @property
    def relaxing(self) -> tuple[str, ...]:
        return tuple(k for k in self.values if KEYS[k].relaxing)

    @property
    def processes(self) -> tuple[str, ...]:
        """The keys set that choose how many processes the verifier starts."""
        return tuple(k for k in self.values if KEYS[k].processes)


def _short(text: str) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return ascii(shown)[1:-1] if not shown.isprintable() else shown


def parse_config(data: bytes, name: str, pyproject: bool) -> Config | None:
    """The settings in ``data`` (``None``: a ``pyproject.toml`` without the table). Raises
    :class:`UsageError` for TOML that does not parse, an unknown key or a wrong type."""
    if len(data) > MAX_CONFIG_BYTES:
        raise UsageError(f"{name}: over 1 MiB, not read")
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{name}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{name}: not valid TOML ({_short(str(exc))})") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise UsageError(f"{name}: not read: its arrays or tables nest too deeply") from None
    except ValueError:  # an integer of over 4,300 digits (int's own limit)
        raise UsageError(f"{name}: not read: a number in it is too long to read") from None
    where = ""
    if pyproject:
        table: Any = document
        for part in TABLE:
            table = table.get(part) if isinstance(table, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise UsageError(f"{name}: [tool.verify-evidence] must be a table")
        document, where = table, "[tool.verify-evidence] "
    values: dict[str, Any] = {}
    for key, raw in document.items():
        if key in COMMAND_LINE_ONLY:
            raise UsageError(
                f"{name}: {where}{key} cannot be set in a file: {COMMAND_LINE_ONLY[key]}"
            )
        spec = KEYS.get(key)
        if spec is None:
            hint = did_you_mean(key, KEYS) or f" (keys: {', '.join(KEYS)})"
            raise UsageError(f"{name}: {where}unknown key {_short(key)!r}{hint}")
        value = spec.convert(raw)
        if value is None:
            raise UsageError(
                f"{name}: {where}{key} must be {spec.expect}, not {type(raw).__name__}"
            )
        values[key] = value
    if values.get("executor") == "dask":
        raise UsageError(f"{name}: {where}executor dask is given on the command line only")
    return Config(name, MappingProxyType(values))
