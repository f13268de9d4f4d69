"""``verifier.witness`` against an independent reader written from the predicate's text alone
(tests/witness_reader.py; the spec authors' reference verifier is not on the package index):
on generated logs, honest and damaged in the ways the spec names, both find the same kinds of
problem."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from tests import witness_reader
from tests.gateway import Gateway
from verifier.values.witness import ExternalCheckpoint, WitnessKey, WitnessSettings
from verifier.witness import check_log

KEY = b"\x07" * 32
KINDS = {
    "chain.fork": "fork",
    "chain.second-genesis": "second-genesis",
    "chain.unlinked": "gap",
    "chain.no-genesis": "no-start",
    "chain.checkpoint-count": "count",
    "chain.checkpoint-sequence": "sequence",
    "chain.break-prior": "break",
    "chain.bad-signature": "bad-signature",
    "chain.head-missing": "head-missing",
}


def _honest(rng: random.Random) -> tuple[Gateway, dict[str, object] | None]:
    gateway = Gateway(hmac_key=KEY)
    kept = None
    for _ in range(rng.randint(1, 12)):
        roll = rng.random()
        if roll < 0.6:
            gateway.call(rng.choice(["fs/read", "fs/write", "pay/create"]), rng.random() < 0.8)
        elif roll < 0.85:
            skew = rng.random()
            if skew < 0.08:  # (a record dropped and the chain rewritten by a key holder)
                gateway.count += 1
            elif skew < 0.16:  # (checkpoints replayed)
                gateway.sequence = max(0, gateway.sequence - 1)
            gateway.checkpoint()
            if rng.random() < 0.5:
                kept = gateway.external()
        else:
            gateway.chain_break(bound=rng.random() < 0.8 or gateway.head == "genesis")
    return gateway, kept


def _damage(rng: random.Random, gateway: Gateway) -> None:
    lines = gateway.lines
    what = rng.choice(["none", "drop", "duplicate", "swap", "tamper", "cut", "fork", "genesis"])
    n = len(lines)
    if what == "drop" and n > 1:
        del lines[rng.randrange(n)]
    elif what == "duplicate":
        i = rng.randrange(n)
        lines.insert(rng.randrange(n + 1), lines[i])
    elif what == "swap" and n > 1:
        i, j = rng.sample(range(n), 2)
        lines[i], lines[j] = lines[j], lines[i]
    elif what == "tamper":
        i = rng.randrange(n)
        record = json.loads(lines[i])
        record["timestamp"] = "2000-01-01T00:00:00.000Z"
        lines[i] = json.dumps(record, separators=(",", ":")).encode()
    elif what == "cut" and n > 1:
        del lines[rng.randrange(1, n) :]
    elif what == "fork":
        i = rng.randrange(n)
        fork = Gateway(hmac_key=KEY, head=hashlib.sha256(lines[i]).hexdigest(), _n=90)
        fork.call("fs/delete")
        lines.insert(rng.randrange(i + 1, n + 1), fork.lines[0])
    elif what == "genesis":
        other = Gateway(hmac_key=KEY, _n=70)
        other.call("fs/replace")
        lines.insert(rng.randrange(n + 1), other.lines[0])


@pytest.mark.parametrize("seed", range(400))
def test_the_verifier_and_the_independent_reader_agree(seed: int) -> None:
    rng = random.Random(seed)
    gateway, kept = _honest(rng)
    _damage(rng, gateway)
    log = gateway.log()
    settings = WitnessSettings(
        (WitnessKey("hmac-sha256", KEY, "key"),),
        ()
        if kept is None
        else (
            ExternalCheckpoint(
                str(kept["previousHash"]),
                int(str(kept["sequence"])),
                int(str(kept["recordCount"])),
                None,
                "kept",
            ),
        ),
    )
    ours = {KINDS[f.code] for f in check_log("log.jsonl", log, settings) if f.code in KINDS}
    theirs = witness_reader.problems(log, KEY, kept)
    assert ours == theirs, log.decode()
