"""The schema bundle: the archive's schemas, parsed and checked once in the plan, with their
validators compiled on first use in whichever process checks a record (a bundle pickles as
its schemas alone, so a worker started with ``spawn``, or on another machine, gets the same
verdicts).

Schemas come only from the archive's ``schemas/`` folder (and the JSON Schema metaschemas
bundled with ``jsonschema``). Any other reference is a ``schema.unresolved`` finding: the
registry's retrieve function refuses, so no network call can ever happen.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from verifier.findings import Finding
from verifier.interrupt import raise_pending
from verifier.json.parse import Given, escape_token, loads_strict
from verifier.schema import bounded_regex
from verifier.schema.format_policy import fast_formats, format_checker, may_assert_format
from verifier.schema.reference_engine import install as install_ecma_patterns
from verifier.schema.reference_engine import meta_problems
from verifier.schema.walk import Subschema, subschemas
from verifier.values.witness import WitnessSettings

NO_WITNESS = WitnessSettings()

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, FormatChecker
    from jsonschema.exceptions import ValidationError
    from referencing import Registry, Resource

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
MAX_ERRORS_PER_RECORD = 100
# Subschemas nested deeper than this are refused (schema.bad-schema) before either engine
# sees them: the reference engine's recursion gives out past about 85 (tests/hostile).
MAX_SCHEMA_DEPTH = 40


def _refuse(uri: str) -> Resource[Any]:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


def _offline_registry(docs: dict[str, Any]) -> Registry[Any]:
    """The schemas as ``referencing`` resources, beside the metaschemas bundled with
    jsonschema, and nothing fetched: python-jsonschema's registry. Imported and built only
    where it is used (a worker whose records all pass the fast engine never needs it)."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    try:  # the metaschemas, bundled with jsonschema: offline
        from jsonschema_specifications import REGISTRY as specifications
    except ImportError:  # pragma: no cover
        specifications = Registry()
    resources = [(d["$id"], DRAFT202012.create_resource(d)) for d in docs.values()]
    offline: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]
    return offline.with_resources(resources).combine(specifications)


def _unresolvable_error() -> type[Exception]:
    from referencing.exceptions import Unresolvable

    return Unresolvable


def pointer_of(path: Iterator[Any] | Any) -> str:
    return "".join("/" + escape_token(str(part)) for part in path)


def is_schema_path(path: str, schemas_dir: str) -> bool:
    return path.startswith(schemas_dir + "/") and path.endswith(".json")


@dataclass(slots=True)
class Prepared:
    """The schemas, parsed and checked, with their validators: what every record's check
    needs. Built once, before any record is read (and before worker processes start)."""

    validate: bool
    schemas_dir: str
    findings: list[Finding] = field(default_factory=list)
    schemas: dict[str, str] = field(default_factory=dict)  # $id -> path
    schema_count: int = 0
    validators: Validators | None = None
    #: the witness's keys and the external checkpoints, for the witness logs (--witness-key,
    #: --checkpoint): what checking a log needs besides its bytes, carried with the schemas
    witness: WitnessSettings = NO_WITNESS


def prepare_validity(contents: dict[str, bytes], schemas_dir: str, validate: bool) -> Prepared:
    """Parse and check the schemas among ``contents`` (archive path -> hashed bytes)."""
    prep = Prepared(validate, schemas_dir)
    if not validate:
        return prep
    findings = prep.findings
    schema_paths = sorted(p for p in contents if is_schema_path(p, schemas_dir))
    prep.schema_count = len(schema_paths)
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
        structural = _structure_findings(path, value)
        if structural:
            findings.extend(structural)
            continue
        problems = [] if _meta_valid_fast(value) else meta_problems(value)
        if problems:  # the reference explains, or confirms, a failure: every error, sorted
            findings.extend(
                Finding(
                    "schema.bad-schema",
                    path,
                    f"Not a valid Draft 2020-12 schema: {_clip(message)}",
                    pointer=pointer,
                )
                for pointer, message in problems
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
        resolvable = _resolvable_findings(path, value, sid)
        if resolvable:
            findings.extend(resolvable)
            continue
        if sid in prep.schemas:
            findings.append(
                Finding(
                    "schema.bad-schema", path, f"Its $id is also the $id of {prep.schemas[sid]}."
                )
            )
            continue
        prep.schemas[sid] = path
        parsed_schemas[path] = value

    validators = Validators(parsed_schemas, prep.schemas, schemas_dir)
    findings.extend(validators.schema_findings())
    for path in parsed_schemas:  # compiled now, once, before any worker process starts
        validators.fast(path)
    prep.validators = validators
    return prep


class Validators:
    """Compiled validators, one per schema, built once and reused for every record.

    python-jsonschema is the reference: it explains every failure. jsonschema-rs, when it is
    installed and accepts the schema, decides the common valid case quickly; a record it does
    not pass is always handed to the reference, so findings are the reference's whichever
    engine looked first (tests/unit/test_engines.py checks that the two agree). Both read
    patterns as ECMA-262 through one engine (verifier.schema.bounded_regex) and apply one format
    policy (verifier.schema.format_policy). Each fast validator fetches only the schemas it refers
    to, so a schema that cannot be compiled affects only the records that need it.
    """

    def __init__(self, docs: dict[str, Any], ids: dict[str, str], schemas_dir: str) -> None:
        self.docs = docs  # path -> schema
        self.ids = ids  # $id -> path
        self.schemas_dir = schemas_dir
        self._registry: Registry[Any] | None = None  # made on first use
        self._checker: FormatChecker | None = None
        self._reference: dict[str, Draft202012Validator] = {}
        self._fast: dict[str, Any] = {}
        # every schema resource by its absolute URI: each document, and each subschema with
        # an $id of its own (its $id made absolute), for the fast engine's retriever
        self._resources: dict[str, Any] = {}
        for doc in docs.values():
            for sub in subschemas(doc, doc["$id"]):
                if sub.base is not None and isinstance(sub.node.get("$id"), str):
                    self._resources.setdefault(sub.base.rstrip("#"), {**sub.node, "$id": sub.base})

    @property
    def registry(self) -> Registry[Any]:
        """python-jsonschema's offline registry of the schemas (made on first use)."""
        if self._registry is None:
            self._registry = _offline_registry(self.docs)
        return self._registry

    def __getstate__(self) -> tuple[dict[str, Any], dict[str, str], str]:
        """A bundle crosses processes as its schemas alone: the registry and the compiled
        validators are rebuilt where it lands, on first use."""
        return self.docs, self.ids, self.schemas_dir

    def __setstate__(self, state: tuple[dict[str, Any], dict[str, str], str]) -> None:
        self.__init__(*state)  # type: ignore[misc]

    def schema_findings(self) -> list[Finding]:
        """Every $ref and $dynamicRef the schemas hold must resolve offline, each against the
        base URI of its nearest enclosing schema resource."""
        out = []
        for path, value in self.docs.items():
            for sub in subschemas(value, value["$id"]):
                if sub.base is None:
                    continue  # reported by prepare_validity
                for keyword in ("$ref", "$dynamicRef"):
                    ref = sub.node.get(keyword)
                    if not isinstance(ref, str):
                        continue
                    problem = self._unresolvable(sub.base, ref)
                    if problem is not None:
                        out.append(
                            Finding(
                                "schema.unresolved",
                                path,
                                f"{keyword} {_clip(ref, 120)!r} {problem}",
                                pointer=f"{sub.pointer}/{escape_token(keyword)}",
                            )
                        )
        return out

    def _nearest(self, name: str) -> str:
        """What a record's unknown ``$schema`` was probably meant to be: the schema file of
        that name whose ``$id`` differs, or the close ``$id`` values (difflib)."""
        from verifier.suggest import did_you_mean

        leaf = name.rstrip("/").rsplit("/", 1)[-1]
        for path, doc in sorted(self.docs.items()):
            if leaf and path.rsplit("/", 1)[-1] == leaf:
                return f"; {path} exists, but its $id is {_clip(str(doc.get('$id')), 120)!r}."
        hint = did_you_mean(name, self.ids, n=1) if len(self.ids) <= 5000 else ""
        return hint or "."

    def _unresolvable(self, base: str, ref: str) -> str | None:
        try:
            self.registry.resolver(base_uri=base).lookup(ref)
        except _unresolvable_error():
            return _sentence(
                f"is not available offline in {self.schemas_dir}/; no network request was made"
                + _defs_hint(ref, self._resources.get(base.rstrip("#")))
            )
        except (ValueError, RecursionError) as exc:  # an unparsable URI, a huge index
            return f"cannot be resolved ({type(exc).__name__}: {_clip(str(exc), 120)})."
        return None

    def reference(self, schema_path: str) -> Draft202012Validator:
        """python-jsonschema's validator for the schema (imported only when a record fails,
        or when it alone decides)."""
        if schema_path not in self._reference:
            from jsonschema import Draft202012Validator

            install_ecma_patterns()
            if self._checker is None:
                self._checker = format_checker()
            self._reference[schema_path] = Draft202012Validator(
                self.docs[schema_path], registry=self.registry, format_checker=self._checker
            )
        return self._reference[schema_path]

    def fast(self, schema_path: str) -> Any:
        """A jsonschema-rs validator for the schema, or ``None`` (not installed, or it refused
        the schema: then the reference decides alone)."""
        if schema_path in self._fast:
            return self._fast[schema_path]
        validator = None
        if os.environ.get("VERIFIER_ENGINE") == "reference":  # the reference alone, e.g. to
            self._fast[schema_path] = None  # run the test suite against it
            return None
        try:
            import jsonschema_rs

            schema = self.docs[schema_path]
            # no format reachable: none given, so the instance is read where it lies rather
            # than converted whole first (see may_assert_format)
            formats = may_assert_format(schema, self._resources)
            validator = jsonschema_rs.validator_for(
                schema,
                retriever=self._retrieve_fast,
                validate_formats=formats,
                formats=fast_formats() if formats else None,
                pattern_options=bounded_regex.fast_engine_options(),
            )
        except Exception:
            validator = None
        raise_pending()  # a signal while it read the format checkers is swallowed by it
        self._fast[schema_path] = validator
        return validator

    def _retrieve_fast(self, uri: str) -> Any:
        """jsonschema-rs's retriever: a schema resource of schemas/ by its URI, or refused."""
        found = self._resources.get(uri.rstrip("#"))
        if found is None:
            raise ValueError(f"{uri} is not available offline; no network request is made")
        return found

    def windowed(self, head: dict[str, Any], key: str) -> Callable[[Any], bool] | None:
        """For a large document read a window of its array ``key`` at a time (the assertion
        spec: :func:`verifier.json.parse.loads_in_windows`): a test of a document made of
        some of its members and one window of the array, or ``None`` where such tests could
        not stand for the whole document (``head``: the members before the array, which must
        name the schema). The test says ``True`` only when the engine that decides first
        passes it (an error, or a schema that refers to what is not there: ``False``).

        The schema (by ``$schema``) must be one of :func:`windowed_schema`'s: then the whole
        document is valid when every window, with any of its members, is, and so is the
        last window with all of them (the caller tests those); a test that fails says
        nothing, and the whole document is validated as every record is."""
        name = head.get("$schema")
        schema_path = self.ids.get(name) if isinstance(name, str) else None
        if schema_path is None or not windowed_schema(self.docs[schema_path], key):
            return None
        fast = self.fast(schema_path)

        def valid(document: Any) -> bool:
            try:
                if fast is not None:
                    passed = fast.is_valid(document) is True
                    raise_pending()  # (a signal in a format checker is swallowed by it)
                    return passed
                return self.reference(schema_path).is_valid(document) is True
            except Exception:  # (the whole document's validation reports it)
                return False

        return valid

    def record(self, path: str, value: Any) -> tuple[list[Finding], int]:
        """Findings for one parsed record, and 1 if it was validated against a schema."""
        name = value.get("$schema") if isinstance(value, dict) else None
        if not isinstance(name, str):
            return [
                Finding(
                    "record.no-schema",
                    path,
                    'The record does not name its schema in a "$schema" member.',
                    pointer="/$schema" if isinstance(value, dict) else "",
                )
            ], 0
        schema_path = self.ids.get(name)
        if schema_path is None:
            return [
                Finding(
                    "schema.unresolved",
                    path,
                    f"Its schema {_clip(name, 120)!r} is not the $id of a schema in "
                    f"{self.schemas_dir}/ (no network request was made){self._nearest(name)}",
                    pointer="/$schema",
                )
            ], 0
        fast = self.fast(schema_path)
        try:
            valid = fast is not None and fast.is_valid(value)
        except Exception:
            valid = False
        raise_pending()  # a signal in a format checker is swallowed by jsonschema-rs
        if valid:
            return [], 1
        try:
            errors = sorted(
                self.reference(schema_path).iter_errors(value),
                key=lambda e: (pointer_of(e.absolute_path), e.message),
            )
        except (_referencing_error(), _unresolvable_error()) as exc:
            return [
                Finding(
                    "schema.unresolved",
                    path,
                    _sentence(
                        "Its schema refers to something not available offline: "
                        + _unresolved_text(exc, self.docs[schema_path])
                    ),
                    pointer="/$schema",
                )
            ], 1
        except bounded_regex.RegexBudgetExceeded as exc:
            return [
                Finding(
                    "schema.pattern-budget",
                    path,
                    f"Not checked against its schema: {exc}, so whether it matches is "
                    "unknown; simplify the pattern (no backreference or lookaround over a "
                    "repeated group).",
                    pointer="/$schema",
                )
            ], 1
        except RecursionError:
            return [Finding("schema.invalid", path, "Too deeply nested to validate.")], 1
        except (ArithmeticError, TypeError, ValueError) as exc:  # e.g. multipleOf on 1e400
            return [
                Finding(
                    "schema.invalid",
                    path,
                    f"The record could not be validated against its schema "
                    f"({type(exc).__name__}: {exc}); nothing in it is taken as valid.",
                )
            ], 1
        out = [_schema_finding(path, error) for error in errors[:MAX_ERRORS_PER_RECORD]]
        if len(errors) > MAX_ERRORS_PER_RECORD:
            out.append(
                Finding(
                    "schema.invalid",
                    path,
                    f"{len(errors) - MAX_ERRORS_PER_RECORD} further schema errors not shown.",
                )
            )
        return out, 1


#: the keywords of a schema :func:`windowed_schema` accepts: at its root, and in the array
_WINDOWED_ROOT = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "title",
        "description",
        "$defs",
        "type",
        "properties",
        "required",
        "additionalProperties",
    }
)
_WINDOWED_ARRAY = frozenset({"$comment", "title", "description", "type", "items", "minItems"})


def windowed_schema(schema: Any, key: str) -> bool:
    """Whether documents valid against ``schema`` can be told a window of their array
    ``key`` at a time: the root has only keywords that judge members one by one, by their
    names (``properties``, ``required``, ``additionalProperties``) or annotate; the
    array's own schema only ``type`` (array), ``items`` (one schema for every item) and
    ``minItems``. A document is then valid exactly when its members other than ``key`` are
    and every item is, and there are at least ``minItems``: so when a document made of the
    other members and any non-empty part of the array is valid, and every item is in some
    such valid document, the whole document is valid too (its array is no shorter than any
    part of it). Anything else, however harmless (``maxItems``, ``uniqueItems``,
    ``contains``, ``patternProperties``, a combinator or a ``$ref`` at the root), says
    ``False``: then only the whole document is validated."""
    if type(schema) is not dict or not schema.keys() <= _WINDOWED_ROOT:
        return False
    if schema.get("type", "object") != "object":
        return False
    properties = schema.get("properties")
    array = properties.get(key) if type(properties) is dict else None
    if type(array) is not dict or not array.keys() <= _WINDOWED_ARRAY:
        return False
    if array.get("type", "array") != "array":
        return False
    items = array.get("items", True)
    return type(items) is dict or type(items) is bool


def _sentence(text: str) -> str:
    return text if text.endswith(("?", ".")) else text + "."


def _defs_hint(ref: str, schema: Any) -> str:
    """``; did you mean '#/$defs/count'?`` for a ``$ref`` into a ``$defs`` entry that is not
    there (the names of the schema's own ``$defs``, when it is a local reference)."""
    from verifier.suggest import did_you_mean

    head, _, name = ref.rpartition("/$defs/")
    defs = schema.get("$defs") if isinstance(schema, dict) else None
    if not name or "/" in name or head not in ("#", "") or not isinstance(defs, dict):
        return ""
    if len(defs) > 5000:
        return ""
    found = did_you_mean(name, [k for k in defs if isinstance(k, str)], n=1)
    return found.replace("'", "'#/$defs/", 1).rstrip("?") + "?" if found else ""


def _unresolved_text(exc: Exception, schema: Any) -> str:
    """What a failed reference was, without the Python repr of the schema holding it
    (``referencing``'s messages print the whole referring schema as a dict)."""
    inner = getattr(exc, "_wrapped", exc)
    ref = getattr(inner, "ref", None)
    if isinstance(ref, str):
        what = type(inner).__name__
        return f"{_clip(ref, 120)!r} ({what}){_defs_hint(ref, schema)}"
    return _clip(str(exc), 200)


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _structure_findings(path: str, schema: dict[str, Any]) -> list[Finding]:
    """What neither engine may be handed: subschemas nested deeper than
    :data:`MAX_SCHEMA_DEPTH`, and patterns that are not ECMA-262 regular expressions."""
    out: list[Finding] = []
    for sub in subschemas(schema, "urn:verifier:structure"):
        if sub.depth > MAX_SCHEMA_DEPTH:
            return [
                Finding(
                    "schema.bad-schema",
                    path,
                    f"Subschemas are nested more than {MAX_SCHEMA_DEPTH} deep; the verifier "
                    "does not validate against a schema nested this deeply.",
                    pointer=sub.pointer,
                )
            ]
        out.extend(_pattern_findings(path, sub))
    return out


def _pattern_findings(path: str, sub: Subschema) -> Iterator[Finding]:
    sites: list[tuple[str, Any]] = [(f"{sub.pointer}/pattern", sub.node.get("pattern"))]
    props = sub.node.get("patternProperties")
    if isinstance(props, dict):
        sites += [(f"{sub.pointer}/patternProperties/{escape_token(k)}", k) for k in props]
    for pointer, pattern in sites:
        if not isinstance(pattern, str):
            continue  # absent, or a type error the metaschema reports
        try:
            bounded_regex.compile(pattern)
        except bounded_regex.RegexError:
            yield Finding(
                "schema.bad-schema",
                path,
                f"The pattern {_clip(pattern, 120)!r} is not an ECMA-262 regular expression "
                "(or compiles larger than the verifier allows).",
                pointer=pointer,
            )


def _resolvable_findings(path: str, schema: dict[str, Any], sid: str) -> list[Finding]:
    """Every $id, the root's and each nested resource's, must resolve to a URI."""
    return [
        Finding(
            "schema.bad-schema",
            path,
            f"A schema resource's base URI cannot be worked out: {sub.error}.",
            pointer=f"{sub.pointer}/$id",
        )
        for sub in subschemas(schema, sid)
        if sub.error is not None
    ]


def _referencing_error() -> type[Exception]:
    from jsonschema.exceptions import _WrappedReferencingError

    error: type[Exception] = _WrappedReferencingError
    return error


def _meta_valid_fast(schema: Any) -> bool:
    """True if jsonschema-rs finds the schema valid against its metaschema; False when it does
    not, or is not available (then python-jsonschema, the reference, decides)."""
    if os.environ.get("VERIFIER_ENGINE") == "reference":
        return False
    try:
        import jsonschema_rs

        return bool(jsonschema_rs.meta.is_valid(schema))
    except Exception:
        return False


def _parse(
    path: str, data: bytes | Given, findings: list[Finding], strings: dict[str, str] | None = None
) -> Any:
    """Strict JSON from the hashed bytes; problems become findings, ``None`` if unusable
    (``strings``, and bytes handed over as :class:`~verifier.json.parse.Given`: see
    :func:`~verifier.json.parse.loads_strict`)."""
    value, problems = loads_strict(data, strings=strings)
    findings.extend(
        Finding(p.code, path, p.message, pointer=p.pointer, line=p.line) for p in problems
    )
    return value


def _excerpt(value: Any, limit: int = 60) -> str:
    """A short, quoted excerpt of a value for a message: JSON, ASCII, cut at ``limit``."""
    try:
        text = json.dumps(value, ensure_ascii=True, sort_keys=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    if len(text) <= limit:
        return text
    what = (
        "object"
        if isinstance(value, dict)
        else "array"
        if isinstance(value, list)
        else "string"
        if isinstance(value, str)
        else "value"
    )
    return f"the {what} {text[: limit - 3]}..."


def _without_repr(error: ValidationError) -> str:
    """jsonschema's message with the instance's Python repr at its start (a whole record,
    kilobytes on one line) replaced by a short JSON excerpt."""
    message = str(error.message)
    shown = repr(error.instance)
    if message.startswith(shown) and (len(shown) > 60 or not isinstance(error.instance, str)):
        return _excerpt(error.instance) + message[len(shown) :]
    return message


def _schema_finding(path: str, error: ValidationError) -> Finding:
    message = _without_repr(error)
    if len(message) > 300:
        message = message[:297] + "..."
    return Finding(
        "schema.invalid",
        path,
        f"{message} (schema rule {error.validator!s}).",
        pointer=pointer_of(error.absolute_path),
    )
