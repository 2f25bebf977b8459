"""Issue 30, medium 3: every output that leaves trajkit masks API keys by default.

Five invented keys (OpenAI `sk-proj-`, Anthropic `sk-ant-`, AWS `AKIA`, GitHub `ghp_`, a JWT)
are written into a real conversation: the user's text, a tool call's arguments and a tool's
output. No byte of any of them may appear in convert (each format, the Inspect `.eval` zip's
members included), view (one page and a site), inspect, ls, stats, serve (its pages, entries and
rows) or the serve cache; `--no-redact` gives them back, and each command says how many it
masked. The same holds when the keys come in through the other agents' formats (ATIF,
mini-swe-agent, SWE-agent, Inspect). `migrate` writes V1 folders (the user's own store, as
from V0) and masks nothing, whatever the input.
"""

from __future__ import annotations

import io
import json
import zipfile
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


@pytest.mark.parametrize("to", ["chat", "responses", "atif", "anthropic"])
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
    assert "secret(s) masked" in many.stderr and " 0 secret(s)" not in many.stderr
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


def _eval_members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def test_convert_to_inspect_masks_every_member_of_the_zip(conv: Path, tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    out = tmp_path / "x.eval"
    result = invoke("convert", str(conv), "--to", "inspect", "-o", str(out))
    assert result.exit_code == 0, result.output
    members = _eval_members(out)  # deflated: the file's own bytes would hide a key
    assert {name: clear(data) for name, data in members.items()} == dict.fromkeys(members, [])
    assert "**********" in members["samples/1_epoch_1.json"].decode()
    assert "secret(s) masked" in result.stderr and " 0 secret(s)" not in result.stderr
    log = read_eval_log(str(out))  # still a log Inspect opens
    assert log.samples is not None and len(log.samples) == 1
    invoke("convert", str(conv), "--to", "inspect", "-o", str(out), "--overwrite", "--no-redact")
    assert clear(b"".join(_eval_members(out).values())) == list(KEYS)


def _mini_swe_agent(path: Path) -> Path:
    joined = " ".join(KEYS)
    messages = [
        {"role": "system", "content": "You run bash."},
        {"role": "user", "content": f"fix it; my keys: {joined}"},
        {"role": "assistant", "content": f"THOUGHT: look\n```bash\necho {joined}\n```"},
        {"role": "user", "content": f"<returncode>0</returncode><output>{joined}</output>"},
    ]
    doc = {"info": {"exit_status": "Submitted"}, "messages": messages,
           "trajectory_format": "mini-swe-agent-1"}  # fmt: skip
    path.write_text(json.dumps(doc))
    return path


def _swe_agent(path: Path) -> Path:
    joined = " ".join(KEYS)
    call = {"id": "call_1", "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": f"echo {joined}"})}}  # fmt: skip
    history = [
        {"role": "system", "content": "You run bash."},
        {"role": "user", "content": f"fix it; my keys: {joined}"},
        {"role": "assistant", "content": "look", "tool_calls": [call]},
        {"role": "tool", "content": joined, "tool_call_ids": ["call_1"]},
    ]
    path.write_text(json.dumps({"history": history, "info": {}}))
    return path


@pytest.fixture
def other_formats(conv: Path, tmp_path: Path) -> dict[str, Path]:
    """The keyed conversation as ATIF and Inspect files (written with --no-redact), and small
    mini-swe-agent and SWE-agent trajectories holding the keys in the same three places."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    atif_file = inputs / "run.atif.json"
    args = ("convert", str(conv), "--no-redact", "-o")
    assert invoke(*args, str(atif_file), "--to", "atif").exit_code == 0
    assert invoke(*args, str(inputs / "run.eval"), "--to", "inspect").exit_code == 0
    found = {
        "atif": atif_file,
        "inspect": inputs / "run.eval",
        "mini-swe-agent": _mini_swe_agent(inputs / "run.traj.json"),
        "swe-agent": _swe_agent(inputs / "run.traj"),
    }
    assert clear(atif_file.read_bytes()) == list(KEYS)
    return found


@pytest.mark.parametrize("shape", ["atif", "inspect", "mini-swe-agent", "swe-agent"])
def test_keys_read_from_other_formats_are_masked_in_every_output(
    other_formats: dict[str, Path], tmp_path: Path, shape: str
) -> None:
    source = str(other_formats[shape])
    for to in ("chat", "atif", "anthropic"):
        result = invoke("convert", source, "--to", to)
        assert result.exit_code == 0, (to, result.output)
        assert clear(result.stdout) == [], (shape, to)
        assert "secret(s) masked" in result.stderr, (shape, to)
        raw = invoke("convert", source, "--to", to, "--no-redact")
        assert len(clear(raw.stdout)) == len(KEYS), (shape, to)
    out = tmp_path / "out.eval"
    assert invoke("convert", source, "--to", "inspect", "-o", str(out)).exit_code == 0
    assert clear(b"".join(_eval_members(out).values())) == [], shape
    page = tmp_path / "page.html"
    for args in (
        ["view", source, "-o", str(page)],
        ["inspect", source, "--full"],
        ["inspect", source, "--json"],
        ["ls", source, "--json"],
        ["stats", source],
    ):
        result = invoke(*args)
        assert result.exit_code == 0, (args, result.output)
        assert clear(result.output) == [], (shape, args)
    assert clear(page.read_bytes()) == [], shape


def test_migrate_masks_nothing_from_any_shape(
    other_formats: dict[str, Path], tmp_path: Path
) -> None:
    """Migrate writes the user's own V1 store: V0 and the other formats alike keep every byte."""
    out = tmp_path / "migrated"
    result = invoke("migrate", str(other_formats["atif"]), "-o", str(out))
    assert result.exit_code == 0, result.output
    written = b"".join(f.read_bytes() for f in out.rglob("*.json"))
    assert clear(written) == list(KEYS)


@pytest.mark.parametrize("size", [1, 7, 4096, 1 << 16, (1 << 16) + 3, 1 << 20])
def test_masked_writer_masks_keys_cut_between_writes(size: int) -> None:
    """`MaskedWriter` keeps each write's trailing run of key bytes for the next one: the bytes
    written in pieces of any size are the whole text masked at once (a run of key bytes longer
    than 64 KiB is let through in pieces, as before).
    """
    from trajkit.cli._output import MaskedWriter
    from trajkit.redact import SecretMasker, may_hold_key

    text = ("plain words " * 9000 + KEYS[0] + " then " + "x" * 70_000 + " " + KEYS[3]).encode()
    text += b' "\\u0073k-not-a-key" end'
    sink = io.BytesIO()
    writer = MaskedWriter(sink, SecretMasker((), api_keys=True))
    for start in range(0, len(text), size):
        writer.write(text[start : start + size])
    writer.finish()
    whole = SecretMasker((), api_keys=True).raw(text)
    assert sink.getvalue() == whole
    assert KEYS[0].encode() not in whole and KEYS[3].encode() not in whole
    assert may_hold_key(b'{"a": "\\u0041"}') and not may_hold_key(b'{"a": "\\\\ u"}')
