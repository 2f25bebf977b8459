"""Build synthetic events (as the SDK would persist them) and conversation folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trajkit.events import Event, parse_event

TOOLS = [
    {
        "description": "Run a shell command.",
        "action_type": "TerminalAction",
        "observation_type": "TerminalObservation",
        "annotations": {"title": "terminal", "readOnlyHint": False, "destructiveHint": True},
        "kind": "TerminalTool",
        "title": "terminal",
    },
    {
        "description": "Finish.",
        "action_type": "FinishAction",
        "observation_type": "FinishObservation",
        "annotations": {"title": "finish", "readOnlyHint": True},
        "kind": "FinishTool",
        "title": "finish",
    },
]


def text(t: str) -> dict[str, Any]:
    return {"cache_prompt": False, "type": "text", "text": t}


def image(*urls: str) -> dict[str, Any]:
    return {"cache_prompt": False, "type": "image", "image_urls": list(urls)}


class Log:
    """Appends events with fresh ids; `events` parses them, `write` persists a folder."""

    def __init__(self) -> None:
        self.raw: list[dict[str, Any]] = []

    def add(self, kind: str, **fields: Any) -> str:
        event_id = fields.pop("id", f"{len(self.raw):08x}-0000-4000-8000-000000000000")
        self.raw.append(
            {"id": event_id, "timestamp": "2026-01-01T00:00:00", **fields, "kind": kind}
        )
        return event_id

    def system(self, prompt: str = "You are a test agent.", tools: Any = None, **kw: Any) -> str:
        return self.add(
            "SystemPromptEvent",
            source="agent",
            system_prompt=text(prompt),
            tools=TOOLS if tools is None else tools,
            **kw,
        )

    def user(self, *content: dict[str, Any], source: str = "user", **kw: Any) -> str:
        return self.add(
            "MessageEvent",
            source=source,
            llm_message={"role": "user", "content": list(content), "thinking_blocks": []},
            **kw,
        )

    def agent(self, t: str, response: str = "resp-x", **message: Any) -> str:
        return self.add(
            "MessageEvent",
            source="agent",
            llm_message={"role": "assistant", "content": [text(t)], **message},
            llm_response_id=response,
        )

    def action(
        self,
        call_id: str,
        response: str,
        *,
        tool: str = "terminal",
        arguments: str = '{"command": "ls"}',
        thought: str | None = None,
        action: dict[str, Any] | None = None,
        **kw: Any,
    ) -> str:
        if action is None and tool == "terminal":
            action = {"command": "ls", "is_input": False, "reset": False, "kind": "TerminalAction"}
        fields: dict[str, Any] = {
            "source": "agent",
            "thought": [text(thought)] if thought is not None else [],
            **kw,
        }
        if action is not None:
            fields["action"] = action
        fields.update(
            tool_name=tool,
            tool_call_id=call_id,
            tool_call={"id": call_id, "name": tool, "arguments": arguments, "origin": "completion"},
            llm_response_id=response,
        )
        return self.add("ActionEvent", **fields)

    def terminal_result(
        self, call_id: str, action_id: str, out: str, *, is_error: bool = False, **meta: Any
    ) -> str:
        metadata = {
            "exit_code": 0,
            "pid": -1,
            "working_dir": "/w",
            "py_interpreter_path": "",
            "prefix": "",
            "suffix": "\n[The command completed with exit code 0.]",
            **meta,
        }
        return self.add(
            "ObservationEvent",
            source="environment",
            tool_name="terminal",
            tool_call_id=call_id,
            observation={
                "content": [text(out)],
                "is_error": is_error,
                "command": "ls",
                "exit_code": 0,
                "timeout": False,
                "metadata": metadata,
                "kind": "TerminalObservation",
            },
            action_id=action_id,
        )

    def result(
        self, call_id: str, action_id: str, observation: dict[str, Any], tool: str = "terminal"
    ) -> str:
        return self.add(
            "ObservationEvent",
            source="environment",
            tool_name=tool,
            tool_call_id=call_id,
            observation=observation,
            action_id=action_id,
        )

    @property
    def events(self) -> list[Event]:
        return [parse_event(r) for r in self.raw]

    def write(self, folder: Path, state: dict[str, Any] | None = None) -> Path:
        """Persist as a conversation folder (base_state.json + events/)."""
        (folder / "events").mkdir(parents=True)
        for i, r in enumerate(self.raw):
            name = f"event-{i:05d}-{r['id']}.json"
            (folder / "events" / name).write_text(json.dumps(r), encoding="utf-8")
        base = {
            "id": "00000000-0000-4000-8000-000000000000",
            "agent": {"llm": {"model": "openai/gpt-4o"}, "kind": "Agent"},
            "persistence_dir": str(folder),
            **(state or {}),
        }
        (folder / "base_state.json").write_text(json.dumps(base), encoding="utf-8")
        return folder
