"""Witness logs (AI Agent Action v0.1) judged as the predicate asks: each chain the spec's rules
name (honest, forked, truncated behind a checkpoint, replaced by a second genesis, broken and
resumed, a tampered signature, a tampered content digest, ...) gets the verdict the spec gives
it, and an honest chain gets none."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.gateway import Gateway
from verifier.findings import Severity
from verifier.values.witness import ExternalCheckpoint, WitnessKey, WitnessSettings
from verifier.witness import check_log
from verifier.witness.signing import signing_form

KEY = bytes(range(32))
HMAC = WitnessSettings((WitnessKey("hmac-sha256", KEY, "key.hex"),))
PATH = "evidence/case-1/audit.jsonl"

#: the spec's worked example (v0.1.0, "Example"): its three JSONL lines, signed with HMAC-SHA256
#: under the key of 32 zero bytes, and their chain hashes as the spec prints them
SPEC_LINES = [
    b'{"id":"bf7a2f62-4d0f-4cce-afd2-cbfbf7bca2a5","timestamp":"2026-08-18T14:32:01.998Z",'
    b'"method":"tools/call","toolName":"github/create_pull_request","namespace":"github",'
    b'"upstream":"github-server","principal":"user:alice@example.com","durationMs":1247,'
    b'"success":true,"aiInvocation":{"model":"claude-sonnet-4-20250514","sessionId":'
    b'"conv_abc123","turnId":"turn_1"},"parties":[{"party":"gateway","role":"witness","scope":'
    b'["id","timestamp","method","toolName","namespace","upstream","principal","durationMs",'
    b'"success","errorCode","previousHash"]},{"party":"client","role":"asserter","scope":'
    b'["aiInvocation"]}],"previousHash":"genesis","attestation":'
    b'"a33a18da2dea9936e327b8cc19ff6c7ca532682be975ad8460466fed4209d03c"}',
    b'{"id":"ckpt_9a1b2c3d-4e5f-6789-abcd-ef0123456789","type":"checkpoint","timestamp":'
    b'"2026-08-18T14:33:42.101Z","sequence":1,"recordCount":1,"previousHash":'
    b'"cd26e6c4930f34da6dbbb53988f4920b13eedc7e3354ac51a82efeac9574e664","parties":[{"party":'
    b'"gateway","role":"witness","scope":["sequence","recordCount","previousHash"]}],'
    b'"attestation":"aa8ac887a8c3064d610306f8694a44ebe6ba4f4e118e417d268602b47a462f53"}',
    b'{"id":"brk_7f8e9d0c-1b2a-3456-cdef-0123456789ab","type":"chain_break","timestamp":'
    b'"2026-08-18T15:01:00.000Z","reason":"crash_recovery","priorHead":'
    b'"68964a4bb4cf84608fb1a63d1164c49485507f0545cf4fc8c7299361019b4898","priorSequence":1,'
    b'"priorRecordCount":1,"attestation":'
    b'"28ca6f7f395cf0028fd2b0290c0a507782a916ad3c1c8c735edea13926b901bb"}',
]
SPEC_KEY = WitnessSettings((WitnessKey("hmac-sha256", bytes(32), "zero.hex"),))


def codes(
    data: bytes, settings: WitnessSettings = HMAC, floor: Severity = Severity.WARNING
) -> list[str]:
    return [f.code for f in check_log(PATH, data, settings) if f.severity.rank >= floor.rank]


def honest(calls: int = 5, every: int = 2) -> Gateway:
    gateway = Gateway(hmac_key=KEY)
    for n in range(calls):
        gateway.call(f"fs/write_{n}")
        if (n + 1) % every == 0:
            gateway.checkpoint()
    return gateway


def test_the_specs_worked_example_verifies_with_its_key() -> None:
    log = b"\n".join(SPEC_LINES) + b"\n"
    found = check_log(PATH, log, SPEC_KEY)
    assert not [f for f in found if f.severity is not Severity.NOTE], found
    # the spec's own signing form of its first record, byte for byte
    record = json.loads(SPEC_LINES[0])
    assert signing_form("tool_call", record).startswith(
        b'[["id","bf7a2f62-4d0f-4cce-afd2-cbfbf7bca2a5"],["timestamp",'
    )
    assert b'["errorCode",null],["previousHash","genesis"],["aiInvocation",["M",[["model",' in (
        signing_form("tool_call", record)
    )


def test_the_specs_example_with_another_key_fails_every_signature() -> None:
    log = b"\n".join(SPEC_LINES) + b"\n"
    assert codes(log, HMAC) == ["chain.bad-signature"] * 3


def test_an_honest_chain_has_no_finding_above_a_note() -> None:
    gateway = honest()
    external = ExternalCheckpoint(**_kept(gateway), file=None, source="kept.json")
    settings = WitnessSettings(HMAC.keys, (external,))
    assert check_log(PATH, gateway.log(), settings) == []


def test_without_a_key_or_a_kept_checkpoint_the_notes_say_what_was_not_checked() -> None:
    found = check_log(PATH, honest().log())
    assert sorted(f.code for f in found) == ["chain.signatures-unchecked", "chain.tail-unanchored"]
    assert all(f.severity is Severity.NOTE for f in found)


def test_ed25519_signatures_verify_and_a_changed_record_does_not() -> None:
    private = Ed25519PrivateKey.generate()
    gateway = Gateway(ed25519=private)
    gateway.call("github/create_pull_request")
    gateway.call("github/merge")
    key = WitnessKey("ed25519", private.public_key().public_bytes_raw(), "gateway.pub")
    settings = WitnessSettings((key,))
    assert codes(gateway.log(), settings) == []
    other = WitnessKey("ed25519", Ed25519PrivateKey.generate().public_key().public_bytes_raw(), "x")
    assert codes(gateway.log(), WitnessSettings((other,))) == ["chain.bad-signature"] * 2


def test_a_tampered_signature_is_a_bad_signature_and_only_that() -> None:
    gateway = honest(3, 10)
    record = json.loads(gateway.lines[-1])
    record["attestation"] = "0" * 64
    gateway.lines[-1] = json.dumps(record, separators=(",", ":")).encode()
    assert codes(gateway.log()) == ["chain.bad-signature"]


def test_a_tampered_content_digest_breaks_the_link_of_the_record_after_it() -> None:
    """A field outside the signing form (a content digest) is covered by the chain hash: the
    next record no longer continues from the changed one."""
    gateway = Gateway(hmac_key=KEY)
    gateway.call("payments/create", contentDigestResponse="a" * 64)
    gateway.call("payments/readback")
    record = json.loads(gateway.lines[0])
    record["contentDigestResponse"] = "b" * 64
    gateway.lines[0] = json.dumps(record, separators=(",", ":")).encode()
    found = [f for f in check_log(PATH, gateway.log(), HMAC) if f.severity is not Severity.NOTE]
    assert [(f.code, f.line) for f in found] == [("chain.unlinked", 2)]


def test_a_fork_is_found_even_when_every_link_resolves() -> None:
    """The spec's "Chain fork": genesis and a second successor of it, presented alone, pass a
    set-membership check; the walk finds two successors."""
    gateway = Gateway(hmac_key=KEY)
    first = gateway.call("fs/read")
    after_first = gateway.head
    honest_next = gateway.call("fs/write")
    fork = Gateway(hmac_key=KEY, head=after_first, _n=5)
    parallel = fork.call("fs/delete")
    assert codes(first + b"\n" + honest_next + b"\n" + parallel + b"\n") == ["chain.fork"]
    # the fork alone (genesis and the parallel successor) walks clean: nothing proves it is
    # not the gateway's history, which is what only a kept checkpoint can show
    assert codes(first + b"\n" + parallel + b"\n") == []


def test_a_second_genesis_is_chain_replacement() -> None:
    gateway = honest(2, 10)
    replacement = Gateway(hmac_key=KEY, _n=60)
    replacement.call("fs/x")
    replacement.call("fs/y")
    assert codes(gateway.log() + replacement.log()) == ["chain.second-genesis"]


def test_a_dropped_record_is_one_gap_however_many_records_follow() -> None:
    gateway = honest(6, 100)
    del gateway.lines[2]
    found = [f for f in check_log(PATH, gateway.log(), HMAC) if f.severity is not Severity.NOTE]
    assert [(f.code, f.line) for f in found] == [("chain.unlinked", 3)]
    assert "2 more records continue from it" in found[0].message


def test_records_dropped_between_checkpoints_change_their_count() -> None:
    """Drop a record and rewrite the chain after it (an adversary holding the HMAC key):
    the links hold, the checkpoint after the gap counts one record too many."""
    gateway = Gateway(hmac_key=KEY)
    gateway.call("a")
    gateway.call("b")
    gateway.count += 1  # (the gateway counted a record the log no longer holds)
    gateway.checkpoint()
    assert codes(gateway.log()) == ["chain.checkpoint-count"]


def test_tail_truncation_behind_a_kept_checkpoint_is_found() -> None:
    gateway = honest(6, 2)
    kept = ExternalCheckpoint(**_kept(gateway), file=None, source="kept.json")
    settings = WitnessSettings(HMAC.keys, (kept,))
    del gateway.lines[-3:]  # the last checkpoint and the records before it
    assert codes(gateway.log(), settings) == ["chain.head-missing"]


def test_a_kept_checkpoint_of_another_log_does_not_apply() -> None:
    gateway = honest(4, 2)
    kept = ExternalCheckpoint("f" * 64, 9, 9, "evidence/case-2/audit.jsonl", "kept.json")
    found = check_log(PATH, gateway.log(), WitnessSettings(HMAC.keys, (kept,)))
    assert [f.code for f in found] == ["chain.tail-unanchored"]


def test_a_chain_broken_and_resumed_walks_and_its_break_is_checked() -> None:
    gateway = honest(3, 2)
    gateway.chain_break()
    gateway.call("after/1")
    gateway.checkpoint()
    assert codes(gateway.log()) == []
    # the break's counts changed: they no longer say where the chain was
    record = json.loads(gateway.lines[4])
    record["priorRecordCount"] = 7
    gateway.lines[4] = json.dumps(record, separators=(",", ":")).encode()
    assert codes(gateway.log(), WitnessSettings()) == ["chain.break-prior", "chain.unlinked"]


def test_a_break_with_records_after_its_prior_head_says_so() -> None:
    gateway = Gateway(hmac_key=KEY)
    gateway.call("a")
    head = gateway.head
    gateway.call("b")
    gateway.head, gateway.count = head, 1  # (state that lagged the log)
    gateway.chain_break()
    assert codes(gateway.log()) == ["chain.break-prior"]


def test_a_break_bound_to_nothing_after_records_is_a_warning() -> None:
    gateway = honest(2, 10)
    gateway.chain_break(bound=False)
    gateway.call("c")
    found = check_log(PATH, gateway.log(), HMAC)
    assert [(f.code, f.severity) for f in found if f.code.startswith("chain.break")] == [
        ("chain.break-unbound", Severity.WARNING)
    ]


def test_a_log_that_starts_with_a_break_needs_no_genesis() -> None:
    gateway = Gateway(hmac_key=KEY)
    gateway.chain_break("log_first_record_corrupt")
    gateway.call("a")
    assert codes(gateway.log()) == []


def test_a_log_without_its_start_has_no_genesis() -> None:
    gateway = honest(3, 10)
    del gateway.lines[0]
    assert codes(gateway.log()) == ["chain.no-genesis", "chain.unlinked"]


def test_checkpoint_sequences_must_increase() -> None:
    gateway = honest(4, 2)
    gateway.sequence = 0
    gateway.call("x")
    gateway.checkpoint()
    assert codes(gateway.log()) == ["chain.checkpoint-sequence"]


def test_lines_out_of_order_are_a_warning_and_the_chain_still_walks() -> None:
    gateway = honest(3, 10)
    gateway.lines[1], gateway.lines[2] = gateway.lines[2], gateway.lines[1]
    assert codes(gateway.log()) == ["chain.out-of-order"]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"type": "tool_result"}, "chain.unknown-type"),
        ({"durationMs": 2**53}, "chain.unsafe-integer"),
        ({"durationMs": 1.5}, "chain.malformed"),
        ({"success": "yes"}, "chain.malformed"),
        ({"extensions": json.loads("[" * 129 + "]" * 129)}, "chain.too-deep"),
    ],
)
def test_refused_records_are_findings_on_their_line(change: dict[str, Any], code: str) -> None:
    gateway = Gateway(hmac_key=KEY)
    gateway.call("a", **change)
    gateway.call("b")
    found = [f for f in check_log(PATH, gateway.log(), HMAC) if f.code == code]
    assert [f.line for f in found] == [1]


def test_extensions_at_the_bound_are_not_refused() -> None:
    gateway = Gateway(hmac_key=KEY)
    gateway.call("a", extensions=json.loads("[" * 128 + "]" * 128))
    assert "chain.too-deep" not in codes(gateway.log())


def test_a_line_that_is_not_json_is_malformed_and_the_chain_goes_on_around_it() -> None:
    gateway = honest(3, 10)
    gateway.lines.insert(1, b'{"id": "x", "id": "y"}')
    found = codes(gateway.log())
    assert found[0] == "chain.malformed"


def test_an_empty_log_is_never_a_pass() -> None:
    assert codes(b"\n\n", floor=Severity.NOTE) == ["chain.empty"]


def test_unattested_fields_are_named_once_per_kind() -> None:
    log = b"\n".join(SPEC_LINES[:2]) + b"\n"
    found = [f for f in check_log(PATH, log, SPEC_KEY) if f.code == "chain.unattested-field"]
    assert len(found) == 1
    assert found[0].line == 2 and "id, timestamp, type" in found[0].message
    assert found[0].severity is Severity.NOTE


def test_crlf_line_endings_hash_the_line_without_its_ending() -> None:
    log = b"\r\n".join(SPEC_LINES) + b"\r\n"
    assert codes(log, SPEC_KEY) == []


def _kept(gateway: Gateway) -> dict[str, Any]:
    last = gateway.external()
    return {
        "previous_hash": last["previousHash"],
        "sequence": last["sequence"],
        "record_count": last["recordCount"],
    }


def _statement(digest: str, predicate: dict[str, Any]) -> dict[str, Any]:
    return {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "session:agent-workspace-4f2a", "digest": {"sha256": digest}}],
        "predicateType": "https://in-toto.io/attestation/ai-agent-action/v0.1",
        "predicate": predicate,
    }


#: the spec's three example Statements (its "In-toto Statement" blocks), trimmed to the
#: members the chain reads
SPEC_STATEMENTS = [
    _statement(
        "cd26e6c4930f34da6dbbb53988f4920b13eedc7e3354ac51a82efeac9574e664",
        {
            "action": {
                "type": "tool_call",
                "protocol": "mcp",
                "method": "tools/call",
                "toolName": "github/create_pull_request",
                "namespace": "github",
                "timestamp": "2026-08-18T14:32:01.998Z",
                "durationMs": 1247,
                "success": True,
                "errorCode": None,
                "errorClass": None,
            },
            "agent": {"principal": "user:alice@example.com", "model": "claude-sonnet-4-20250514"},
            "chain": {"previousHash": "genesis"},
        },
    ),
    _statement(
        "68964a4bb4cf84608fb1a63d1164c49485507f0545cf4fc8c7299361019b4898",
        {
            "action": {"type": "checkpoint", "timestamp": "2026-08-18T14:33:42.101Z"},
            "checkpoint": {
                "sequence": 1,
                "recordCount": 1,
                "previousHash": "cd26e6c4930f34da6dbbb53988f4920b13eedc7e3354ac51a82efeac9574e664",
            },
        },
    ),
    _statement(
        "2cb2c22007b553470cd0775088dac6be6f3be1594a1caa9437e493916dea07a9",
        {
            "action": {"type": "chain_break", "timestamp": "2026-08-18T15:01:00.000Z"},
            "chainBreak": {
                "reason": "crash_recovery",
                "priorHead": "68964a4bb4cf84608fb1a63d1164c49485507f0545cf4fc8c7299361019b4898",
                "priorSequence": 1,
                "priorRecordCount": 1,
            },
        },
    ),
]


def _jsonl(values: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(v).encode() + b"\n" for v in values)


def test_the_specs_statements_walk_over_their_claimed_hashes() -> None:
    found = check_log(PATH, _jsonl(SPEC_STATEMENTS))
    assert sorted(f.code for f in found if f.severity is not Severity.NOTE) == []
    assert "chain.hashes-claimed" in {f.code for f in found}
    # a checkpoint that no longer follows the record it names breaks the walk
    broken = json.loads(json.dumps(SPEC_STATEMENTS))
    broken[1]["predicate"]["checkpoint"]["previousHash"] = "0" * 64
    found = check_log(PATH, _jsonl(broken))
    assert [(f.code, f.line) for f in found if f.severity is Severity.ERROR] == [
        ("chain.unlinked", 2),
        ("chain.break-prior", 3),  # (its prior head is that record, now outside the chain)
    ]
    # with a key, a bare Statement is unsigned
    assert codes(_jsonl(SPEC_STATEMENTS), HMAC) == ["chain.unsigned"] * 3


def test_statements_in_dsse_envelopes_are_checked_against_an_ed25519_key() -> None:
    import base64

    from verifier.authenticity.dsse import PAYLOAD_TYPE, pae

    private = Ed25519PrivateKey.generate()
    key = WitnessSettings((WitnessKey("ed25519", private.public_key().public_bytes_raw(), "k"),))

    def envelope(statement: dict[str, Any], body: bytes | None = None) -> dict[str, Any]:
        payload = json.dumps(statement).encode()
        sig = private.sign(pae(PAYLOAD_TYPE, payload))
        return {
            "payloadType": PAYLOAD_TYPE,
            "payload": base64.b64encode(body or payload).decode(),
            "signatures": [{"keyid": "", "sig": base64.b64encode(sig).decode()}],
        }

    envelopes = [envelope(s) for s in SPEC_STATEMENTS]
    assert codes(_jsonl(envelopes), key) == []
    changed = json.loads(json.dumps(SPEC_STATEMENTS[0]))
    changed["predicate"]["action"]["success"] = False
    envelopes[0] = envelope(SPEC_STATEMENTS[0], json.dumps(changed).encode())
    assert codes(_jsonl(envelopes), key) == ["chain.bad-signature"]


@pytest.mark.parametrize(
    "line",
    [
        {
            "_type": "https://in-toto.io/Statement/v1",
            "predicateType": "https://slsa.dev/provenance/v1",
        },
        {"payloadType": "text/plain", "payload": "", "signatures": []},
        {"payloadType": "application/vnd.in-toto+json", "payload": "!!", "signatures": []},
        {**SPEC_STATEMENTS[0], "subject": []},
    ],
)
def test_lines_that_are_no_statement_of_the_predicate_are_refused(line: dict[str, Any]) -> None:
    found = [f for f in check_log(PATH, _jsonl([line])) if f.code == "chain.malformed"]
    assert [f.line for f in found] == [1]
