"""A fake Anthropic Messages API on 127.0.0.1, so the real CLI can resume offline.

The CLI oracle needs what Claude Code *would send* to the model, not a model:
this server records every request body and answers ``POST /v1/messages``
(SSE when ``stream`` is true, plain JSON otherwise) and ``count_tokens`` with
the smallest valid replies. One server can serve many concurrent CLI runs:
each run gets its own API key (``key()``), and requests are filed under the
``x-api-key`` they carry, so parallel workers never see each other's traffic.
"""

from __future__ import annotations

import itertools
import json
import secrets
import sys
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self
from urllib.parse import urlsplit

REPLY_TEXT = "ok"
MAX_BODY = 256 * 1024 * 1024  # a resumed 5 MiB+ transcript still fits


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON

    @property
    def is_messages(self) -> bool:
        """A real model call (not count_tokens or anything else)."""
        return self.method == "POST" and self.path == "/v1/messages"


@dataclass
class _Log:
    """Requests per API key, guarded by one lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    by_key: defaultdict[str, list[Recorded]] = field(default_factory=lambda: defaultdict(list))

    def add(self, key: str, request: Recorded) -> None:
        with self.lock:
            self.by_key[key].append(request)

    def take(self, key: str) -> list[Recorded]:
        with self.lock:
            return self.by_key.pop(key, [])


def _message(model: str, number: int) -> dict[str, Any]:
    """A complete one-text-block assistant message."""
    return {
        "id": f"msg_rechain_{number:08d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": REPLY_TEXT}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _sse_events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The streaming form of ``message``: the event sequence the Messages API sends."""
    start = {**message, "content": [], "stop_reason": None}
    return [
        ("message_start", {"type": "message_start", "message": start}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": REPLY_TEXT}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 1}}),
        ("message_stop", {"type": "message_stop"}),
    ]


class _Handler(BaseHTTPRequestHandler):
    """Records, then answers with the minimal valid reply for the path."""

    server: _Server
    protocol_version = "HTTP/1.1"
    KEEP_HEADERS: ClassVar[tuple[str, ...]] = (
        "user-agent", "anthropic-version", "anthropic-beta", "content-type", "x-api-key",
    )

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: the CLI's traffic is data, not log noise."""

    def _read_body(self) -> Any:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(min(length, MAX_BODY)) if length > 0 else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _record(self, body: Any) -> Recorded:
        parts = urlsplit(self.path)
        headers = {k: self.headers[k] for k in self.KEEP_HEADERS if k in self.headers}
        request = Recorded(self.command, parts.path, parts.query, headers, body)
        self.server.log.add(self.headers.get("x-api-key", ""), request)
        return request

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_rechain")
        self.end_headers()
        if self.command != "HEAD":  # a HEAD answer has headers only
            self.wfile.write(data)

    def _send_sse(self, message: dict[str, Any]) -> None:
        chunks = b"".join(
            f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
            for name, data in _sse_events(message)
        )
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(chunks)))
        self.send_header("request-id", "req_rechain")
        self.end_headers()
        self.wfile.write(chunks)

    def do_POST(self) -> None:
        """Messages and count_tokens get answers; anything else is a recorded 404."""
        request = self._record(self._read_body())
        body = request.body if isinstance(request.body, dict) else {}
        if request.is_messages:
            message = _message(str(body.get("model", "unknown")), next(self.server.numbers))
            if body.get("stream"):
                self._send_sse(message)
            else:
                self._send_json(200, message)
        elif request.path == "/v1/messages/count_tokens":
            self._send_json(200, {"input_tokens": 1})
        else:
            self._not_found()

    def do_GET(self) -> None:
        """Recorded and refused: the CLI should need nothing but POSTs."""
        self._record(None)
        self._not_found()

    def do_HEAD(self) -> None:
        """Same as GET."""
        self.do_GET()

    def _not_found(self) -> None:
        self._send_json(404, {"type": "error",
                              "error": {"type": "not_found_error", "message": "fake API"}})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.log = _Log()
        self.numbers = itertools.count(1)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-answer is normal (the CLI exits when it has what it
        needs); anything else is still reported."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeMessagesApi:
    """The server as a context manager: started on enter, shut down and joined on exit."""

    def __init__(self) -> None:
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        """Bind 127.0.0.1 on an ephemeral port and serve from a background thread."""
        if self._server is not None:
            return
        self._server = _Server()
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
            name="rechain-fake-api", daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        """Stop serving, close the socket and wait for the thread."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = None
        self._thread = None

    @property
    def port(self) -> int:
        """The bound port (only while running)."""
        if self._server is None:
            raise RuntimeError("the fake API is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What ``ANTHROPIC_BASE_URL`` should be."""
        return f"http://127.0.0.1:{self.port}"

    @staticmethod
    def key() -> str:
        """A fresh API key: one per run, so each run's requests can be told apart."""
        return f"rechain-{secrets.token_hex(12)}"

    def take(self, key: str) -> list[Recorded]:
        """Every request made with ``key`` so far, in arrival order; forgets them."""
        if self._server is None:
            raise RuntimeError("the fake API is not running")
        return self._server.log.take(key)
