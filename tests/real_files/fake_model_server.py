"""A scripted fake of the Anthropic Messages API, on 127.0.0.1 only, so that Claude Code and
Pi write real session files of their own offline (docs/transcripts.md, "Sessions written by
Pi and Claude Code themselves"). Not part of the package or the tests; standard library only.

    python3 tests/real_files/fake_model_server.py --port 8765 --log /tmp/fakeprov/requests.jsonl

It answers ``POST /v1/messages`` (streamed as server-sent events when the request asks for
``stream``, one JSON message otherwise) and ``POST /v1/messages/count_tokens``. The script
of the model's turns, chosen from the request alone:

- the last message carries a ``tool_result``: a final text, ``done``;
- the request offers a bash tool (Claude Code's ``Bash``, Pi's ``bash``): one call to it,
  ``sleep 60`` when the conversation contains the word ``SLOWCALL``, ``echo hi`` otherwise;
- the last message contains the word ``NOCALL`` (a resumed session's new prompt): a text;
- no bash tool offered (a harness's side request, e.g. a title): a short text.

Every request is appended to ``--log`` as one JSON line (path, the tools' names, the last
message's roles and block types, the reply chosen), for the driver to wait on.
"""

# ruff: noqa
# mypy: ignore-errors
import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "claude-fake-1"
_LOCK = threading.Lock()
_COUNTER = [0]


def _next_id(prefix):
    with _LOCK:
        _COUNTER[0] += 1
        return f"{prefix}_fake{_COUNTER[0]:04d}"


def _blocks(message):
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def choose(body):
    """The reply's content blocks and stop reason for one request body."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "user" and any(b.get("type") == "tool_result" for b in _blocks(last)):
        return [{"type": "text", "text": "done"}], "end_turn"
    if "NOCALL" in json.dumps(last):
        return [{"type": "text", "text": "resumed"}], "end_turn"
    tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
    bash = next((n for n in tools if isinstance(n, str) and n.lower() == "bash"), None)
    if bash is None:
        return [{"type": "text", "text": "Fake session"}], "end_turn"
    command = "sleep 60" if "SLOWCALL" in json.dumps(messages) else "echo hi"
    call = {
        "type": "tool_use",
        "id": _next_id("toolu"),
        "name": bash,
        "input": {"command": command},
    }
    return [{"type": "text", "text": "I will run it."}, call], "tool_use"


def _usage():
    return {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _message(content, stop):
    return {
        "id": _next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(),
    }


def _events(message):
    """The server-sent events of one streamed message, in the API's order."""
    start = dict(message, content=[], stop_reason=None)
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            empty = dict(block, input={})
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": empty},
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    end = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": end, "usage": {"output_tokens": 5}}
    yield "message_stop", {"type": "message_stop"}


class Handler(BaseHTTPRequestHandler):
    log_path = None

    def log_message(self, format, *args):
        pass

    def _send_json(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._send_json(
            404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}}
        )

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            self._note(path, body, None)
            return self._send_json(200, {"input_tokens": 10})
        if not path.endswith("/v1/messages"):
            self._note(path, body, None)
            return self._send_json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
            )
        content, stop = choose(body)
        message = _message(content, stop)
        self._note(path, body, message)
        if not body.get("stream"):
            return self._send_json(200, message)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        for name, data in _events(message):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True

    def _note(self, path, body, message):
        messages = body.get("messages") or []
        last = messages[-1] if messages else {}
        note = {
            "path": path,
            "stream": bool(body.get("stream")),
            "tools": [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)],
            "last_role": last.get("role"),
            "last_blocks": [b.get("type") for b in _blocks(last)] if last else [],
            "reply": message["content"] if message else None,
            "carries_repair_marker": "not run: the turn was interrupted" in json.dumps(messages),
        }
        if self.log_path:
            with _LOCK, open(self.log_path, "a") as out:
                out.write(json.dumps(note) + "\n")


def serve(port, log_path):
    Handler.log_path = log_path
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    return server


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--log")
    args = parser.parse_args()
    serve(args.port, args.log).serve_forever()


if __name__ == "__main__":
    main()
