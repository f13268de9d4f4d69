"""Findings: one type for every problem any stage, command or view reports, with its stable
code, stage and severity (the codes table is the command's interface)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class Severity(StrEnum):
    """How much a finding weighs, named as SARIF names its levels. Only errors fail a run,
    unless ``--fail-on`` lowers the bar."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def reaches(self, threshold: Severity) -> bool:
        """Whether a finding of this severity fails a run that fails on ``threshold``."""
        return self.rank >= threshold.rank


_RANK = MappingProxyType({Severity.NOTE: 0, Severity.WARNING: 1, Severity.ERROR: 2})


class Stage(StrEnum):
    """The pipeline's stages, in the order they run."""

    AUTHENTICITY = "authenticity"  # a signature over the manifest, before its hashes
    INTEGRITY = "integrity"
    VALIDITY = "validity"
    CONSISTENCY = "consistency"
    COVERAGE = "coverage"  # verify-evidence coverage's audit of the spec, not a check stage


# Every finding code, its stage and what it means. Codes are stable: they are part of the
# command's interface (docs/finding-codes.md is generated from them by tests/docs_pages.py).
CODES: Mapping[str, tuple[Stage, str]] = MappingProxyType(
    {
        "manifest.missing": (Stage.INTEGRITY, "a listed file does not exist"),
        "manifest.mismatch": (
            Stage.INTEGRITY,
            "a listed file's digest (SHA-256, or a bag manifest's algorithm) differs from the "
            "manifest",
        ),
        "manifest.unlisted": (
            Stage.INTEGRITY,
            "a regular file in the manifest's scope is not listed",
        ),
        "manifest.malformed": (Stage.INTEGRITY, "a manifest line is not a valid checksum line"),
        "manifest.duplicate": (Stage.INTEGRITY, "a file is listed more than once"),
        "manifest.unsafe-path": (
            Stage.INTEGRITY,
            "a listed name is absolute, has '..' or empty segments, a NUL, or goes through a link",
        ),
        "manifest.self-listed": (Stage.INTEGRITY, "the manifest lists itself"),
        "manifest.unreadable": (Stage.INTEGRITY, "a listed file exists but could not be read"),
        "manifest.not-regular": (Stage.INTEGRITY, "a listed name is a directory or special file"),
        "manifest.empty": (Stage.INTEGRITY, "the manifest has no checksum lines"),
        "manifest.refused": (
            Stage.INTEGRITY,
            "the manifest is a link, a special file or over the size limit; it was not read",
        ),
        "manifest.unreadable-folder": (
            Stage.INTEGRITY,
            "a folder in the manifest's scope could not be listed; files in it were not checked",
        ),
        "manifest.changed": (
            Stage.INTEGRITY,
            "a bag of an archive: the archive's manifest read for it differs from the bytes the "
            "bag's manifest was checked against (it changed while the bag was read)",
        ),
        # Sources (verifier.sources): the one safety policy, git blob ids, BagIt bags.
        "manifest.git-blob-mismatch": (
            Stage.INTEGRITY,
            "in git mode, a file's bytes do not hash to the blob id the commit records",
        ),
        "source.unsafe-member": (
            Stage.INTEGRITY,
            "an archive entry's name is absolute, has '..' or empty segments, a NUL or another "
            "control character, or reads differently in different tools; refused",
        ),
        "source.duplicate-member": (
            Stage.INTEGRITY,
            "an archive holds a name more than once, or as both a file and a folder; refused",
        ),
        "source.name-collision": (
            Stage.INTEGRITY,
            "archive names equal after Unicode NFC normalisation or case folding; all refused",
        ),
        "source.too-large": (
            Stage.INTEGRITY,
            "an archive entry is over the size or compression-ratio limit (a bomb); not read",
        ),
        "source.unreadable": (
            Stage.INTEGRITY,
            "an archive is damaged (truncated, corrupt); nothing after the damage was read",
        ),
        "source.trailing-data": (
            Stage.INTEGRITY,
            "an archive holds data after its end (after a tar's end-of-archive marker or the "
            "last compressed stream) that tools reading on would take for more entries",
        ),
        "bag.malformed": (
            Stage.INTEGRITY,
            "a BagIt bag's declaration, bag-info.txt, data/ folder or payload manifest is missing "
            "or invalid, or a manifest's algorithm is unknown",
        ),
        "bag.oxum-mismatch": (
            Stage.INTEGRITY,
            "a bag's Payload-Oxum differs from the payload's size and file count",
        ),
        "bag.fetch-invalid": (
            Stage.INTEGRITY,
            "a bag's fetch.txt line is malformed, or names a path outside data/ or outside the "
            "bag, "
            "or one no payload manifest lists",
        ),
        "bag.not-fetched": (
            Stage.INTEGRITY,
            "a listed payload file is absent and fetch.txt names it: not fetched (offline), not "
            "checked",
        ),
        "record.invalid-json": (
            Stage.VALIDITY,
            "a record is not strict JSON (UTF-8 without BOM, no NaN, no trailing data)",
        ),
        "record.duplicate-key": (Stage.VALIDITY, "a JSON object in a record repeats a key"),
        "record.unrepresentable-number": (
            Stage.VALIDITY,
            "a number in a record is beyond the range of a double (1e400) or rounds to zero "
            "(1e-400)",
        ),
        "record.no-schema": (Stage.VALIDITY, "a record does not name its schema in '$schema'"),
        "schema.invalid": (Stage.VALIDITY, "a record does not conform to its schema"),
        "schema.unresolved": (
            Stage.VALIDITY,
            "a schema or $ref is not available in schemas/ (no network is ever used)",
        ),
        "schema.bad-schema": (
            Stage.VALIDITY,
            "a file in schemas/ is not a valid Draft 2020-12 schema",
        ),
        "schema.pattern-budget": (
            Stage.VALIDITY,
            "a schema pattern ran over its backtracking budget on a record: not checked",
        ),
        "assertion.failed": (Stage.CONSISTENCY, "an assertion's condition does not hold"),
        "assertion.error": (
            Stage.CONSISTENCY,
            "an assertion could not be evaluated (a pointer resolves to nothing or is not a JSON "
            "pointer, a file is missing, unparsable or not listed, a parameter is malformed)",
        ),
        "assertion.spec-invalid": (Stage.CONSISTENCY, "the assertion spec cannot be used"),
        "assertion.no-spec": (
            Stage.CONSISTENCY,
            "the archive holds records but no assertion spec: no claim across them was checked",
        ),
        "assertion.vacuous": (
            Stage.CONSISTENCY,
            "an assertion holds only because there was nothing to check (no file matched, no "
            "value compared, no assertion listed); never a pass",
        ),
        "assertion.internal-error": (
            Stage.CONSISTENCY,
            "an assertion kind's own code failed: a bug in the verifier, not in the archive; "
            "never a pass",
        ),
        "rule.no-cases": (
            Stage.CONSISTENCY,
            "the spec has rules but its case glob matches no folder (or it names none): no rule "
            "was checked; fix 'cases': {'folders': GLOB} to match the case folders",
        ),
        "rule.case-unjudged": (
            Stage.CONSISTENCY,
            "with everyCaseJudged, a case that no rule instance and no assertion reads; add a "
            "rule or an assertion for it, or narrow the case glob",
        ),
        "rule.case-not-literal": (
            Stage.CONSISTENCY,
            "a case folder whose name holds * or ?, which a rule's files glob cannot name "
            "literally: the rule was not checked for it; rename the folder or write the "
            "assertion out",
        ),
        "rule.too-many": (
            Stage.CONSISTENCY,
            "the rules stand for more assertions than the entry limit (cases times rules): the "
            "rest were not checked; raise the limit or split the archive",
        ),
        "catalogue.unresolved": (
            Stage.CONSISTENCY,
            "a case catalogue cell selects a value the records do not hold (a file not parsed, a "
            "pointer to nothing, a count of something not an array)",
        ),
        "catalogue.unknown-assertion": (
            Stage.CONSISTENCY,
            "a case catalogue cell or case names an assertion the assertion spec does not have",
        ),
        # Tool-call transcripts (verifier.transcripts): `transcript check`, and the archive's
        # transcript records in the validity stage.
        "transcript.dangling-call": (
            Stage.VALIDITY,
            "a tool call has no result inside its answer window (before the next turn, or the end)",
        ),
        "transcript.orphan-result": (
            Stage.VALIDITY,
            "a tool result answers no call made before it",
        ),
        "transcript.name-mismatch": (
            Stage.VALIDITY,
            "a tool result answers a call by its id but names a different tool",
        ),
        "transcript.duplicate-result": (
            Stage.VALIDITY,
            "a tool result answers a call that already has its result",
        ),
        "transcript.misplaced-result": (
            Stage.VALIDITY,
            "a tool result comes after its call's answer window closed",
        ),
        "transcript.reused-id": (
            Stage.VALIDITY,
            "a tool call reuses the id of an earlier call that has no result yet (a later result "
            "with that id could belong to either)",
        ),
        "transcript.reused-answered-id": (
            Stage.VALIDITY,
            "a tool call reuses the id of an earlier call already answered (the walk pairs by "
            "position, so nothing is ambiguous)",
        ),
        "transcript.unmarked-interruption": (
            Stage.VALIDITY,
            "a result marked as an interruption record does not say the explicit marker",
        ),
        "transcript.malformed": (
            Stage.VALIDITY,
            "a transcript is not JSON / JSON Lines or does not fit its message shape",
        ),
        "transcript.ambiguous-shape": (
            Stage.VALIDITY,
            "a transcript's messages look like more than one message shape; none is guessed",
        ),
        "transcript.abandoned-dangling-call": (
            Stage.VALIDITY,
            "on an abandoned branch of a tree history (not the path the run continued on), a "
            "tool call has no result inside its answer window",
        ),
        "transcript.unresolved-reference": (
            Stage.VALIDITY,
            "a container's reference (an Inspect message pool id, an attachment:// link) "
            "resolves to nothing",
        ),
        "transcript.too-many-branches": (
            Stage.VALIDITY,
            "a tree history has more abandoned branches than are checked (200 per tree); the "
            "rest were not checked",
        ),
        "transcript.duplicate-id": (
            Stage.VALIDITY,
            "two entries of a history carry the same id (a tree's entry id or uuid, an event, "
            "step, message or item id, an Anthropic tool_use id), or two runs of a result file "
            "claim the same task (an OpenHands instance_id, a tau-bench task_id and trial): each "
            "was read and checked on its own, but a link to that id is ambiguous",
        ),
        "transcript.empty": (
            Stage.VALIDITY,
            "a transcript (a file, or a run inside a container) from which no message was read: "
            "nothing in it was checked",
        ),
        "transcript.unmatched-pattern": (
            Stage.VALIDITY,
            "an entry of the assertion spec's 'transcripts' list matches no file the manifest "
            "lists: no container was checked for it",
        ),
        "transcript.unreadable-member": (
            Stage.VALIDITY,
            "a container's member could not be read: refused by the zip safety rules, damaged, "
            "or compressed with a method that cannot be decoded here (zstd without zstandard)",
        ),
        # Witness logs (verifier.witness): AI Agent Action v0.1 audit chains named in the
        # assertion spec's 'witnesses', in the validity stage.
        "chain.empty": (
            Stage.VALIDITY,
            "a witness log (the spec's 'witnesses') holds no record: nothing was witnessed",
        ),
        "chain.malformed": (
            Stage.VALIDITY,
            "a line of a witness log is not one JSON object, or a record lacks a field its type "
            "requires or has one of the wrong type: the record is refused",
        ),
        "chain.unknown-type": (
            Stage.VALIDITY,
            "a witness record's type is none of tool_call, checkpoint and chain_break: refused, "
            "as the predicate requires",
        ),
        "chain.too-deep": (
            Stage.VALIDITY,
            "a witness record's extensions nest deeper than 128 levels: refused",
        ),
        "chain.unsafe-integer": (
            Stage.VALIDITY,
            "a witness record's integer field is at or past 2^53: refused (readers disagree on "
            "its value)",
        ),
        "chain.no-genesis": (
            Stage.VALIDITY,
            "no record of a witness log continues from 'genesis' and none is a chain break: the "
            "chain has no start",
        ),
        "chain.second-genesis": (
            Stage.VALIDITY,
            "a second record of a witness log continues from 'genesis': the chain was replaced",
        ),
        "chain.fork": (
            Stage.VALIDITY,
            "two records of a witness log continue from the same record: two histories, which one "
            "is the gateway's the log cannot say",
        ),
        "chain.out-of-order": (
            Stage.VALIDITY,
            "a witness record continues from a record that comes after it in the file",
        ),
        "chain.unlinked": (
            Stage.VALIDITY,
            "a witness record continues from a record that is not in the log (records dropped or "
            "changed): no walk from the chain's start reaches it",
        ),
        "chain.checkpoint-sequence": (
            Stage.VALIDITY,
            "a checkpoint's sequence does not increase over the checkpoint before it in the chain",
        ),
        "chain.checkpoint-count": (
            Stage.VALIDITY,
            "a checkpoint's recordCount differs from the tool-call records the chain holds before "
            "it",
        ),
        "chain.break-unbound": (
            Stage.VALIDITY,
            "a chain break after other records names no prior head: nothing binds it to the "
            "records before it",
        ),
        "chain.break-prior": (
            Stage.VALIDITY,
            "a chain break's priorHead, priorSequence or priorRecordCount disagrees with the "
            "chain before it",
        ),
        "chain.head-missing": (
            Stage.VALIDITY,
            "a checkpoint kept outside the archive (--checkpoint) is not in the chain: records up "
            "to it were cut, or the chain was replaced",
        ),
        "chain.tail-unanchored": (
            Stage.VALIDITY,
            "no checkpoint kept outside the archive was given for a witness log: records cut from "
            "its end would leave no trace",
        ),
        "chain.signatures-unchecked": (
            Stage.VALIDITY,
            "no witness key was given (--witness-key): the records' attestations were not checked",
        ),
        "chain.unsigned": (
            Stage.VALIDITY,
            "a witness key was given and a record has no attestation",
        ),
        "chain.bad-signature": (
            Stage.VALIDITY,
            "a record's attestation is not the witness key's signature over its signing form (or "
            "the record has none)",
        ),
        "chain.unattested-field": (
            Stage.VALIDITY,
            "a witness record holds fields no party's scope names: their provenance is unknown",
        ),
        "chain.hashes-claimed": (
            Stage.VALIDITY,
            "a witness log holds in-toto Statements: their chain hashes are their subject "
            "digests as stated, not computed from the gateway's lines",
        ),
        "chain.unmatched-pattern": (
            Stage.VALIDITY,
            "an entry of the assertion spec's 'witnesses' list matches no file the manifest "
            "lists: no log was checked for it",
        ),
        "chain.checkpoint-unmatched": (
            Stage.VALIDITY,
            "a --checkpoint names a log that is not one of the spec's witness logs, or the spec "
            "names none: it was checked against nothing",
        ),
        # Withheld files (verifier.plan.withheld): withheld.json beside the manifest.
        "manifest.withheld": (
            Stage.INTEGRITY,
            "a listed file is absent and the withheld list beside the manifest withholds it: "
            "its digest is committed, its content not checked",
        ),
        "withheld.unbound": (
            Stage.INTEGRITY,
            "the withheld list is not listed in the manifest: nothing binds it, so it is not "
            "honored",
        ),
        "withheld.malformed": (
            Stage.INTEGRITY,
            'the withheld list, or an entry of it, is not {"withheld": [{"path", '
            '"reason"}]}: not honored',
        ),
        "withheld.not-listed": (
            Stage.INTEGRITY,
            "the withheld list names a file the manifest does not list (no committed digest)",
        ),
        "withheld.present": (
            Stage.INTEGRITY,
            "the withheld list names a file the archive holds: it was checked as any file",
        ),
        "withheld.supplied": (
            Stage.INTEGRITY,
            "a withheld file was read from --withheld-dir and checked as any listed file",
        ),
        "assertion.withheld": (
            Stage.CONSISTENCY,
            "an assertion needs a file the publisher withholds: not evaluable, never a pass",
        ),
        # Acceptance (verifier.accept): the baseline file given with --baseline.
        "baseline.unmatched": (
            Stage.INTEGRITY,
            "a --baseline entry accepts a finding this run did not report (fixed or changed)",
        ),
        "baseline.no-digest": (
            Stage.INTEGRITY,
            "a --baseline entry accepts a finding about a file's bytes but records no SHA-256 of "
            "them (an older baseline): it accepts nothing until re-accepted",
        ),
        # verify-evidence coverage: its own report's findings, never a check's.
        "coverage.uncovered": (
            Stage.COVERAGE,
            "no assertion or catalogue cell compares a recorded value, and the spec does not "
            "excuse it",
        ),
        "coverage.unused-excuse": (
            Stage.COVERAGE,
            "an entry of the spec's 'unasserted' list excuses no uncovered value",
        ),
        "coverage.unread": (
            Stage.COVERAGE,
            "a listed record could not be read or parsed, so its values were not audited",
        ),
        "coverage.check-failed": (
            Stage.COVERAGE,
            "the audited archive does not pass check; coverage was measured on what could be read",
        ),
        "coverage.nothing": (Stage.COVERAGE, "no record was audited: there was nothing to measure"),
        "coverage.below-threshold": (
            Stage.COVERAGE,
            "the share of covered values is under --fail-under",
        ),
        "coverage.survived": (
            Stage.COVERAGE,
            "a mutant survived: a covered value changed to another schema-valid value and check "
            "still passed",
        ),
        "coverage.not-mutated": (
            Stage.COVERAGE,
            "a covered value has no schema-valid alternative of its type, so no mutant was tried",
        ),
        "coverage.mutation-incomplete": (
            Stage.COVERAGE,
            "--max-mutants or the time budget stopped mutation before every covered value was "
            "tried",
        ),
        # Authenticity (verifier.authenticity): a signature over the manifest's bytes.
        "signature.bad": (
            Stage.AUTHENTICITY,
            "a signature does not verify over the manifest's bytes with its key",
        ),
        "signature.untrusted-key": (
            Stage.AUTHENTICITY,
            "the signing key is not one the trust given (allowed signers, minisign key, "
            "keyring) names",
        ),
        "signature.namespace-mismatch": (
            Stage.AUTHENTICITY,
            "an SSH signature's namespace is not the one expected, or the allowed signer's "
            "namespaces= excludes it",
        ),
        "signature.identity-mismatch": (
            Stage.AUTHENTICITY,
            "the key is trusted, but not for the identity asked for (--identity)",
        ),
        "signature.key-expired": (
            Stage.AUTHENTICITY,
            "the key is outside its validity window (valid-after/valid-before, or an expired "
            "OpenPGP key)",
        ),
        "signature.subject-mismatch": (
            Stage.AUTHENTICITY,
            "an attestation's subjects are not those of the archive given with it "
            "(attestation verify --source): a digest it does not have, or its manifest's "
            "digest under another name; the statement is about other bytes or another file",
        ),
        "signature.unparsable": (
            Stage.AUTHENTICITY,
            "a signature file (or a trust file) cannot be parsed, or is refused unread",
        ),
        "signature.absent": (
            Stage.AUTHENTICITY,
            "a signature is expected (--require-signature, or a trust anchor given: "
            "--allowed-signers, --minisign-key, --keyring) but none was found or given",
        ),
        "signature.tool-missing": (
            Stage.AUTHENTICITY,
            "the program that verifies this signature format (gpgv) is not installed",
        ),
        "signature.cert-authority": (
            Stage.AUTHENTICITY,
            "an allowed_signers line that would match is a cert-authority line; SSH "
            "certificates are not supported",
        ),
        "signature.legacy-minisign": (
            Stage.AUTHENTICITY,
            "a legacy minisign signature (Ed, not prehashed) refused without "
            "--allow-legacy-minisign",
        ),
        "signature.unsupported": (
            Stage.AUTHENTICITY,
            "a signature's version, key type or hash algorithm is not one this verifier accepts",
        ),
        "signature.not-exact-bytes": (
            Stage.AUTHENTICITY,
            "a signature that does not sign the manifest's exact bytes (an OpenPGP signature "
            "of a class other than 0x00, binary: text mode normalises line endings)",
        ),
        "signature.no-trust": (
            Stage.AUTHENTICITY,
            "a signature was found and authenticity options given, but none that can check it, "
            "and no other signature verified",
        ),
        "signature.not-checked": (
            Stage.AUTHENTICITY,
            "a signature was not checked (no trust given for its format): another one "
            "verified, or no authenticity option was given at all",
        ),
    }
)


# The severity of each code, fixed per code and chosen one by one: a new code in CODES needs
# its line here (tests/unit/test_severities.py fails without it; docs/finding-codes.md
# lists them). Errors fail a run; a warning or a note only under --fail-on.
SEVERITIES: Mapping[str, Severity] = MappingProxyType(
    {
        "manifest.missing": Severity.ERROR,
        "manifest.mismatch": Severity.ERROR,
        "manifest.unlisted": Severity.ERROR,
        "manifest.malformed": Severity.ERROR,
        "manifest.duplicate": Severity.ERROR,
        "manifest.unsafe-path": Severity.ERROR,
        "manifest.self-listed": Severity.ERROR,
        "manifest.unreadable": Severity.ERROR,
        "manifest.not-regular": Severity.ERROR,
        "manifest.empty": Severity.ERROR,
        "manifest.refused": Severity.ERROR,
        "manifest.unreadable-folder": Severity.ERROR,  # files in it were not checked
        "manifest.changed": Severity.ERROR,
        "manifest.git-blob-mismatch": Severity.ERROR,
        "source.unsafe-member": Severity.ERROR,
        "source.duplicate-member": Severity.ERROR,
        "source.name-collision": Severity.ERROR,
        "source.too-large": Severity.ERROR,
        "source.unreadable": Severity.ERROR,
        "source.trailing-data": Severity.ERROR,
        "bag.malformed": Severity.ERROR,
        "bag.oxum-mismatch": Severity.ERROR,
        "bag.fetch-invalid": Severity.ERROR,
        "bag.not-fetched": Severity.ERROR,  # a file not checked is never a pass
        "record.invalid-json": Severity.ERROR,
        "record.duplicate-key": Severity.ERROR,
        "record.no-schema": Severity.ERROR,
        "record.unrepresentable-number": Severity.ERROR,  # readers turn it into infinity or zero
        "schema.invalid": Severity.ERROR,
        "schema.unresolved": Severity.ERROR,
        "schema.bad-schema": Severity.ERROR,
        "schema.pattern-budget": Severity.ERROR,
        "assertion.failed": Severity.ERROR,
        "assertion.error": Severity.ERROR,
        "assertion.spec-invalid": Severity.ERROR,
        "assertion.no-spec": Severity.ERROR,  # records whose claims nothing checked: never a pass
        "assertion.vacuous": Severity.ERROR,  # nothing was checked: never a pass
        "assertion.internal-error": Severity.ERROR,  # a bug: nothing was checked
        "rule.no-cases": Severity.ERROR,  # no rule was checked: never a pass
        "rule.case-unjudged": Severity.ERROR,
        "rule.case-not-literal": Severity.ERROR,  # an instance not checked: never a pass
        "rule.too-many": Severity.ERROR,  # instances not checked: never a pass
        "catalogue.unresolved": Severity.ERROR,
        "catalogue.unknown-assertion": Severity.ERROR,
        "transcript.dangling-call": Severity.ERROR,
        "transcript.orphan-result": Severity.ERROR,
        "transcript.name-mismatch": Severity.ERROR,
        "transcript.duplicate-result": Severity.ERROR,
        "transcript.misplaced-result": Severity.ERROR,
        "transcript.reused-id": Severity.ERROR,
        "transcript.reused-answered-id": Severity.NOTE,
        "transcript.unmarked-interruption": Severity.ERROR,
        "transcript.malformed": Severity.ERROR,
        "transcript.ambiguous-shape": Severity.ERROR,  # nothing in it was paired
        "transcript.abandoned-dangling-call": Severity.NOTE,  # the run did not continue there
        "transcript.unresolved-reference": Severity.ERROR,
        "transcript.unreadable-member": Severity.ERROR,  # a history not read is never a pass
        "transcript.empty": Severity.ERROR,  # nothing was checked: never a pass
        "transcript.unmatched-pattern": Severity.ERROR,  # nothing checked is never a pass
        "transcript.too-many-branches": Severity.ERROR,  # branches not checked: never a pass
        "transcript.duplicate-id": Severity.ERROR,  # which entry a link means is unknown
        "chain.empty": Severity.ERROR,
        "chain.malformed": Severity.ERROR,
        "chain.unknown-type": Severity.ERROR,
        "chain.too-deep": Severity.ERROR,
        "chain.unsafe-integer": Severity.ERROR,
        "chain.no-genesis": Severity.ERROR,
        "chain.second-genesis": Severity.ERROR,
        "chain.fork": Severity.ERROR,
        "chain.out-of-order": Severity.WARNING,
        "chain.unlinked": Severity.ERROR,
        "chain.checkpoint-sequence": Severity.ERROR,
        "chain.checkpoint-count": Severity.ERROR,
        "chain.break-unbound": Severity.WARNING,
        "chain.break-prior": Severity.ERROR,
        "chain.head-missing": Severity.ERROR,
        "chain.tail-unanchored": Severity.NOTE,
        "chain.signatures-unchecked": Severity.NOTE,
        "chain.unsigned": Severity.ERROR,
        "chain.bad-signature": Severity.ERROR,
        "chain.unattested-field": Severity.NOTE,
        "chain.hashes-claimed": Severity.NOTE,
        "chain.unmatched-pattern": Severity.ERROR,
        "chain.checkpoint-unmatched": Severity.ERROR,
        "manifest.withheld": Severity.WARNING,  # declared, digest committed: not verified
        "withheld.unbound": Severity.ERROR,
        "withheld.malformed": Severity.ERROR,
        "withheld.not-listed": Severity.ERROR,
        "withheld.present": Severity.NOTE,
        "withheld.supplied": Severity.NOTE,
        "assertion.withheld": Severity.ERROR,  # a claim not checked is never a pass
        "baseline.unmatched": Severity.WARNING,  # a stale entry; --fail-on warning fails it
        "baseline.no-digest": Severity.WARNING,  # its finding counts again: an error already
        "coverage.uncovered": Severity.NOTE,  # coverage alone exits 0 unless --fail-under
        "coverage.unused-excuse": Severity.WARNING,
        "coverage.unread": Severity.ERROR,  # a record not audited is never a pass
        "coverage.check-failed": Severity.ERROR,
        "coverage.nothing": Severity.ERROR,
        "coverage.below-threshold": Severity.ERROR,
        "coverage.survived": Severity.ERROR,
        "coverage.not-mutated": Severity.NOTE,
        "coverage.mutation-incomplete": Severity.WARNING,
        "signature.bad": Severity.ERROR,
        "signature.untrusted-key": Severity.ERROR,
        "signature.namespace-mismatch": Severity.ERROR,
        "signature.identity-mismatch": Severity.ERROR,
        "signature.key-expired": Severity.ERROR,
        "signature.subject-mismatch": Severity.ERROR,
        "signature.unparsable": Severity.ERROR,
        "signature.absent": Severity.ERROR,
        "signature.tool-missing": Severity.ERROR,
        "signature.cert-authority": Severity.ERROR,
        "signature.legacy-minisign": Severity.ERROR,
        "signature.unsupported": Severity.ERROR,
        "signature.not-exact-bytes": Severity.ERROR,
        "signature.no-trust": Severity.ERROR,
        "signature.not-checked": Severity.NOTE,
    }
)


#: letters whose name starts with a vowel sound, for an initialism (``an RSA key``, ``an SSH``)
_VOWEL_NAMED = frozenset("AEFHILMNORSX")


def a_or_an(noun: str) -> str:
    """``noun`` after its indefinite article, for messages that name a word they do not
    choose (a shape, a container's title, a code): ``an anthropic``, ``an ATIF trajectory``,
    ``a gemini``, ``an RSA key``. A word starting with two capitals is read letter by letter
    (an initialism); any other by its first letter (a vowel takes ``an``); quotes and
    backticks before it are skipped."""
    word = noun.lstrip("'\"`(")
    if len(word) > 1 and word[0].isupper() and word[1].isupper():
        vowel = word[0] in _VOWEL_NAMED
    else:
        vowel = word[:1].lower() in ("a", "e", "i", "o", "u")
    return f"{'an' if vowel else 'a'} {noun}"


def severity_of(code: str) -> Severity:
    """The severity of ``code``; a code without one counts as an error (never lower)."""
    return SEVERITIES.get(code, Severity.ERROR)


@dataclass(frozen=True, slots=True)
class Cause:
    """The earlier finding a finding is blocked by (cascade control): the finding that made
    a file unusable (its digest, its absence, its parse) names it here when an assertion or
    a catalogue cell that read that file could not be judged on its own. ``fingerprint`` is
    the cause's :func:`verifier.fingerprint.fingerprint`, so a view can find it again."""

    code: str
    path: str
    pointer: str | None
    fingerprint: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "path": self.path}
        if self.pointer is not None:
            out["pointer"] = self.pointer
        out["fingerprint"] = self.fingerprint
        return out


@dataclass(frozen=True, slots=True)
class Related:
    """Another place a finding is about: the entry of the assertion spec whose assertion
    made a finding filed on the record it read (``path`` the spec, ``pointer`` the entry,
    ``line`` and ``column`` where it starts, when placed)."""

    path: str
    pointer: str
    line: int | None = None
    column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "pointer": self.pointer}
        if self.line is not None:
            out["line"] = self.line
        if self.column is not None:
            out["column"] = self.column
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: found by a stage of ``check``, by ``coverage``, or in a transcript
    (``transcript check``: there ``index``, ``call_id`` and ``tool`` name the message, call id
    and tool it concerns). The one finding type of every report."""

    code: str
    path: str
    message: str
    pointer: str | None = None
    line: int | None = None
    hint: str | None = None
    index: int | None = None
    call_id: str | None = None
    tool: str | None = None
    transcript: str | None = None  # in a container of several: which one (sample, path)
    #: the column of ``line`` (1-based, in Unicode code points), when the finding has one
    column: int | None = None
    #: the file ``line`` and ``column`` count in, when it is not ``path``: a manifest line's
    #: finding about a listed file (``path``) is placed on its line of the manifest (``at``)
    at: str | None = None
    #: the earlier finding this one is blocked by (cascade control), when it has one: it is
    #: still reported with its own code, and views show it once under its cause
    cause: Cause | None = None
    #: the spec entry of the assertion that made this finding, when it is filed elsewhere
    #: (on the record the assertion read): ``evidence/assertions.json#/assertions/8``
    related: Related | None = None
    #: the manifest the finding is against, when a run checks more than one archive's
    #: manifest: a bag's own (``manifest-sha256.txt``) and the one inside its payload
    #: (``data/manifest.sha256``); ``None``: the run's one manifest, or no manifest's
    manifest: str | None = None

    @property
    def blocked(self) -> bool:
        """Whether an earlier finding caused this one (see :class:`Cause`)."""
        return self.cause is not None

    @property
    def location_path(self) -> str:
        """The file an editor or CI annotation should open: ``at`` if set, else ``path``."""
        return self.at if self.at is not None else self.path

    @property
    def stage(self) -> Stage:
        return CODES[self.code][0]

    @property
    def severity(self) -> Severity:
        return severity_of(self.code)

    def sort_key(self) -> tuple[str, str, int, str, str]:
        return (self.path, self.code, self.line or 0, self.pointer or "", self.message)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity.value,
            "path": self.path,
            "message": self.message,
        }
        for key, value in (
            ("pointer", self.pointer),
            ("line", self.line),
            ("column", self.column),
            ("at", self.at),
            ("hint", self.hint),
            ("index", self.index),
            ("callId", self.call_id),
            ("tool", self.tool),
            ("transcript", self.transcript),
            ("manifest", self.manifest),
            ("cause", None if self.cause is None else self.cause.to_dict()),
            ("related", None if self.related is None else self.related.to_dict()),
        ):
            if value is not None:
                out[key] = value
        return out
