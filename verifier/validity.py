"""Stage 2, validity: is every record well formed?

Records are parsed strictly from the bytes the integrity stage hashed. Each names its schema
by ``$id`` in its ``"$schema"`` member; schemas come only from the archive's ``schemas/``
folder (and the JSON Schema metaschemas bundled with ``jsonschema``). Any other reference is a
``schema.unresolved`` finding: the registry's retrieve function refuses, so no network call
can ever happen.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import SchemaError, ValidationError, _WrappedReferencingError
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

try:  # the metaschemas, bundled with jsonschema: offline
    from jsonschema_specifications import REGISTRY as _SPECIFICATIONS
except ImportError:  # pragma: no cover
    _SPECIFICATIONS = Registry()

from verifier.jsonparse import escape_token, loads_strict
from verifier.model import Finding, Stage, StageResult
from verifier.rfc3339 import is_rfc3339

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
MAX_ERRORS_PER_RECORD = 100


def format_checker() -> FormatChecker:
    checker = FormatChecker()
    checker.checks("date-time")(is_rfc3339)
    return checker


def _refuse(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


def pointer_of(path: Iterator[Any] | Any) -> str:
    return "".join("/" + escape_token(str(part)) for part in path)


@dataclass(slots=True)
class ValidityOutcome:
    stage: StageResult
    records: dict[str, Any] = field(default_factory=dict)  # path -> parsed value
    schemas: dict[str, str] = field(default_factory=dict)  # $id -> path


def is_schema_path(path: str, schemas_dir: str) -> bool:
    return path.startswith(schemas_dir + "/") and path.endswith(".json")


def check_validity(contents: dict[str, bytes], schemas_dir: str, is_record: Any) -> ValidityOutcome:
    """Parse and validate. ``contents`` maps archive paths to the bytes integrity hashed."""
    stage = StageResult(Stage.VALIDITY)
    out = ValidityOutcome(stage)
    findings = stage.findings
    resources: list[tuple[str, Resource[Any]]] = []
    schema_paths = sorted(p for p in contents if is_schema_path(p, schemas_dir))
    record_paths = sorted(p for p in contents if is_record(p) and p not in schema_paths)

    parsed_schemas: dict[str, Any] = {}
    for path in schema_paths:
        value = _parse(path, contents[path], findings)
        if value is None:
            continue
        if not isinstance(value, dict):
            findings.append(Finding("schema.bad-schema", path, "A schema must be a JSON object."))
            continue
        if value.get("$schema") != DRAFT_2020_12:
            findings.append(
                Finding(
                    "schema.bad-schema",
                    path,
                    f'Schemas must declare "$schema": "{DRAFT_2020_12}".',
                    pointer="/$schema",
                )
            )
            continue
        try:
            Draft202012Validator.check_schema(value)
        except SchemaError as exc:
            findings.append(
                Finding(
                    "schema.bad-schema",
                    path,
                    f"Not a valid Draft 2020-12 schema: {exc.message}",
                    pointer=pointer_of(exc.absolute_path),
                )
            )
            continue
        sid = value.get("$id")
        if not isinstance(sid, str) or not sid:
            findings.append(
                Finding(
                    "schema.bad-schema",
                    path,
                    'A schema in schemas/ must have an "$id" to be named by.',
                )
            )
            continue
        if sid in out.schemas:
            findings.append(
                Finding(
                    "schema.bad-schema", path, f"Its $id is also the $id of {out.schemas[sid]}."
                )
            )
            continue
        out.schemas[sid] = path
        parsed_schemas[path] = value
        resources.append((sid, DRAFT202012.create_resource(value)))

    offline: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]
    registry: Registry[Any] = offline.with_resources(resources).combine(_SPECIFICATIONS)
    checker = format_checker()

    # The schemas themselves: every $ref they hold must resolve offline.
    for path, value in parsed_schemas.items():
        for ref_pointer, ref in _refs(value, ""):
            try:
                resolver = registry.resolver(base_uri=value["$id"])
                resolver.lookup(ref)
            except Unresolvable:
                findings.append(
                    Finding(
                        "schema.unresolved",
                        path,
                        f"$ref {ref!r} is not available offline in "
                        f"{schemas_dir}/; no network request was made.",
                        pointer=ref_pointer,
                    )
                )

    validated = 0
    for path in record_paths:
        value = _parse(path, contents[path], findings)
        if value is None:
            continue
        out.records[path] = value
        name = value.get("$schema") if isinstance(value, dict) else None
        if not isinstance(name, str):
            findings.append(
                Finding(
                    "record.no-schema",
                    path,
                    'The record does not name its schema in a "$schema" member.',
                    pointer="/$schema" if isinstance(value, dict) else "",
                )
            )
            continue
        schema_path = out.schemas.get(name)
        if schema_path is None:
            findings.append(
                Finding(
                    "schema.unresolved",
                    path,
                    f"Its schema {name!r} is not in {schemas_dir}/; no network request was made.",
                    pointer="/$schema",
                )
            )
            continue
        validator = Draft202012Validator(
            parsed_schemas[schema_path], registry=registry, format_checker=checker
        )
        validated += 1
        try:
            errors = sorted(
                validator.iter_errors(value), key=lambda e: (pointer_of(e.absolute_path), e.message)
            )
        except (_WrappedReferencingError, Unresolvable) as exc:
            findings.append(
                Finding(
                    "schema.unresolved",
                    path,
                    f"Its schema refers to something not available offline: {exc}.",
                    pointer="/$schema",
                )
            )
            continue
        except RecursionError:
            findings.append(Finding("schema.invalid", path, "Too deeply nested to validate."))
            continue
        for error in errors[:MAX_ERRORS_PER_RECORD]:
            findings.append(_schema_finding(path, error))
        if len(errors) > MAX_ERRORS_PER_RECORD:
            findings.append(
                Finding(
                    "schema.invalid",
                    path,
                    f"{len(errors) - MAX_ERRORS_PER_RECORD} further schema errors not shown.",
                )
            )

    stage.counts = {
        "records": len(record_paths),
        "schemas": len(schema_paths),
        "validated": validated,
    }
    if not record_paths and not schema_paths:
        stage.note = "No records or schemas in the manifest's scope: nothing to check."
    # Hook: transcript records are paired by the transcript checker (verifier.transcripts).
    from verifier.transcripts.archive import check_transcript_records

    findings.extend(check_transcript_records(out.records))
    return out


def _parse(path: str, data: bytes, findings: list[Finding]) -> Any:
    """Strict JSON from the hashed bytes; problems become findings, ``None`` if unusable."""
    value, problems = loads_strict(data)
    findings.extend(
        Finding(p.code, path, p.message, pointer=p.pointer, line=p.line) for p in problems
    )
    return value


def _schema_finding(path: str, error: ValidationError) -> Finding:
    message = error.message
    if len(message) > 300:
        message = message[:297] + "..."
    return Finding(
        "schema.invalid",
        path,
        f"{message} (schema rule {error.validator!s}).",
        pointer=pointer_of(error.absolute_path),
    )


def _refs(node: Any, pointer: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, child in node.items():
            here = f"{pointer}/{escape_token(key)}"
            if key in ("$ref", "$dynamicRef") and isinstance(child, str):
                yield here, child
            else:
                yield from _refs(child, here)
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from _refs(child, f"{pointer}/{i}")
