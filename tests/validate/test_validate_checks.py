"""The library's checks one by one, on copies of the hand-made base conversation."""

from __future__ import annotations

import inspect
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support import fixtures as fx
from trajkit import redact
from trajkit.validate import Problem, iter_conversation_problems, validate_conversation

BASE = fx.BAD_FIXTURES / "valid_base"
ACTION_ID = "ef108e6e-f722-46f9-b47e-98fb9adfe404"  # event 2, terminal call call_b_terminal_0_0
MESSAGE_ID = "18eb9f5d-45e3-4367-906d-8d039e0a6fdb"  # event 1, user message


@pytest.fixture
def conv(tmp_path: Path) -> Path:
    folder = tmp_path / "conv"
    shutil.copytree(BASE, folder)
    return folder


def event_path(folder: Path, index: int) -> Path:
    return next((folder / "events").glob(f"event-{index:05d}-*.json"))


def read_event(folder: Path, index: int) -> dict[str, Any]:
    return json.loads(event_path(folder, index).read_bytes())


def write_event(folder: Path, index: int, obj: dict[str, Any]) -> Path:
    for old in (folder / "events").glob(f"event-{index:05d}-*.json"):
        old.unlink()
    path = folder / "events" / f"event-{index:05d}-{obj['id']}.json"
    path.write_text(json.dumps(obj, separators=(",", ":")), encoding="utf-8")
    return path


def edit_event(folder: Path, index: int, **changes: Any) -> Path:
    obj = read_event(folder, index)
    for key, value in changes.items():
        if value is None:
            obj.pop(key, None)
        else:
            obj[key] = value
    return write_event(folder, index, obj)


def edit_state(folder: Path, change: Any) -> None:
    path = folder / "base_state.json"
    state = json.loads(path.read_bytes())
    change(state)
    path.write_text(json.dumps(state), encoding="utf-8")


def found(folder: Path) -> list[tuple[str, str, str, str]]:
    """(file name, pointer, severity, code) of each problem."""
    return [
        (p.path.name, p.pointer, p.severity, p.code) for p in validate_conversation(folder).problems
    ]


def agent_error(tool_call_id: str, parent: str) -> dict[str, Any]:
    return {
        "id": "abcdef01-0000-4000-8000-000000000006",
        "timestamp": "2026-11-29T08:53:46.1",
        "source": "agent",
        "parent_id": parent,
        "tool_name": "terminal",
        "tool_call_id": tool_call_id,
        "error": "tool failed",
        "classification": {"kind": "unknown", "retryable": False, "user_action": "none"},
        "kind": "AgentErrorEvent",
    }


def test_problems_are_yielded_not_printed(conv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_event(conv, 3, action_id="0000dead-0000-4000-8000-000000000000")
    problems = iter_conversation_problems(conv)
    assert inspect.isgenerator(problems)
    first = next(problems)
    assert isinstance(first, Problem) and first.pointer == "/action_id"
    assert capsys.readouterr() == ("", "")


def test_agent_error_must_answer_an_earlier_call(conv: Path) -> None:
    last = read_event(conv, 5)["id"]
    write_event(conv, 6, agent_error("call_nowhere", last))
    assert found(conv) == [
        (f"event-00006-{agent_error('', '')['id']}.json", "/tool_call_id", "error", "pairing")
    ]


def test_agent_error_answering_a_call_is_fine_but_a_second_result_warns(conv: Path) -> None:
    last = read_event(conv, 5)["id"]
    write_event(conv, 6, agent_error("call_b_terminal_0_0", last))
    assert found(conv) == [
        (
            f"event-00006-{agent_error('', '')['id']}.json",
            "/tool_call_id",
            "warning",
            "duplicate-result",
        )
    ]


def test_result_must_name_an_action_before_it(conv: Path) -> None:
    edit_event(conv, 3, action_id=MESSAGE_ID)
    problems = validate_conversation(conv).problems
    assert [(p.pointer, p.code) for p in problems] == [("/action_id", "pairing")]
    assert "names a MessageEvent, expected an ActionEvent" in problems[0].message


def test_result_with_another_call_id(conv: Path) -> None:
    edit_event(conv, 3, tool_call_id="call_other")
    problems = validate_conversation(conv).problems
    assert [(p.pointer, p.code) for p in problems] == [("/tool_call_id", "pairing")]


def test_duplicate_id_at_two_indices(conv: Path) -> None:
    obj = read_event(conv, 5)
    obj["id"] = ACTION_ID
    obj["parent_id"] = read_event(conv, 4)["id"]
    path = write_event(conv, 5, obj)
    leaf = read_event(conv, 4)["id"]
    edit_state(conv, lambda s: s.__setitem__("leaf_event_id", leaf))
    problems = validate_conversation(conv).problems
    assert (path.name, "/id", "duplicate-id") in [
        (p.path.name, p.pointer, p.code) for p in problems
    ]


def test_stray_names_warn_and_sidecars_are_ignored(conv: Path) -> None:
    events = conv / "events"
    (events / ".eventlog.lock").write_bytes(b"")
    (events / ".eventlog-len-6.marker").write_bytes(b"")
    (events / ".event-00006-x.json.abc123.tmp").write_bytes(b"{")
    (events / "notes.txt").write_text("hello")
    (events / "event-00006-evt_1.json").write_text("{}")
    assert sorted(found(conv)) == [
        ("event-00006-evt_1.json", "", "warning", "file-name"),
        ("notes.txt", "", "warning", "file-name"),
    ]
    strict = validate_conversation(conv, strict=True).problems
    assert {p.severity for p in strict} == {"error"}


def test_folder_name_must_match_the_id(tmp_path: Path) -> None:
    folder = tmp_path / ("ab" * 16)
    shutil.copytree(BASE, folder)
    assert found(folder) == [("base_state.json", "/id", "error", "folder-id")]
    right = tmp_path / "4a354c2088ff5c33b671d3bccd90da7a"
    shutil.copytree(BASE, right)
    assert found(right) == []


def test_registered_secret_value_must_not_reach_events(conv: Path) -> None:
    secret = "hunter2-very-secret"
    sources = {"DB_PASSWORD": {"value": secret, "kind": "StaticSecret"}}
    edit_state(conv, lambda s: s["secret_registry"].__setitem__("secret_sources", sources))
    obs = read_event(conv, 3)
    obs["observation"]["content"][0]["text"] += f"\npassword is {secret}"
    write_event(conv, 3, obs)
    assert found(conv) == [
        ("base_state.json", "/secret_registry/secret_sources/DB_PASSWORD/value", "error", "secret"),
        (event_path(conv, 3).name, "", "error", "secret"),
    ]


def test_masked_and_encrypted_secrets_are_fine(conv: Path) -> None:
    token = redact.encrypt("sk-real-key-material-123456", "server key")
    sources = {
        "A": {"value": redact.MASK, "kind": "StaticSecret"},
        "B": {"value": token, "kind": "StaticSecret"},
    }

    def change(state: dict[str, Any]) -> None:
        state["agent"]["llm"]["api_key"] = token
        state["secret_registry"]["secret_sources"] = sources

    edit_state(conv, change)
    assert found(conv) == []


def test_api_key_in_an_event_is_a_warning(conv: Path) -> None:
    obs = read_event(conv, 3)
    obs["observation"]["content"][0]["text"] = "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx123"
    write_event(conv, 3, obs)
    problems = validate_conversation(conv).problems
    assert [(p.severity, p.code) for p in problems] == [("warning", "api-key")]
    assert "OpenAI/Anthropic-style key" in problems[0].message
    assert "sk-proj" not in problems[0].message  # the report never repeats the secret


def test_unknown_action_kind_is_a_warning(conv: Path) -> None:
    action = read_event(conv, 2)
    action["action"] = {"query": "x", "kind": "BrowserAction"}
    write_event(conv, 2, action)
    assert found(conv) == [(event_path(conv, 2).name, "/action/kind", "warning", "unknown-kind")]


def test_unexpected_field_is_reported_once(conv: Path) -> None:
    edit_event(conv, 1, colour="blue")
    assert found(conv) == [(event_path(conv, 1).name, "/colour", "error", "schema")]
    assert (
        validate_conversation(conv).problems[0].message
        == "unexpected field (not part of the format)"
    )


def test_model_only_problem_is_reported(conv: Path) -> None:
    """`__root__` is a reserved id: the schema allows any string, the model refuses it."""
    obj = read_event(conv, 5)
    obj["id"] = "__root__"
    path = conv / "events" / event_path(conv, 5).name
    path.write_text(json.dumps(obj), encoding="utf-8")
    problems = [(p.pointer, p.code) for p in validate_conversation(conv).problems]
    assert ("/id", "model") in problems


def test_missing_base_state_is_a_warning(conv: Path) -> None:
    (conv / "base_state.json").unlink()
    assert found(conv) == [("base_state.json", "", "warning", "no-base-state")]


def test_legacy_events_without_parent_are_fine(conv: Path) -> None:
    for index in range(6):
        edit_event(conv, index, parent_id=None)
    assert found(conv) == []


def test_indices_past_99999_sort_by_number(conv: Path) -> None:
    """`event-100000-…` follows `event-99999-…`; compare by number, not by name."""
    events = sorted((conv / "events").glob("event-*.json"))
    for path in events:  # shift every index by 99997: 99997 .. 100002
        index = int(path.name.split("-")[1])
        path.rename(
            path.with_name(path.name.replace(f"event-{index:05d}", f"event-{index + 99997}"))
        )
    problems = validate_conversation(conv).problems
    assert [(p.code, p.message[:40]) for p in problems] == [
        ("index-gap", "index gap: no event file with index 0-99")
    ]


def test_pointer_escaping() -> None:
    pairs = list(redact.find_clear_secrets({"mcp": {"a/b": {"headers": {"X-Api~Key": "plain"}}}}))
    assert pairs == [("/mcp/a~1b/headers/X-Api~0Key", "X-Api~Key")]


def test_parent_written_after_its_child_warns(conv: Path) -> None:
    edit_event(conv, 5, parent_id="__root__")  # 4 -> 3 -> 2 -> 1 -> 5 -> root: no loop
    edit_event(conv, 1, parent_id=read_event(conv, 5)["id"])
    problems = validate_conversation(conv).problems
    assert [(p.path.name, p.pointer, p.severity, p.code) for p in problems] == [
        (event_path(conv, 1).name, "/parent_id", "warning", "parent-order")
    ]


def test_no_pairing_guess_past_an_unreadable_call(conv: Path) -> None:
    """The action file is damaged, so an error answering its call is not also reported."""
    event_path(conv, 2).write_bytes(b"")
    last = read_event(conv, 5)["id"]
    write_event(conv, 6, agent_error("call_b_terminal_0_0", last))
    assert [(p.path.name, p.code) for p in validate_conversation(conv).problems] == [
        (event_path(conv, 2).name, "empty"),
        (f"event-00006-{agent_error('', '')['id']}.json", "duplicate-result"),
    ]
