"""Strict JSON: the RFC 8259 parser, the deterministic writer, RFC 6901 pointers and globs, number
rules."""
