"""A loopback HTTP server that answers every GET with one value and records each request's
headers: the far end of a `LookupSecret` in tests."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["value_server"]


@contextlib.contextmanager
def value_server(value: bytes) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """`(url, seen)`: the server's URL on 127.0.0.1, and one headers dict per request so far."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            seen.append(dict(self.headers))
            self.send_response(200)
            self.send_header("Content-Length", str(len(value)))
            self.end_headers()
            self.wfile.write(value)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/secret", seen
    finally:
        server.shutdown()
        server.server_close()
