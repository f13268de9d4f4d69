"""Evidence from an independent witness: AI Agent Action v0.1 audit chains
(``https://in-toto.io/attestation/ai-agent-action/v0.1``), the hash-chained, signed records
a gateway between agent and tool server writes, one per tool call (:func:`check_log`)."""

from verifier.witness.chain import check_log, read_chain

PREDICATE_TYPE = "https://in-toto.io/attestation/ai-agent-action/v0.1"
#: the shape of a witness log among the files the spec names to check whole
LOG_SHAPE = "ai-agent-action"

__all__ = ["LOG_SHAPE", "PREDICATE_TYPE", "check_log", "read_chain"]
