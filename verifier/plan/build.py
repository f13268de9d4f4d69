"""The plan step: a source and the options turned into a :class:`~verifier.plan.plan.Plan`.

The manifest is found and read, the layout's own files (a bag's tag files) read, every
manifest of the layout parsed and its scope walked, and the files to inspect put in order,
each with the algorithms its manifests use. Nothing else is read here; the schemas and the
documents are inspected first by the pipeline and handed to the records' plan.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from verifier.manifest import Entry, ParsedManifest
from verifier.plan.entries import parse_entries, plan_manifest, take_walk, walk_starts
from verifier.plan.locate import base_folder, find_manifest, read_member
from verifier.plan.phases import announce
from verifier.plan.plan import Plan
from verifier.plan.records import RecordPlan
from verifier.plan.signature import find_signatures
from verifier.plan.withheld import Adopted, read_withheld, supply
from verifier.sources.bagit import decode_name
from verifier.sources.capabilities import OwnLayout, PendingWalk, WalkApart
from verifier.sources.interface import Layout, Source

if TYPE_CHECKING:
    from verifier.plan.options import Options

#: listed files from which a folder's scope is walked by another process while this one
#: reads and plans the early files (below it, starting the process costs more than the
#: overlap gains: about 0.1 s against the walk's 10 us a file). With no early file to plan
#: (``--stages integrity``) it is walked apart all the same: the child takes no sizes,
#: whose ``stat`` per file here cost more than its start (100,000 files: 0.3 s)
WALK_APART_MIN = 20_000


def build_plan(source: Source, root: str, options: Options, adopt: Adopted | None = None) -> Plan:
    """The plan. ``adopt``: the withheld list of the evidence archive a bag's payload holds
    (the bag's run judges the payload's records): its files are withheld here too, and those
    the bag's manifest does not list are planned as the archive's manifest lists them
    (:attr:`Plan.adopted`), so that --withheld-dir supplies them to every stage."""
    own = source.capability(OwnLayout)  # none: one sha256sum manifest, the default layout
    layout = own.layout() if own is not None else Layout()
    base = base_folder(source, options)
    found, refused = find_manifest(source, root, options)
    reached = found is not None
    label, data, rel = found or (options.manifest or layout.manifest, b"", None)
    # the signatures over the manifest, read once beside its bytes
    signatures, signature_findings = (
        find_signatures(source, label, rel, options) if reached else ([], [])
    )
    signature_names = frozenset(s.name for s in signatures) | {f.path for f in signature_findings}
    preread = {name: read_member(source, name) for name in layout.preread}
    if rel is not None:
        preread[rel] = data
    if own is not None:
        own.take_layout_files(preread)
    content = layout.content_root or base
    stages = options.stages
    records = RecordPlan(
        content + "/" if content else "",
        options.records_dir,
        options.schemas_dir,
        options.assertions,
        options.documents,
        options.whole,
        validate="validity" in stages,
        consistency="consistency" in stages,
        max_instances=options.limits.max_entries,
        witness=options.witness,
        # (coverage keeps records whole and reads every instance of the spec: made here)
        judge_cases=not options.whole,
    )
    if not reached:
        scope: list[str] | None = []
    elif options.scope is not None:
        scope = [s.strip("/") or "." for s in options.scope]
    else:
        scope = [layout.payload] if layout.payload else None
    decode = decode_name if layout.percent_encoded_names else None
    extra: set[str] = set()  # the adopted files the bag's manifest does not list
    payload_manifests = (layout.manifest, *layout.payload_manifests) if reached else ()
    announce(options.progress, "walk")  # the manifest's scope, walked as it is planned
    first = parse_entries(
        label,
        data,
        rel,
        scope,
        base=base,
        allow_empty=layout.payload is not None or not reached,
        decode_name=decode,
        algorithm=layout.algorithm(layout.manifest),
        parsed=_adopting(own.parse_manifest(label, data), adopt, layout, extra)
        if reached and own is not None
        else None,
        name_manifest=len(payload_manifests) > 1,
    )
    if extra and adopt is not None and adopt.algorithm != first.algorithm:
        first.own_algorithm = dict.fromkeys(sorted(extra), adopt.algorithm)
    # the files the publisher withholds, named beside the manifest (read once, here), and
    # those of them --withheld-dir supplies: read from there, as if the archive held them
    withheld = read_withheld(source, rel, base, first.wanted) if reached else None
    supplied = None
    given = base
    if withheld is None and adopt is not None and reached:
        withheld, given = adopt.withheld, adopt.base
    if withheld is not None:
        if withheld.data:
            preread[withheld.path] = withheld.data
        if options.withheld_dir is not None:
            supplied = supply(source, withheld, given, options)
            source = supplied or source
    apart = source.capability(WalkApart)
    walking: PendingWalk | None = None
    if (
        apart is not None
        and own is None
        and reached
        and len(first.wanted) >= WALK_APART_MIN
        and not any(records.parsed(name) for name in preread)
    ):
        # walked by another process while this one reads and plans the early files
        # (split between as many processes as the workers: a walk is work that spreads)
        walking = apart.walk_apart(walk_starts(first), options.worker_count())
    else:
        take_walk(
            first, source, [source.walk(start) for start in walk_starts(first)], signature_names
        )
    manifests = [first]
    for other in (*payload_manifests[1:], *layout.tag_manifests):
        tag = other in layout.tag_manifests
        more = preread[other] if other in preread else read_member(source, other)
        manifests.append(
            plan_manifest(
                source,
                other,
                more,
                other,
                [] if tag else scope,
                base="" if tag else base,
                allow_empty=not tag,
                decode_name=decode,
                algorithm=layout.algorithm(other),
                parsed=own.parse_manifest(other, more) if own is not None else None,
                name_manifest=len(layout.tag_manifests) > 1 if tag else True,
                # (the adopted files: supplied, the walk meets them; no manifest of the bag
                # lists them)
                ignore=frozenset() if tag else frozenset(extra),
            )
        )
    payload_algorithms = {layout.algorithm(m) for m in payload_manifests} - {"sha256"}
    tag_algorithms = {layout.algorithm(m) for m in layout.tag_manifests} - {"sha256"}
    plan = Plan(
        layout,
        label,
        rel,
        reached,
        refused,
        base,
        content,
        hashlib.sha256(data).hexdigest(),
        preread,
        manifests,
        max(1, len(payload_manifests)),
        records,
        parse=bool(stages & {"validity", "consistency"}),
        places=(tuple(sorted(tag_algorithms)), tuple(sorted(payload_algorithms))),
        signatures=signatures,
        signature_findings=signature_findings,
        signed=data if signatures else b"",
        withheld=withheld,
        supplied=supplied,
        adopted=frozenset(extra),
        adopted_manifest=adopt.manifest if adopt is not None else "",
    )
    del data
    if walking is not None:
        plan.walking = walking, signature_names
    else:
        plan.put_in_order()
    return plan


def _adopting(
    parsed: ParsedManifest | None, adopt: Adopted | None, layout: Layout, extra: set[str]
) -> ParsedManifest | None:
    """A bag's payload manifest with the adopted withheld files it does not list added, as
    the archive's manifest lists them (their paths put in ``extra``; their digests are in
    the archive's algorithm, which :attr:`ManifestPlan.own_algorithm` says where the bag's
    manifest uses another); unchanged when there are none."""
    if parsed is None or adopt is None:
        return parsed
    decode = decode_name if layout.percent_encoded_names else None
    names = {decode(e.name) if decode else e.name for e in parsed.entries}
    line = max((e.line for e in parsed.entries), default=0)
    more = []
    for path in sorted(adopt.withheld.files):
        if path not in names:
            extra.add(path)
            line += 1
            written = _encoded(path) if decode else path
            more.append(Entry(line, written, adopt.digests[path], False))
    return ParsedManifest((*parsed.entries, *more), parsed.malformed) if more else parsed


def _encoded(name: str) -> str:
    """A name as RFC 8493 writes it in a manifest (``%``, CR and LF percent-encoded)."""
    return name.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
