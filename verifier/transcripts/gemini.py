"""Google Gemini contents (``generateContent``), camelCase or the Python SDK's snake_case.

* A ``model`` turn makes calls in ``functionCall`` parts (``name``, ``args``, optional
  ``id``); it starts a new turn.
* The turn right after it (a ``user``, or legacy ``function``, turn) answers them in
  ``functionResponse`` parts (``name``, ``response``, optional ``id``); any other part starts
  a new turn, and so does any later turn: the API wants all responses in that one turn, as
  many as there were calls. A missing role is ``user``, as the API reads it.
* With ids, a response answers the call with its id. Without, it answers the first open call
  with its name, in order: count, order and name, as the API pairs them.

``functionResponse.response`` is a free-form object, so a synthetic response is
``{"error": "not run: the turn was interrupted", "synthetic": true}``; it joins the user turn
that carries the window's responses (so the counts match), or the user turn that closed the
window, before its first part, or else a new user turn.
"""

from __future__ import annotations

from typing import Any

from verifier.json.write import dumps
from verifier.transcripts.interface import Shape, ShapeError, message_at, string_at
from verifier.transcripts.pairing import INTERRUPTED_MARKER, Boundary, Call, Entry, Part, Result


def _get(part: dict[str, Any], camel: str, snake: str) -> Any:
    return part[camel] if camel in part else part.get(snake)


def _response_text(response: Any) -> tuple[str, bool]:
    if isinstance(response, dict):
        for key, is_error in (("error", True), ("output", False), ("result", False)):
            if isinstance(response.get(key), str):
                return str(response[key]), is_error
    if isinstance(response, str):
        return response, False
    return dumps(response, sort_keys=True), False  # numbers as written, never Infinity


def _role(message: Any) -> Any:
    return message.get("role", "user") if isinstance(message, dict) else None


class Gemini(Shape):
    name = "gemini"
    title = "Google Gemini contents (functionCall / functionResponse parts)"
    part_layout = True
    parts_key = "parts"

    def features(self, messages: list[Any]) -> bool:
        return bool(messages) and all(
            isinstance(m, dict) and isinstance(m.get("parts"), list) and "kind" not in m
            for m in messages
        )

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            msg = message_at(messages, i)
            role = msg.get("role", "user")
            if not isinstance(role, str):
                raise ShapeError(f"message {i}: the role is not a string", i)
            raw = msg.get("parts")
            if not isinstance(raw, list):
                raise ShapeError(f"message {i} has no 'parts' array", i)
            parts: list[Part] = []
            if role == "model":
                parts.append(Boundary(i, 0))
                n = 0
                for k, part in enumerate(raw):
                    call = (
                        _get(part, "functionCall", "function_call")
                        if isinstance(part, dict)
                        else None
                    )
                    if not isinstance(call, dict):
                        continue
                    pointer = f"/parts/{k}"
                    name = string_at(call, "name", i, "a functionCall", pointer)
                    cid = call.get("id")
                    has_id = isinstance(cid, str) and bool(cid)
                    parts.append(
                        Call(
                            i,
                            k,
                            str(cid) if has_id else f"#{i}.{n}",
                            name,
                            has_id,
                            pointer,
                            arguments=call.get("args"),
                        )
                    )
                    n += 1
            else:
                if i > 0 and _role(messages[i - 1]) != "model":
                    parts.append(Boundary(i, 0))  # only the turn right after the calls answers
                for k, part in enumerate(raw):
                    response = (
                        _get(part, "functionResponse", "function_response")
                        if isinstance(part, dict)
                        else None
                    )
                    if not isinstance(response, dict):
                        parts.append(Boundary(i, k))
                        continue
                    pointer = f"/parts/{k}"
                    name = string_at(response, "name", i, "a functionResponse", pointer)
                    rid = response.get("id")
                    body = response.get("response")
                    text, is_error = _response_text(body)
                    marked = isinstance(body, dict) and body.get("synthetic") is True
                    has_id = isinstance(rid, str) and bool(rid)
                    parts.append(
                        Result(
                            i,
                            k,
                            str(rid) if has_id else None,
                            name,
                            text,
                            is_error,
                            marked,
                            pointer,
                            loose=True,
                        )
                    )
            out.append(Entry(i, role, tuple(parts)))
        return out

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        response: dict[str, Any] = {"name": call.name}
        if call.has_id:
            response["id"] = call.id
        response["response"] = {"error": INTERRUPTED_MARKER, "synthetic": True}
        # the spelling of the call's own part (looked at alone: a message of many parallel
        # calls is repaired in linear time)
        parts = messages[call.index].get("parts")
        part = parts[call.slot] if isinstance(parts, list) and call.slot < len(parts) else None
        snake = isinstance(part, dict) and "function_call" in part
        return {"function_response" if snake else "functionResponse": response}

    def is_result_message(self, message: Any) -> bool:
        return (
            isinstance(message, dict)
            and message.get("role", "user") != "model"
            and isinstance(message.get("parts"), list)
        )


#: the registry member (verifier.transcripts.SHAPES)
SHAPE = Gemini()
