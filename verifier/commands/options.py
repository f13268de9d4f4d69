"""The options the commands share, declared once, and the one request a run is made of.

Every option is a field of :class:`Request`, its ``typer`` declaration the field's
``Annotated`` metadata (a repeatable option's metadata is the ``list`` alias typer reads; the
request holds a tuple). A command names the fields it takes, in its ``--help`` order
(:func:`command`); typer only fills them, the configuration file is overlaid in one place
(:func:`overlay`), and the command function gets one frozen
:class:`Request` and returns the exit code. :meth:`Request.options` turns it into the core's
:class:`~verifier.pipeline.Options`, every value strictly checked (a bad one: exit 2).
"""

import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer

from verifier.authenticity.registry import help_text as signature_help
from verifier.commands import EXIT_OK, Color, FailOn, InTotoPredicate
from verifier.errors import UsageError
from verifier.execute.registry import CHOICES
from verifier.plan.config import KEYS, Config
from verifier.sources.registry import looks
from verifier.suggest import did_you_mean
from verifier.views.check import BLOCKED_SHOWN

if TYPE_CHECKING:
    from verifier.authenticity.interface import Trust
    from verifier.commands.configopts import Configured
    from verifier.pipeline import Options
    from verifier.sources.safety import Limits
    from verifier.views.interface import Registry

SourceArg = Annotated[
    Path, typer.Argument(metavar="SOURCE", help=f"What to verify: {looks()}. Default: '.'.")
]
ManifestOpt = Annotated[
    str | None,  # a str, not a Path: './NAME' (as given) differs from 'NAME' (inside ROOT)
    typer.Option(
        "--manifest",
        help="The manifest, if not ROOT/manifest.sha256: a name inside ROOT (SHA256SUMS, "
        "release/SHA256SUMS), or an absolute or ./ path, taken as given.",
    ),
]
ScopeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--scope",
        help="A folder (relative to ROOT) to look in for unlisted files; repeatable. "
        "'.' means the files directly in ROOT. Default: every top-level folder the manifest lists "
        "files in, plus ROOT's own files if it lists any at ROOT.",
    ),
]
InTotoPredicateOpt = Annotated[
    InTotoPredicate,
    typer.Option(
        "--in-toto-predicate",
        help="What --format in-toto states: test-result (the default: every stage and failed "
        "assertion as a test) or vsa (a SLSA Verification Summary Attestation v1: PASSED or "
        "FAILED, the assertion spec as its policy, the witness logs as its inputs).",
        case_sensitive=False,
    ),
]
WitnessKeyOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--witness-key",
        metavar="[ALGORITHM:]FILE",
        help="A witness gateway's key, to check the attestation of every record of the spec's "
        "witness logs: ed25519:FILE (the default; 32 raw bytes, 64 hex digits or a PEM public "
        "key) or hmac-sha256:FILE (the secret as hex). Repeatable.",
    ),
]
CheckpointOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--checkpoint",
        metavar="FILE",
        help="A witness log's checkpoint kept outside the archive (JSON: previousHash, "
        "sequence, recordCount, optionally file): records cut from the log's end before it are "
        "found. Repeatable.",
    ),
]
NoColorOpt = Annotated[bool, typer.Option("--no-color", help="Plain text, no colour.")]
ColorOpt = Annotated[
    Color,
    typer.Option(
        "--color",
        help="auto (the default): the rich view on a terminal, unless NO_COLOR is set, and "
        "also off a terminal when FORCE_COLOR is; always; never (plain text, as --no-color).",
        case_sensitive=False,
    ),
]
FailOnOpt = Annotated[
    FailOn,
    typer.Option(
        "--fail-on",
        help="The lowest finding severity that makes the exit code 1: error (the default), "
        "warning (errors and warnings) or note (any finding).",
        case_sensitive=False,
    ),
]
OutputsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--output",
        "-o",
        help="FORMAT=PATH, or PATH for the --format given just before it: write that format "
        "to PATH instead of standard output. Repeatable.",
    ),
]
AllowedSignersOpt = Annotated[
    Path | None,
    typer.Option(
        "--allowed-signers",
        help="An OpenSSH allowed_signers file: the keys trusted for SSH signatures.",
    ),
]
IdentityOpt = Annotated[
    str | None,
    typer.Option(
        "--identity",
        help="The identity the SSH signer must hold (matched against allowed_signers "
        "principals as ssh-keygen -Y verify -I does). Default: any listed principal.",
    ),
]
VerifyTimeOpt = Annotated[
    str | None,
    typer.Option(
        "--verify-time",
        metavar="YYYYMMDD[HHMM[SS]][Z]",
        help="Evaluate allowed_signers validity windows at this time instead of now.",
    ),
]
_WITH_MUTATE = "With --mutate: "


def _option(*names: str, **more: Any) -> Any:
    return typer.Option(*names, **more)


def _codes(name: str, help: str) -> Any:
    return Annotated[list[str] | None, _option(name, metavar="CODE[,CODE]", help=help)]


@dataclass(frozen=True, slots=True)
class Request:
    """One run's settings: the command line's values, the configuration file's overlaid."""

    source: SourceArg = Path(".")
    fmt: tuple[str, ...] = ()  # --format: each command declares its own (its views' names)
    output: Annotated[tuple[str, ...], OutputsOpt] = ()
    record: Annotated[
        Path | None,
        _option(
            "--output",
            "-o",
            help="Write the audit record (JSON, verifier/schemas/audit.schema.json) here; the "
            "text report then goes to standard output. Default: the record to standard output.",
        ),
    ] = None
    case: Annotated[
        str | None,
        _option(
            "--case",
            help="Show one case in depth: every value with its file, "
            "pointer and digest, and the assertions that cover the case.",
        ),
    ] = None
    catalogue: Annotated[
        str | None,
        _option(
            "--catalogue",
            help="The case catalogue, relative to ROOT (default evidence/cases.json).",
        ),
    ] = None
    manifest: ManifestOpt = None
    scope: Annotated[tuple[str, ...], ScopeOpt] = ()
    no_color: NoColorOpt = False
    quiet: Annotated[
        bool,
        _option("--quiet", "-q", help="Print nothing on standard output; the exit code tells."),
    ] = False
    fail_on: FailOnOpt = FailOn.ERROR
    fail_under: Annotated[
        str | None,
        _option(
            "--fail-under",
            metavar="PCT",
            help="Exit 1 when covered values are under PCT percent (0 to 100) of the values "
            "that need covering (covered + uncovered; excused ones do not count).",
        ),
    ] = None
    git: Annotated[
        Path | None,
        _option(
            "--git",
            help="A git repository: verify the commit --rev (default HEAD) without checkout.",
        ),
    ] = None
    rev: Annotated[
        str | None,
        _option("--rev", help="The git revision to read (with --git, or of SOURCE)."),
    ] = None
    base: Annotated[
        str | None,
        _option(
            "--base",
            help="The folder (inside SOURCE) the manifest's names are relative to. Default: "
            "SOURCE's root; when that fails, the report says which base would have matched.",
        ),
    ] = None
    max_bytes: Annotated[
        str | None,
        _option(
            "--max-bytes",
            help="Refuse archive entries past this total uncompressed size (e.g. 500M, 8G). "
            "Default 4G.",
        ),
    ] = None
    max_ratio: Annotated[
        str | None,
        _option(
            "--max-ratio",
            help="Refuse zip members and compressed tarballs that expand more than this many "
            "times (checked above 1 MiB). Default 100.",
        ),
    ] = None
    mutate: Annotated[
        bool,
        _option(
            "--mutate",
            help="Mutation testing of the spec: change each covered value to another value its "
            "schema accepts, check a copy, and report every change nothing noticed (a "
            "survivor: exit 1). The source is never written.",
        ),
    ] = False
    max_mutants: Annotated[
        str | None,
        _option(
            "--max-mutants",
            metavar="N",
            help=f"{_WITH_MUTATE}try at most N covered values, picked by --seed (default: 200; "
            "'all' for every one). Values left untried are reported "
            "(coverage.mutation-incomplete).",
        ),
    ] = None
    time_budget: Annotated[
        str | None,
        _option(
            "--time-budget",
            metavar="SECONDS",
            help=f"{_WITH_MUTATE}start no mutant after SECONDS; the untried are reported.",
        ),
    ] = None
    seed: Annotated[
        str | None,
        _option(
            "--seed",
            metavar="N",
            help=f"{_WITH_MUTATE}the seed that picks values under --max-mutants (default 0).",
        ),
    ] = None
    full: Annotated[
        bool,
        _option(
            "--full",
            help=f"{_WITH_MUTATE}judge each mutant by the whole check on a scratch copy (the "
            "reference; slower) instead of re-running only what the changed record can change.",
        ),
    ] = False
    stages: Annotated[
        str,
        _option(
            "--stages",
            help="Comma-separated stages to run: integrity (always: it is the one read of "
            "every file), validity, consistency. Authenticity (the manifest's signature) "
            "always runs. Skipped stages are reported as skipped.",
        ),
    ] = "integrity,validity,consistency"
    jobs: Annotated[
        str | None,
        _option(
            "--jobs",
            "-j",
            metavar="N",
            help="Workers (processes or threads, see --executor) that read, hash and parse "
            "the files, 1 to 1024 (default: one per available core).",
        ),
    ] = None
    executor: Annotated[
        str | None,
        _option(
            "--executor",
            metavar="NAME",
            help=f"Where each file is inspected: {', '.join(CHOICES)}. auto (the default): "
            "local processes when the archive is large enough (threads for a few large files "
            "to hash), else this process; dask needs 'pip install \"verify-evidence[dask]\"' "
            "and runs on a local cluster of --jobs workers, or on the cluster at --scheduler. "
            "The report is the same whichever runs.",
        ),
    ] = None
    scheduler: Annotated[
        str | None,
        _option(
            "--scheduler",
            metavar="ADDRESS",
            help="With --executor dask: the scheduler of an existing Dask cluster, e.g. "
            "tcp://host:8786. Each file's bytes are read here and sent to the workers with "
            "its task: the cluster must be one you trust.",
        ),
    ] = None
    ignore: Annotated[
        tuple[str, ...],
        _codes(
            "--ignore",
            "Do not count findings of these codes (or groups: 'manifest' for every "
            "manifest.* code); they stay in the JSON report, marked ignored, and are counted. "
            "Repeatable.",
        ),
    ] = ()
    select: Annotated[
        tuple[str, ...] | None,
        _codes(
            "--select",
            "Count only findings of these codes or groups; the others stay in the JSON "
            "report, marked not-selected, and are counted. Repeatable.",
        ),
    ] = None
    baseline: Annotated[
        Path | None,
        _option(
            "--baseline",
            metavar="FILE",
            help="Accept the findings this baseline file lists (matched by code, path, pointer "
            "and fingerprint): reported as accepted, not counted. An entry that matches nothing "
            "is a baseline.unmatched warning.",
        ),
    ] = None
    write_baseline: Annotated[
        Path | None,
        _option(
            "--write-baseline",
            metavar="FILE",
            help="Write a baseline accepting every finding this run counts (plus those "
            "--baseline accepted), then report them as accepted ('-': standard output).",
        ),
    ] = None
    color: ColorOpt = Color.AUTO
    verbose: Annotated[
        bool,
        _option(
            "--verbose",
            "-v",
            help="Say on standard error which settings differ from the defaults and where each "
            "came from.",
        ),
    ] = False
    config: Annotated[
        Path | None,
        _option(
            "--config",
            metavar="FILE",
            help="Read settings from FILE (a verify-evidence.toml, or a pyproject.toml with "
            "[tool.verify-evidence]) instead of looking in the working directory.",
        ),
    ] = None
    no_config: Annotated[
        bool, _option("--no-config", help="Read no configuration file: flags and defaults only.")
    ] = False
    show_config: Annotated[
        bool,
        _option(
            "--show-config",
            help="Print the effective settings, each with where it came from, and exit "
            "(nothing is verified).",
        ),
    ] = False
    path_prefix: Annotated[
        str | None,
        _option(
            "--path-prefix",
            metavar="PREFIX",
            help="Put PREFIX before every path in SARIF and GitHub annotations (default: the "
            "archive folder relative to the working directory, e.g. my-archive/; '' for none).",
        ),
    ] = None
    all_blocked: Annotated[
        bool,
        _option(
            "--all-blocked",
            help="In the text and rich views, list every finding an earlier one blocks under "
            f"it (by default the first {BLOCKED_SHOWN} under each cause, then how many more).",
        ),
    ] = False
    signature: Annotated[Path | None, _option("--signature", help=signature_help())] = None
    require_signature: Annotated[
        bool,
        _option(
            "--require-signature",
            help="Fail (signature.absent) when no signature is found or given.",
        ),
    ] = False
    allowed_signers: AllowedSignersOpt = None
    identity: IdentityOpt = None
    namespace: Annotated[
        str,
        _option("--namespace", help="The SSH signature namespace expected (ssh-keygen -n)."),
    ] = "file"
    verify_time: VerifyTimeOpt = None
    minisign_key: Annotated[
        str | None,
        _option(
            "--minisign-key",
            metavar="KEY",
            help="The minisign public key trusted: its base64 line, or a .pub file.",
        ),
    ] = None
    allow_legacy_minisign: Annotated[
        bool,
        _option(
            "--allow-legacy-minisign",
            help="Accept legacy (Ed, not prehashed) minisign signatures.",
        ),
    ] = False
    keyring: Annotated[
        Path | None,
        _option(
            "--keyring",
            help="An OpenPGP keyring (binary or armoured export) for gpgv: the keys trusted "
            "for OpenPGP signatures.",
        ),
    ] = None
    in_toto_predicate: InTotoPredicateOpt = InTotoPredicate.TEST_RESULT
    witness_key: Annotated[tuple[str, ...], WitnessKeyOpt] = ()
    checkpoint: Annotated[tuple[str, ...], CheckpointOpt] = ()
    withheld_dir: Annotated[
        Path | None,
        _option(
            "--withheld-dir",
            metavar="DIR",
            help="A folder holding files the archive's withheld.json withholds (by their "
            "manifest names): each is checked against the digest the manifest committed to, "
            "and every stage runs on it.",
        ),
    ] = None
    attest_key: Annotated[
        Path | None,
        _option(
            "--attest-key",
            metavar="KEYFILE",
            help="With --format in-toto: wrap the statement in a DSSE envelope signed with this "
            "unencrypted OpenSSH Ed25519 key (check it with verify-evidence attestation "
            "verify).",
        ),
    ] = None
    # not options: how --format and --output interleaved, and the configuration file read
    order: tuple[str, ...] | None = None
    configuration: dict[str, Any] | None = None

    def with_values(self, values: dict[str, Any], **more: Any) -> "Request":
        """This request with ``values`` (typer's, or a file's) set, each in the field's shape:
        a tuple of strings for a repeatable option, the enum for a choice."""
        shaped = {k: _shaped(k, v, getattr(self, k)) for k, v in values.items()}
        return replace(self, **shaped, **more)

    @property
    def location(self) -> str:
        """What to open: SOURCE, or the --git repository."""
        if self.git is None:
            return os.fspath(self.source)
        if os.fspath(self.source) != ".":
            raise UsageError("give either SOURCE or --git REPO, not both")
        return os.fspath(self.git)

    def options(self, outputs: Sequence[tuple[str, Path | None]] = (), **more: Any) -> "Options":
        """The core's :class:`~verifier.pipeline.Options`, each value checked before anything
        is read (a bad one, an unreadable trust file or baseline: a UsageError, exit 2)."""
        from verifier.commands.acceptopts import acceptance_options
        from verifier.pipeline import Options
        from verifier.plan.option_values import MAX_JOBS, parse_count
        from verifier.witness.settings import witness_settings

        return Options(
            manifest=self.manifest or None,
            scope=self.scope or None,
            base=self.base,
            rev=self.rev or ("HEAD" if self.git is not None else None),
            limits=limits_of(self.max_bytes, self.max_ratio),
            stages=frozenset(s.strip() for s in self.stages.split(",") if s.strip()),
            workers=None if self.jobs is None else parse_count(self.jobs, "--jobs", 1, MAX_JOBS),
            **executor_options(self.executor, self.scheduler),
            **acceptance_options(
                self.ignore, self.select, self.baseline, self.write_baseline, outputs
            ),
            trust=trust_options(self),
            witness=witness_settings(self.witness_key, self.checkpoint),
            withheld_dir=None if self.withheld_dir is None else os.fspath(self.withheld_dir),
            **more,
        )


FIELDS = MappingProxyType({f.name: f for f in fields(Request)})
_REPEATED = frozenset(
    {"fmt", "output", "scope", "ignore", "select", "witness_key", "checkpoint"}
)  # tuples of strings


def _shaped(name: str, value: Any, current: Any) -> Any:
    if name in _REPEATED:
        if value is None:
            return FIELDS[name].default
        return tuple(map(str, value)) if isinstance(value, list | tuple) else (str(value),)
    if isinstance(current, Enum):
        return type(current)(value)
    return value


def format_option(
    choices: Any, registry: "Registry[Any]", more: str = "", many: bool = True
) -> Any:
    """A command's own ``--format``: its ``choices`` (auto, then ``registry``'s names)."""
    from verifier.commands.output import format_help

    info = typer.Option("--format", "-f", help=format_help(registry, more), case_sensitive=False)
    if many:
        return Annotated[list[choices] | None, info], None
    return Annotated[choices, info], choices.AUTO


def _declaration(name: str) -> tuple[Any, Any]:
    hint = get_type_hints(Request, include_extras=True)[name]  # (objects: no __future__ import)
    default = FIELDS[name].default
    (meta,) = hint.__metadata__
    if hasattr(meta, "__metadata__"):  # a repeatable option: typer reads the list alias
        return meta, None
    return hint, default


def command(
    app: typer.Typer,
    body: Callable[[Request], int],
    names: str,
    leaves: frozenset[str] = frozenset(),
    **own: tuple[Any, Any],
) -> None:
    """Register ``body`` as a command taking the fields ``names`` lists (in --help's order);
    ``own`` declares a field's option for this command alone (``--format``), and ``leaves``
    the configuration keys another command takes (a file's ``format`` is check's)."""
    from verifier.commands.output import ORDER_KEY, OrderedOptionsCommand

    params = [
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
    ]
    for name in names.split():
        annotation, default = own.get(name) or _declaration(name)
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )

    def callback(ctx: typer.Context, **given: Any) -> int:
        from verifier.commands.configopts import show_config, verbose_text
        from verifier.commands.output import write

        request = Request().with_values(given, order=ctx.meta.get(ORDER_KEY))
        request, configured = overlay(ctx, request, body.__name__, leaves)
        if request.show_config:
            write(None, show_config(configured, ctx, body.__name__))
            return EXIT_OK
        if request.verbose:
            print(verbose_text(configured), end="", file=sys.stderr)
        return body(request)

    callback.__signature__ = inspect.Signature(params, return_annotation=int)  # type: ignore[attr-defined]
    callback.__doc__ = body.__doc__
    app.command(body.__name__, cls=OrderedOptionsCommand)(callback)


def overlay(
    ctx: typer.Context, request: Request, command: str, leaves: frozenset[str]
) -> tuple[Request, "Configured"]:
    """``request`` with the configuration file's values set where no flag was given, and
    every setting's origin. A command takes each key whose option it has, but ``leaves``
    (keys another command takes, such as check's ``format``): ``--show-config`` names those.
    A file's value is checked as the option's (a choice, a file relative to the file's
    folder, a list of stages joined), and comes first in the options' order."""
    from verifier.commands.configopts import Configured, find_config, refuse_archive_config

    config, found = find_config(request.config, request.no_config, Path("."))
    out = Configured(config, found)
    if config is not None and found != "--config":
        refuse_archive_config(config, os.fspath(request.source), request.git, request.rev)
    params = {p.name: p for p in ctx.command.params}
    for key, spec in KEYS.items():
        if spec.param not in ctx.params or key in leaves:
            continue
        source = ctx.get_parameter_source(spec.param)
        if source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            out.origins[key] = "command line"
        elif config is not None and key in config.values:
            out.applied[key] = _from_file(params[spec.param], key, config.values[key], config)
            out.origins[key] = config.name
        else:
            out.origins[key] = "default"
    if config is not None:
        for key in config.values:  # a key another command takes
            out.origins.setdefault(key, f"{config.name}, not taken by {command}")
    values = {KEYS[key].param: value for key, value in out.applied.items()}
    order = None if request.order is None else (*values, *request.order)
    return request.with_values(values, order=order, configuration=out.to_dict()), out


def _from_file(param: Any, key: str, value: Any, config: Config) -> Any:
    names = [str(c) for c in getattr(param.type, "choices", None) or ()]
    if names and value.lower() not in names:
        raise UsageError(
            f"{config.name}: {key} {value!r}: not one of {', '.join(names)}"
            + did_you_mean(value, names)
        )
    if names:
        return value.lower()
    if param.type.name == "path":  # a file the configuration names: relative to its folder
        path = Path(value)
        return path if path.is_absolute() else Path(os.path.dirname(config.name) or ".") / path
    return ",".join(value) if isinstance(value, list) and not param.multiple else value


_ADDRESS = re.compile(  # scheme://host[:port][/path] or host:port, printable ASCII only
    r"[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9._~%:\[\]-]+(?:/[A-Za-z0-9._~%/-]*)?"
    r"|[A-Za-z0-9._-]+:[0-9]{1,5}"
)


def executor_options(executor: str | None, scheduler: str | None) -> dict[str, Any]:
    """The :class:`~verifier.pipeline.Options` fields ``--executor`` and ``--scheduler`` set."""
    name = "auto" if executor is None else executor.strip().lower()
    if name not in CHOICES:
        raise UsageError(f"--executor must be one of {', '.join(CHOICES)}, not {executor!r}")
    if scheduler is not None:
        if name != "dask":
            raise UsageError("--scheduler is an option of --executor dask; add --executor dask")
        if not _ADDRESS.fullmatch(scheduler):
            raise UsageError(
                f"--scheduler must be a Dask scheduler address such as tcp://host:8786, "
                f"not {scheduler!r}"
            )
    if name == "dask" and importlib.util.find_spec("distributed") is None:
        raise UsageError('--executor dask needs Dask: pip install "verify-evidence[dask]"')
    return {"executor": name, "scheduler": scheduler}


def limits_of(max_bytes: str | None, max_ratio: str | None) -> "Limits":
    """The limits the options set (strictly parsed: :mod:`verifier.plan.option_values`)."""
    from verifier.plan.option_values import parse_ratio, parse_size
    from verifier.sources.safety import Limits

    limits = Limits()
    if max_bytes is not None:
        limits = Limits(parse_size(max_bytes), limits.max_ratio)
    if max_ratio is not None:
        limits = Limits(limits.max_bytes, parse_ratio(max_ratio))
    return limits


MAX_TRUST_BYTES = 4 << 20


def read_trust_file(path: Path, option: str) -> bytes:
    """A trust file's bytes, or a :class:`~verifier.errors.UsageError`."""
    from verifier.sources.directory import NotRegularError, read_regular

    try:
        return read_regular(str(path), MAX_TRUST_BYTES, follow=True)
    except FileNotFoundError:
        raise UsageError(f"{option} {path}: no such file") from None
    except (NotRegularError, OSError) as exc:
        why = exc.strerror if exc.strerror else str(exc)
        raise UsageError(f"{option} {path}: cannot be read ({why})") from None


def trust_options(request: Request) -> "Trust":
    """The :class:`~verifier.authenticity.interface.Trust` the request's options give."""
    from verifier.authenticity.allowed_signers import parse_time
    from verifier.authenticity.interface import Trust

    namespace, identity, verify_time = request.namespace, request.identity, request.verify_time
    allowed_signers, minisign_key, keyring = (
        request.allowed_signers,
        request.minisign_key,
        request.keyring,
    )

    if not namespace or not namespace.isprintable():
        raise UsageError("--namespace must be a non-empty printable name, such as file")
    if identity is not None and (not identity or not identity.isprintable()):
        raise UsageError("--identity must be a non-empty printable name")
    if identity is not None and allowed_signers is None:
        raise UsageError("--identity needs --allowed-signers (the file that names identities)")
    when = None
    if verify_time is not None:
        try:
            when = parse_time(verify_time)
        except ValueError:
            raise UsageError(
                f"--verify-time must read YYYYMMDD[HHMM[SS]][Z], not {verify_time!r}"
            ) from None
    signers = (
        None if allowed_signers is None else read_trust_file(allowed_signers, "--allowed-signers")
    )
    key = None
    key_label = "minisign key"
    if minisign_key is not None:
        from verifier.authenticity.minisign import key_bytes

        key, key_label = key_bytes(minisign_key, read_trust_file)
    keys = None if keyring is None else read_trust_file(keyring, "--keyring")
    return Trust(
        signature=None if request.signature is None else str(request.signature),
        require=request.require_signature,
        allowed_signers=signers,
        allowed_signers_label=str(allowed_signers) if allowed_signers else "allowed_signers",
        identity=identity,
        namespace=namespace,
        verify_time=when,
        minisign_key=key,
        minisign_key_label=key_label,
        allow_legacy_minisign=request.allow_legacy_minisign,
        keyring=keys,
        keyring_label=str(keyring) if keyring else "the keyring",
    )
