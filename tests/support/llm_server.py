"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests.

Tests queue what the "model" answers, point litellm (or any OpenAI client) at
``server.base_url`` and afterwards read back every request body the server received.

One queue serves both endpoints: each queued `ScriptedReply` is rendered as a Chat
Completions response on ``POST /v1/chat/completions`` and as a Responses API response on
``POST /v1/responses``. Errors (429, 500, 401, ...) are queued the same way.

When the queue is empty the server answers HTTP 400 with a message saying so (400 is not
retried by clients, so a test that under-scripts fails fast), unless a ``default`` reply
was given.

Example::

    with ScriptedLLMServer() as server:
        server.enqueue_tool_call("terminal", {"command": "ls"})
        server.enqueue_text("done")
        ...  # LLM(model="openai/gpt-4o", base_url=server.base_url, api_key=SecretStr("x"))
        assert server.requests[0].body["messages"][0]["role"] == "system"

The pytest fixture ``llm_server`` (in ``tests/conftest.py`` via ``pytest_plugins``, or
imported from here) yields a started server.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = [
    "RecordedRequest",
    "ScriptedError",
    "ScriptedLLMServer",
    "ScriptedReply",
    "ScriptedToolCall",
    "llm_server",
]


@dataclass
class ScriptedToolCall:
    """One function call the model asks for."""

    name: str
    arguments: str | Mapping[str, Any]
    """A mapping is JSON-encoded; a string is sent verbatim (so it may be malformed)."""
    id: str | None = None

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments))


@dataclass
class ScriptedReply:
    """One successful model response."""

    text: str | None = None
    tool_calls: list[ScriptedToolCall] = field(default_factory=list)
    reasoning_content: str | None = None
    """Chat: ``message.reasoning_content``. Responses: a ``reasoning`` output item."""
    prompt_tokens: int = 100
    completion_tokens: int = 20
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    id: str | None = None
    delay: float = 0.0
    """Seconds to wait before answering (to test timeouts and pause)."""


@dataclass
class ScriptedError:
    """One HTTP error answer."""

    status: int
    message: str = "scripted error"
    error_type: str = "server_error"
    delay: float = 0.0


@dataclass
class RecordedRequest:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """Parsed JSON body (or the raw text when it was not JSON)."""
    time: float

    @property
    def endpoint(self) -> str:
        """``"chat"``, ``"responses"`` or the path."""
        if self.path.rstrip("/").endswith("/chat/completions"):
            return "chat"
        if self.path.rstrip("/").endswith("/responses"):
            return "responses"
        return self.path


class ScriptedLLMServer:
    """Threaded loopback server answering from a queue of scripted replies."""

    def __init__(self, *, model: str = "gpt-4o", default: ScriptedReply | None = None) -> None:
        self.model = model
        self.default = default
        self.requests: list[RecordedRequest] = []
        self._queue: deque[ScriptedReply | ScriptedError] = deque()
        self._lock = threading.Lock()
        self._counter = itertools.count()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> ScriptedLLMServer:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """OpenAI-style base URL, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting -------------------------------------------------------------------
    def enqueue(self, *items: ScriptedReply | ScriptedError) -> None:
        with self._lock:
            self._queue.extend(items)

    def enqueue_text(self, text: str, **kwargs: Any) -> None:
        """A plain assistant message (no tool calls)."""
        self.enqueue(ScriptedReply(text=text, **kwargs))

    def enqueue_tool_call(
        self,
        name: str,
        arguments: str | Mapping[str, Any],
        *,
        call_id: str | None = None,
        text: str | None = None,
        **kwargs: Any,
    ) -> None:
        """One tool call, optionally with assistant text (the "thought")."""
        self.enqueue_tool_calls([(name, arguments, call_id)], text=text, **kwargs)

    def enqueue_tool_calls(
        self,
        calls: Sequence[ScriptedToolCall | tuple[Any, ...]],
        *,
        text: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Several (parallel) tool calls in one response: ``(name, args[, id])`` tuples."""
        tool_calls = [c if isinstance(c, ScriptedToolCall) else ScriptedToolCall(*c) for c in calls]
        self.enqueue(ScriptedReply(text=text, tool_calls=tool_calls, **kwargs))

    def enqueue_error(
        self,
        status: int,
        message: str = "scripted error",
        *,
        times: int = 1,
        error_type: str | None = None,
        delay: float = 0.0,
    ) -> None:
        """HTTP error answers (``times`` of them in a row)."""
        etype = error_type or _error_type(status)
        for _ in range(times):
            self.enqueue(ScriptedError(status, message, etype, delay))

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def bodies(self, endpoint: str | None = None) -> list[Any]:
        """Request bodies received, optionally only ``"chat"`` or ``"responses"`` ones."""
        return [r.body for r in self.requests if endpoint is None or r.endpoint == endpoint]

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.requests) < n:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {len(self.requests)} of {n} requests arrived")
            time.sleep(0.01)

    # -- answering -------------------------------------------------------------------
    def _next(self) -> ScriptedReply | ScriptedError | None:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.default

    def _answer(self, endpoint: str) -> tuple[int, dict[str, Any]]:
        item = self._next()
        if item is None:
            return 400, _error_body(
                "scripted LLM server: no response queued", "invalid_request_error"
            )
        if item.delay:
            time.sleep(item.delay)
        if isinstance(item, ScriptedError):
            return item.status, _error_body(item.message, item.error_type)
        n = next(self._counter)
        if endpoint == "responses":
            return 200, self._responses_body(item, n)
        return 200, self._chat_body(item, n)

    def _chat_body(self, r: ScriptedReply, n: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": r.text}
        if r.tool_calls:
            message["tool_calls"] = [
                {
                    "id": tc.id or f"call_{n}_{i}",
                    "type": "function",
                    "function": {"name": tc.name, "arguments": tc.arguments_text()},
                }
                for i, tc in enumerate(r.tool_calls)
            ]
        if r.reasoning_content is not None:
            message["reasoning_content"] = r.reasoning_content
        usage: dict[str, Any] = {
            "prompt_tokens": r.prompt_tokens,
            "completion_tokens": r.completion_tokens,
            "total_tokens": r.prompt_tokens + r.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": r.cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": r.reasoning_tokens},
        }
        return {
            "id": r.id or f"chatcmpl-scripted-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if r.tool_calls else "stop",
                }
            ],
            "usage": usage,
        }

    def _responses_body(self, r: ScriptedReply, n: int) -> dict[str, Any]:
        output: list[dict[str, Any]] = []
        if r.reasoning_content is not None:
            output.append(
                {
                    "type": "reasoning",
                    "id": f"rs_scripted_{n}",
                    "summary": [{"type": "summary_text", "text": r.reasoning_content}],
                }
            )
        if r.text is not None:
            output.append(
                {
                    "type": "message",
                    "id": f"msg_scripted_{n}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": r.text, "annotations": []}],
                }
            )
        for i, tc in enumerate(r.tool_calls):
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_scripted_{n}_{i}",
                    "call_id": tc.id or f"call_{n}_{i}",
                    "name": tc.name,
                    "arguments": tc.arguments_text(),
                    "status": "completed",
                }
            )
        return {
            "id": r.id or f"resp_scripted_{n}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": self.model,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": r.prompt_tokens,
                "output_tokens": r.completion_tokens,
                "total_tokens": r.prompt_tokens + r.completion_tokens,
                "input_tokens_details": {"cached_tokens": r.cached_tokens},
                "output_tokens_details": {"reasoning_tokens": r.reasoning_tokens},
            },
        }


def _error_type(status: int) -> str:
    return {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
    }.get(status, "server_error")


def chat_chunks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A Chat Completions body as the chunks of its stream: the text in two pieces, each tool
    call's name then its arguments in two pieces, the finish reason, then the usage.
    """
    message = body["choices"][0]["message"]
    base = {k: body[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    if message.get("reasoning_content"):
        out.append(chunk({"reasoning_content": message["reasoning_content"]}))
    text = message.get("content") or ""
    if text:
        half = len(text) // 2
        out += [chunk({"content": text[:half]}), chunk({"content": text[half:]})]
    for i, call in enumerate(message.get("tool_calls") or []):
        args = call["function"]["arguments"]
        head = {"index": i, "id": call["id"], "type": "function"}
        out.append(
            chunk(
                {
                    "tool_calls": [
                        head | {"function": {"name": call["function"]["name"], "arguments": ""}}
                    ]
                }
            )
        )
        for piece in (args[: len(args) // 2], args[len(args) // 2 :]):
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    out.append(chunk({}, body["choices"][0]["finish_reason"]))
    out.append(base | {"choices": [], "usage": body["usage"]})
    return out


def _error_body(message: str, error_type: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": error_type, "param": None, "code": None}}


def _make_handler(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw
            rec = RecordedRequest("POST", self.path, dict(self.headers.items()), body, time.time())
            with server._lock:
                server.requests.append(rec)
            endpoint = rec.endpoint
            if endpoint not in ("chat", "responses"):
                self._send(404, _error_body(f"unknown path {self.path}", "not_found_error"))
                return
            status, answer = server._answer(endpoint)
            streamed = (
                endpoint == "chat"
                and status == 200
                and isinstance(body, dict)
                and body.get("stream")
            )
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                if streamed:
                    self._send_stream(chat_chunks(answer))
                else:
                    self._send(status, answer)

        def _send_stream(self, chunks: list[dict[str, Any]]) -> None:
            """Server-sent events, as a Chat Completions stream is served."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def do_GET(self) -> None:  # noqa: N802
            if self.path.rstrip("/").endswith("/models"):
                self._send(
                    200, {"object": "list", "data": [{"id": server.model, "object": "model"}]}
                )
            else:
                self._send(404, _error_body(f"unknown path {self.path}", "not_found_error"))

    return Handler


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A started `ScriptedLLMServer`; stopped after the test."""
    with ScriptedLLMServer() as server:
        yield server
