"""Tool-call transcripts: one common model, one adapter per message shape.

Only the Pi AI shape used by the bundled archive exists today; other shapes (OpenAI, Anthropic,
Gemini, pydantic-ai) plug in as adapters onto :mod:`verifier.transcripts.model`.
"""
