"""Helpers for export tests: copies of the bundled conversations that tests may change."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.support import fixtures as fx

FAKE_KEY = "sk-proj-" + "Zq8xT2mN4vB6cR1wY3uP9sK5jH7gF0dL"  # invented: never a real credential
SECRET = "hunter2-very-secret-value"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of every SDK conversation, one folder per conversation."""
    root = tmp_path / "corpus"
    root.mkdir()
    for conv in fx.sdk_conversations():
        shutil.copytree(conv, root / conv.name)
    return root


def edit_event(conv: Path, index: int, change) -> None:
    """Rewrite event `index` of `conv` after applying `change(dict)` to its JSON."""
    path = next((conv / "events").glob(f"event-{index:05d}-*.json"))
    data = orjson.loads(path.read_bytes())
    change(data)
    path.write_bytes(orjson.dumps(data))


def add_secrets(conv: Path) -> None:
    """Put a fake API key in the user message and a registered secret (in clear) in an output."""
    state_path = conv / "base_state.json"
    state = orjson.loads(state_path.read_bytes())
    state["secret_registry"] = {
        "secret_sources": {"DB_PASSWORD": {"kind": "StaticSecret", "value": SECRET}}
    }
    state_path.write_bytes(orjson.dumps(state))

    def user(data):
        data["llm_message"]["content"][0]["text"] += f" My key is {FAKE_KEY}."

    def output(data):
        data["observation"]["content"][0]["text"] += f"\npassword={SECRET}\n"

    edit_event(conv, 1, user)
    edit_event(conv, 3, output)
