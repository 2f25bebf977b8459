"""Issue 30, medium 3: serve's pages, entries, rows and its cache mask API keys by default."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.security.test_masking import KEYS, clear, keyed_conversation


def _bodies(server: Any) -> list[bytes]:
    key = server.rows()["rows"][0]["key"]
    paths = [f"/api/rows?q={KEYS[1][:10]}", "/api/rows", f"/c/{key}",
             f"/api/c/{key}/entries?at=0,1,2,3,4,5"]  # fmt: skip
    out = []
    for path in paths:
        status, _, body = server.request(path)
        assert status == 200, (path, body)
        out.append(body)
    return out


def _cache_text(db_path: Path) -> str:
    db = sqlite3.connect(db_path)
    try:
        return "\n".join(db.iterdump())
    finally:
        db.close()


def test_serve_masks_pages_rows_and_cache(tmp_path: Path, serve: Any) -> None:
    conv = keyed_conversation(tmp_path)
    server = serve([conv.parent])
    server.wait_indexed(1)
    for body in _bodies(server):
        assert clear(body) == [], body[:300]
    server.close()
    assert clear(_cache_text(tmp_path / "cache-0.sqlite3")) == []


def test_serve_no_redact_shows_them(tmp_path: Path, serve: Any) -> None:
    conv = keyed_conversation(tmp_path)
    server = serve([conv.parent], "--no-redact")
    server.wait_indexed(1)
    page = _bodies(server)[2]
    assert clear(page) == list(KEYS)
