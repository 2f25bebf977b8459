"""``tom_consult`` and ``sleeptime_compute``: a model of the user ("theory of mind") the agent
can consult when a request is vague.

``sleeptime_compute`` reads the user's messages from the conversations saved beside this one
(each conversation once, again when it grew) into a profile file,
``~/.openhands/tom/user_messages.jsonl``. ``tom_consult`` asks an LLM (the tool params
``llm_model``, ``api_key``, ``api_base``, as the SDK's example passes them) what the user most likely wants, given that profile, this conversation's
user messages and the agent's question; its answer is the observation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr

from trajkit.sdk.tool import (
    Action,
    Observation,
    RuntimeTool,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
    register_tool,
)

__all__ = [
    "ConsultTomAction",
    "ConsultTomObservation",
    "SleeptimeComputeAction",
    "SleeptimeComputeObservation",
    "SleeptimeComputeTool",
    "TomConsultTool",
]

_GUIDE = (
    "You model a software user from what they have written. Given their earlier messages and "
    "the current conversation, say what they most likely want, which preferences apply, and "
    "how the agent should proceed. Be concrete and brief."
)


class ConsultTomAction(Action):
    reason: str = Field(description="Why the user's intent is unclear.")
    use_user_message: bool = Field(default=True, description="Ask about the user's last message.")
    custom_query: str | None = Field(default=None, description="A question of your own instead.")


class SleeptimeComputeAction(Action):
    pass


class ConsultTomObservation(Observation):
    suggestions: str = ""
    confidence: float | None = None
    reasoning: str | None = None


class SleeptimeComputeObservation(Observation):
    message: str = ""
    sessions_processed: int = 0


def _profile_dir() -> Path:
    return Path.home() / ".openhands" / "tom"


def _user_messages(conv: Any) -> list[str]:
    from trajkit.events import MessageEvent, TextContent

    return [
        "".join(c.text for c in e.llm_message.content if isinstance(c, TextContent))
        for e in conv.iter_events()
        if isinstance(e, MessageEvent) and e.source == "user"
    ]


def _conversations(persistence_dir: Path) -> Iterator[tuple[Path, Any, int]]:
    """Each conversation folder beside this one: `(folder, opened, its number of events)`."""
    from trajkit.store import open_conversation
    from trajkit.store.layout import is_conversation_folder

    for folder in sorted(persistence_dir.iterdir()):
        if is_conversation_folder(folder):
            conv = open_conversation(folder)
            yield folder, conv, len(conv.event_files())


class _Tom(ToolExecutor[Any, Any]):
    def __init__(self, ctx: ToolContext, params: dict[str, Any]) -> None:
        self.ctx, self.params = ctx, params

    def __call__(self, action: Any, conversation: Any = None) -> Any:
        if isinstance(action, SleeptimeComputeAction):
            return self._index()
        return self._consult(action, conversation)

    def _index(self) -> Any:
        if self.ctx.conversation_dir is None:
            return SleeptimeComputeObservation.from_text(
                "No conversation sessions found", message="No conversation sessions found"
            )
        history_file = _profile_dir() / "processed.json"
        history = json.loads(history_file.read_text()) if history_file.is_file() else {}
        sessions = []
        for folder, conv, count in _conversations(Path(self.ctx.conversation_dir).parent):
            if count and history.get(folder.name, 0) < count:
                sessions.append((folder, count, _user_messages(conv)))
        valid = [(f, n, m) for f, n, m in sessions if m]
        if not valid:
            text = (
                "No valid conversations to index"
                if sessions
                else "All conversations already indexed"
            )
            return SleeptimeComputeObservation.from_text(text, message=text)
        _profile_dir().mkdir(parents=True, exist_ok=True)
        with (_profile_dir() / "user_messages.jsonl").open("a") as out:
            for folder, _, messages in valid:
                out.write(json.dumps({"conversation": folder.name, "messages": messages}) + "\n")
        history_file.write_text(json.dumps({**history, **{f.name: n for f, n, _ in sessions}}))
        text = f"Indexed {len(valid)} conversations for user modeling"
        return SleeptimeComputeObservation.from_text(
            text, message=text, sessions_processed=len(valid)
        )

    def _consult(self, action: ConsultTomAction, conversation: Any) -> Any:
        from trajkit.events import Message, TextContent
        from trajkit.sdk.llm import LLM
        from trajkit.store import open_conversation

        if not self.params.get("llm_model"):
            return ConsultTomObservation.from_text(
                "tom_consult needs llm_model in its tool params.", is_error=True
            )
        profile = _profile_dir() / "user_messages.jsonl"
        earlier = profile.read_text()[-6000:] if profile.is_file() else "(none indexed)"
        here = (
            _user_messages(open_conversation(self.ctx.conversation_dir))
            if self.ctx.conversation_dir
            else []
        )
        question = action.custom_query or (
            f"What does the user mean by: {here[-1]!r}?"
            if here and action.use_user_message
            else action.reason
        )
        request = f"Earlier messages:\n{earlier}\n\nThis conversation:\n{json.dumps(here)}\n\nThe agent asks ({action.reason}): {question}"
        key = self.params.get("api_key")
        llm = LLM(model=self.params["llm_model"], api_key=SecretStr(key) if key else None,
                  base_url=self.params.get("api_base"), usage_id="tom", drop_params=True)  # fmt: skip
        try:
            reply = llm.completion([Message(role="system", content=[TextContent(text=_GUIDE)]),
                                    Message(role="user", content=[TextContent(text=request)])]).message  # fmt: skip
        except Exception as e:  # noqa: BLE001 (the agent reads why)
            return ConsultTomObservation.from_text(
                f"The user model could not be consulted: {e}", is_error=True
            )
        text = "".join(c.text for c in reply.content if isinstance(c, TextContent))
        return ConsultTomObservation.from_text(
            f"Guidance from the user model:\n{text}", suggestions=text
        )


def _tool(
    cls: type[ToolDefinition[Any, Any]],
    action: type[Action],
    observation: type[Observation],
    description: str,
    ctx: ToolContext,
    params: dict[str, Any],
) -> list[RuntimeTool]:
    annotations = {
        "title": cls.name,
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    return [
        cls(
            description=description,
            action_type=action,
            observation_type=observation,
            annotations=annotations,
            executor=_Tom(ctx, params),
        )
    ]


@register_tool
class TomConsultTool(ToolDefinition[ConsultTomAction, ConsultTomObservation]):
    """Asks the user model what a vague request means."""

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        return _tool(
            cls,
            ConsultTomAction,
            ConsultTomObservation,
            "Asks a model of the user (built from their earlier conversations) what they most likely mean when a request is vague or underspecified.",
            ctx,
            params,
        )


@register_tool
class SleeptimeComputeTool(ToolDefinition[SleeptimeComputeAction, SleeptimeComputeObservation]):
    """Indexes saved conversations into the user model."""

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        return _tool(
            cls,
            SleeptimeComputeAction,
            SleeptimeComputeObservation,
            "Reads the user's messages from saved conversations into the user model that tom_consult uses.",
            ctx,
            params,
        )
