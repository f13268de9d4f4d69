"""Generate a synthetic evidence archive that looks like a real benchmark of agent runs.

Each case is a folder with three records: a run result (counters, receipts, a terminal status),
a tool-call transcript (Pi message shape) and a provider readback. Three schemas, an assertion
spec with same-value, count and unchanged-counter checks over every case, optional large
blobs, and a GNU sha256sum manifest. Deterministic for a seed: the same arguments give the
same bytes.

The spec comes in two forms over the same records. Written out (the default): three
assertions per case, each naming its case's files (100k records: 100k assertions, 33 MB).
With ``--rules``: the per-case rule form of issue 35, the case folders named once
(``cases.folders``) and three rules whose file names are relative to a case (``{case}``),
each standing for one assertion per case (a spec of about 1 KB whatever the size).

    python benchmarks/generate.py OUT --records 100000 [--rules] [--seed 1]
        [--blobs 4 --blob-mb 256]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
from typing import Any

ID = "https://verifier.invalid/schemas/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
MARKER = "not run: the turn was interrupted"
PER_CASE = 3  # records per case

COUNTERS = {
    "type": "object",
    "required": ["toolExecutions", "gatewayRequests", "createRequests"],
    "additionalProperties": False,
    "properties": {
        k: {"type": "integer", "minimum": 0}
        for k in ("toolExecutions", "gatewayRequests", "createRequests")
    },
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "run.schema.json": {
        "type": "object",
        "required": [
            "$schema",
            "caseId",
            "startedAt",
            "endedAt",
            "status",
            "counters",
            "countersAfterDuplicate",
            "receipt",
            "notes",
        ],
        "additionalProperties": False,
        "properties": {
            "$schema": {"const": ID + "run.schema.json"},
            "caseId": {"type": "string", "pattern": "^case-[0-9]{6}$"},
            "model": {"type": "string"},
            "startedAt": {"type": "string", "format": "date-time"},
            "endedAt": {"type": "string", "format": "date-time"},
            "status": {"enum": ["done", "failed"]},
            "counters": COUNTERS,
            "countersAfterDuplicate": COUNTERS,
            "receipt": {
                "type": "object",
                "required": ["paymentIntent", "amount", "currency"],
                "properties": {
                    "paymentIntent": {"type": "string", "pattern": "^pi_[A-Za-z0-9]+$"},
                    "amount": {"type": "integer", "minimum": 0},
                    "currency": {"type": "string", "minLength": 3, "maxLength": 3},
                },
            },
            "notes": {"type": "array", "items": {"type": "string"}},
        },
    },
    "transcript.schema.json": {
        "type": "object",
        "required": ["$schema", "caseId", "messages"],
        "properties": {
            "$schema": {"const": ID + "transcript.schema.json"},
            "caseId": {"type": "string"},
            "messages": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["role"],
                    "properties": {"role": {"enum": ["user", "assistant", "toolResult"]}},
                },
            },
        },
    },
    "readback.schema.json": {
        "type": "object",
        "required": ["$schema", "caseId", "retrievedAt", "object"],
        "properties": {
            "$schema": {"const": ID + "readback.schema.json"},
            "caseId": {"type": "string"},
            "retrievedAt": {"type": "string", "format": "date-time"},
            "object": {
                "type": "object",
                "required": ["id", "status", "amount"],
                "properties": {
                    "id": {"type": "string"},
                    "status": {"enum": ["succeeded", "processing", "canceled"]},
                    "amount": {"type": "integer"},
                },
            },
        },
    },
}


def dump(value: object) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


def case_records(i: int, rng: random.Random) -> dict[str, bytes]:
    case = f"case-{i:06d}"
    pi = "pi_" + "".join(
        rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789") for _ in range(24)
    )
    executions = 1 if rng.random() < 0.9 else 2
    counters = {"toolExecutions": executions, "gatewayRequests": 1, "createRequests": 1}
    minute, second = divmod(i % 3600, 60)
    start = f"2026-10-22T{10 + (i // 3600) % 10:02d}:{minute:02d}:{second:02d}Z"
    end = f"2026-10-22T{10 + (i // 3600) % 10:02d}:{minute:02d}:{second:02d}.5Z"
    run = {
        "$schema": ID + "run.schema.json",
        "caseId": case,
        "model": rng.choice(["faux-1", "faux-2", "faux-3"]),
        "startedAt": start,
        "endedAt": end,
        "status": "done",
        "counters": counters,
        "countersAfterDuplicate": dict(counters),
        "receipt": {"paymentIntent": pi, "amount": 100, "currency": "gbp"},
        "notes": [f"synthetic run {i} of a benchmark archive; not an observation"],
    }
    call = f"call-{i:06d}"
    messages: list[dict[str, object]] = [
        {"role": "user", "content": f"Pay invoice {i}. " + "x" * rng.randrange(50, 150)},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "toolCall",
                    "id": call,
                    "name": "create_payment",
                    "arguments": {"invoice": i, "amount": 100},
                }
            ],
        },
        {
            "role": "toolResult",
            "toolCallId": call,
            "toolName": "create_payment",
            "content": MARKER,
            "isError": True,
        },
        {"role": "user", "content": "What happened?"},
        {"role": "assistant", "content": [{"type": "text", "text": "y" * rng.randrange(50, 150)}]},
    ]
    transcript = {"$schema": ID + "transcript.schema.json", "caseId": case, "messages": messages}
    readback = {
        "$schema": ID + "readback.schema.json",
        "caseId": case,
        "retrievedAt": "2026-10-23T00:00:00Z",
        "object": {"id": pi, "status": "succeeded", "amount": 100},
    }
    base = f"evidence/cases/{i // 1000:03d}/{case}"
    return {
        f"{base}/run.json": dump(run),
        f"{base}/transcript.json": dump(transcript),
        f"{base}/readback.json": dump(readback),
    }


def assertions_for(i: int) -> list[dict[str, object]]:
    base = f"evidence/cases/{i // 1000:03d}/case-{i:06d}"

    def sel(name: str, pointer: str) -> dict[str, str]:
        return {"file": f"{base}/{name}", "pointer": pointer}

    return [
        {
            "id": f"c{i:06d}.same-payment",
            "kind": "same-value",
            "description": "Receipt and readback agree.",
            "selects": [
                sel("run.json", "/receipt/paymentIntent"),
                sel("readback.json", "/object/id"),
            ],
        },
        {
            "id": f"c{i:06d}.messages",
            "kind": "count",
            "description": "Five messages.",
            "select": sel("transcript.json", "/messages"),
            "equals": 5,
        },
        {
            "id": f"c{i:06d}.unchanged",
            "kind": "unchanged",
            "description": "Counters unchanged.",
            "before": sel("run.json", "/counters"),
            "after": sel("run.json", "/countersAfterDuplicate"),
        },
    ]


CASE_FOLDERS = "evidence/cases/*/*"  # evidence/cases/000/case-000000, ...


def rule_spec() -> dict[str, object]:
    """The per-case rule form of the three assertions ``assertions_for`` writes out for every
    case: one rule each, its files relative to the case (``{case}``, the case folder's path);
    the instance of rule R for case C has the id ``R@C``."""

    def sel(name: str, pointer: str) -> dict[str, str]:
        return {"file": "{case}/" + name, "pointer": pointer}

    return {
        "$schema": ID + "assertion-spec.schema.json",
        "cases": {"folders": CASE_FOLDERS},
        "everyCaseJudged": True,
        "rules": [
            {
                "id": "same-payment",
                "kind": "same-value",
                "description": "Receipt and readback agree.",
                "selects": [
                    sel("run.json", "/receipt/paymentIntent"),
                    sel("readback.json", "/object/id"),
                ],
            },
            {
                "id": "messages",
                "kind": "count",
                "description": "Five messages.",
                "select": sel("transcript.json", "/messages"),
                "equals": 5,
            },
            {
                "id": "unchanged",
                "kind": "unchanged",
                "description": "Counters unchanged.",
                "before": sel("run.json", "/counters"),
                "after": sel("run.json", "/countersAfterDuplicate"),
            },
        ],
    }


def generate(
    out: str, records: int, seed: int, blobs: int, blob_mb: int, rules: bool = False
) -> None:
    """Write the archive into ``out`` (absent or empty). ``rules``: the spec in the per-case
    rule form instead of written-out assertions (the records are the same bytes)."""
    if os.path.exists(out) and os.listdir(out):
        sys.exit(f"{out} is not empty")
    rng = random.Random(seed)
    entries: list[tuple[str, str]] = []

    def put(name: str, data: bytes) -> None:
        path = os.path.join(out, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        entries.append((name, hashlib.sha256(data).hexdigest()))

    for name, body in SCHEMAS.items():
        put(f"schemas/{name}", dump({"$schema": DRAFT, "$id": ID + name, **body}))
    for name in ("assertion-spec.schema.json", "common.schema.json", "case-catalogue.schema.json"):
        here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas", name)
        with open(here, "rb") as source:
            put(f"schemas/{name}", source.read())
    cases = max(1, records // PER_CASE)
    spec: list[dict[str, object]] = []
    for i in range(cases):
        for name, data in case_records(i, rng).items():
            put(name, data)
        if not rules:
            spec.extend(assertions_for(i))
    document: dict[str, object] = (
        rule_spec() if rules else {"$schema": ID + "assertion-spec.schema.json"}
    )
    if not rules:
        document["assertions"] = spec  # (after $schema: the bytes of before issue 35)
    put("evidence/assertions.json", dump(document))
    chunk = bytes(rng.getrandbits(8) for _ in range(1 << 16))
    for b in range(blobs):
        path = os.path.join(out, "blobs", f"capture-{b}.bin")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        digest = hashlib.sha256()
        with open(path, "wb") as blob:
            for k in range(blob_mb * 16):
                piece = chunk[k % 251 :] + chunk[: k % 251]
                blob.write(piece)
                digest.update(piece)
        entries.append((f"blobs/capture-{b}.bin", digest.hexdigest()))
    entries.sort(key=lambda e: e[0].encode())
    manifest = os.path.join(out, "manifest.sha256")
    with open(manifest, "w", encoding="utf-8", newline="\n") as listing:
        listing.writelines(f"{sha256}  {name}\n" for name, sha256 in entries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--blobs", type=int, default=0)
    parser.add_argument("--blob-mb", type=int, default=256)
    parser.add_argument(
        "--rules", action="store_true", help="the spec as per-case rules, not written out"
    )
    args = parser.parse_args()
    generate(args.out, args.records, args.seed, args.blobs, args.blob_mb, args.rules)


if __name__ == "__main__":
    main()
