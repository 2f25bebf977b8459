"""Issue 30, medium 3: every output that leaves trajkit masks API keys by default.

Five invented keys (OpenAI `sk-proj-`, Anthropic `sk-ant-`, AWS `AKIA`, GitHub `ghp_`, a JWT)
are written into a real conversation: the user's text, a tool call's arguments and a tool's
output. No byte of any of them may appear in convert (each format), view (one page and a site),
inspect, ls, stats, serve (its pages, entries and rows) or the serve cache; `--no-redact`
gives them back, and each command says how many it masked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.security.conftest import copy_fixture, invoke
from tests.support import fixtures as fx

KEYS = (  # invented, never real credentials
    "sk-proj-" + "Zq8xT2mN4vB6cR1wY3uP9sK5jH7gF0dLa1b2",
    "sk-ant-" + "api03-Hq7xT2mN4vB6cR1wY3uP9sK5jH7gF0dL",
    "AKIA" + "Q3EXAMPLE7ZXK2LM",
    "ghp_" + "R8nT5vW2xY7zA1bC4dE6fG9hJ0kL3mN5pQ7s",
    "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiJ0cmFqa2l0LXRlc3QifQ.c2lnbmF0dXJlLW5vdC1yZWFs",
)


def _edit(conv: Path, index: int, change: Any) -> None:
    path = next((conv / "events").glob(f"event-{index:05d}-*.json"))
    data = orjson.loads(path.read_bytes())
    change(data)
    path.write_bytes(orjson.dumps(data))


def keyed_conversation(tmp_path: Path) -> Path:
    """b_terminal with the five keys in user text, tool-call arguments and tool output."""
    conv = copy_fixture(tmp_path)
    joined = " ".join(KEYS)

    def user(data: dict[str, Any]) -> None:
        data["llm_message"]["content"][0]["text"] += f" my keys: {joined}"

    def action(data: dict[str, Any]) -> None:
        data["action"]["command"] = f"echo {joined}"
        data["tool_call"]["arguments"] = json.dumps({"command": f"echo {joined}"})

    def output(data: dict[str, Any]) -> None:
        data["observation"]["content"][0]["text"] += f"\n{joined}\n"

    _edit(conv, 1, user)
    _edit(conv, 2, action)
    _edit(conv, 3, output)
    return conv


def clear(data: bytes | str) -> list[str]:
    """The keys found in clear in `data`."""
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    return [k for k in KEYS if k in text]


@pytest.fixture
def conv(tmp_path: Path) -> Path:
    return keyed_conversation(tmp_path)


@pytest.mark.parametrize("to", ["chat", "responses"])
def test_convert_masks_by_default_and_no_redact_gives_them_back(
    conv: Path, tmp_path: Path, to: str
) -> None:
    one = invoke("convert", str(conv), "--to", to)
    assert one.exit_code == 0, one.output
    assert clear(one.stdout) == []
    assert "**********" in one.stdout
    json.loads(one.stdout)  # still one JSON document
    assert "secret(s) masked" in one.stderr
    many = invoke("convert", str(conv.parent), "--to", to, "-o", str(tmp_path / "x.jsonl"))
    assert many.exit_code == 0, many.output
    assert clear((tmp_path / "x.jsonl").read_bytes()) == []
    assert "secret(s) masked" in many.stderr and "0 secret(s)" not in many.stderr
    raw = invoke("convert", str(conv), "--to", to, "--no-redact")
    assert clear(raw.stdout) == list(KEYS)


def test_view_page_and_site(conv: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    result = invoke("view", str(conv), "-o", str(page))
    assert result.exit_code == 0, result.output
    assert clear(page.read_bytes()) == []
    assert "secret(s) masked" in result.stderr
    site = tmp_path / "site"
    assert invoke("view", str(conv.parent), "-o", str(site)).exit_code == 0
    for f in site.rglob("*"):
        if f.is_file():
            assert clear(f.read_bytes()) == [], f
    invoke("view", str(conv), "-o", str(page), "--overwrite", "--no-redact")
    assert clear(page.read_bytes()) == list(KEYS)


def test_inspect_ls_stats(conv: Path) -> None:
    for args in (
        ["inspect", str(conv), "--full"],
        ["inspect", str(conv), "--json"],
        ["ls", str(conv.parent)],
        ["ls", str(conv.parent), "--json"],
        ["stats", str(conv.parent)],
    ):
        result = invoke(*args)
        assert result.exit_code == 0, result.output
        assert clear(result.output) == [], args
    assert "secret(s) masked" in invoke("inspect", str(conv), "--full").stderr
    raw = invoke("inspect", str(conv), "--full", "--no-redact", "--no-pager")
    assert len(clear(raw.output)) >= 4  # the terminal may fold the longest one


def test_fixtures_hold_no_secret() -> None:
    """Convert's byte-equality with the SDK holds under masking because no fixture holds a key."""
    from trajkit.redact import find_api_keys

    for path in fx.sdk_event_files():
        assert list(find_api_keys(path.read_text())) == [], path
