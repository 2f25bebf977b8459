"""``base_state.json``: the ConversationState snapshot (v1-format section 2).

This is the toolkit's reading model. Every field but ``id`` and ``agent`` is optional with no
default, so a dump (``exclude_none``) writes back exactly the keys that were read, in SDK order;
the docstrings give the SDK's defaults. Configuration objects keep unknown keys (newer SDKs add
fields; the SDK itself ignores unknown top-level keys).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import orjson

from trajkit.events._model import OpenModel

ExecutionStatus = Literal[
    "idle",
    "running",
    "paused",
    "waiting_for_confirmation",
    "finished",
    "error",
    "stuck",
    "deleting",
]
EXECUTION_STATUSES: tuple[str, ...] = get_args(ExecutionStatus)
"""Every run status, in the SDK's order (the one list: the CLI's choices, the runtime's enum)."""


class LLMConfig(OpenModel):
    """The persisted LLM settings (``agent.llm``); secrets are masked or encrypted."""

    model: str
    """litellm ``provider/model`` name."""
    api_key: str | None = None
    """``**********`` (masked), ``gAAAAA…`` (Fernet), never a clear key."""
    base_url: str | None = None
    """Provider base URL."""
    usage_id: str | None = None
    """Metrics key (SDK default ``default``)."""
    api_mode: str | None = None
    """``auto``, ``chat`` or ``responses`` (default ``auto``)."""
    temperature: float | None = None
    """Sampling temperature."""


class ToolSpec(OpenModel):
    """A tool by registry name with its parameters."""

    name: str
    """Registry name, e.g. ``terminal``."""
    params: dict[str, Any] | None = None
    """Tool parameters."""


class AgentConfig(OpenModel):
    """The persisted agent configuration."""

    llm: LLMConfig
    """The agent's LLM."""
    tools: list[ToolSpec] | None = None
    """Tool specs (SDK default ``[]``)."""
    mcp_config: dict[str, Any] | None = None
    """MCP servers (SDK default ``{}``)."""
    kind: str | None = None
    """Agent class: ``Agent`` or ``ACPAgent``."""


class TokenUsage(OpenModel):
    """Token counts of one response, or accumulated."""

    model: str | None = None
    """Model name."""
    prompt_tokens: int | None = None
    """Prompt tokens."""
    completion_tokens: int | None = None
    """Completion tokens."""
    cache_read_tokens: int | None = None
    """Prompt tokens read from cache."""
    cache_write_tokens: int | None = None
    """Prompt tokens written to cache."""
    reasoning_tokens: int | None = None
    """Reasoning tokens."""
    context_window: int | None = None
    """Model context window."""
    per_turn_token: int | None = None
    """Prompt plus completion of that call."""
    response_id: str | None = None
    """Response id."""


class Metrics(OpenModel):
    """Usage metrics of one LLM (by ``usage_id``)."""

    model_name: str | None = None
    """Model name."""
    accumulated_cost: float | None = None
    """Total cost in USD."""
    max_budget_per_task: float | None = None
    """Budget cap."""
    accumulated_token_usage: TokenUsage | None = None
    """Accumulated token usage."""
    costs: list[dict[str, Any]] | None = None
    """Per-call costs ``{model, cost, timestamp}``."""
    response_latencies: list[dict[str, Any]] | None = None
    """Per-call latencies ``{model, latency, response_id}``."""
    token_usages: list[TokenUsage] | None = None
    """Per-call token usage."""


class ConversationStats(OpenModel):
    """Metrics per LLM usage id."""

    usage_to_metrics: dict[str, Metrics] | None = None
    """Metrics keyed by ``usage_id``."""


class BaseState(OpenModel):
    """The ``base_state.json`` snapshot (no events)."""

    id: str
    """Conversation id, dashed uuid (the folder name is its hex)."""
    agent: AgentConfig
    """Full agent configuration."""
    workspace: dict[str, Any] | None = None
    """Workspace, e.g. ``{"working_dir": ..., "kind": "LocalWorkspace"}``."""
    persistence_dir: str | None = None
    """The conversation folder."""
    max_iterations: int | None = None
    """Iteration cap (default 500)."""
    stuck_detection: bool | None = None
    """Whether stuck detection is on (default true)."""
    execution_status: ExecutionStatus | None = None
    """Run status (default ``idle``)."""
    confirmation_policy: dict[str, Any] | None = None
    """``NeverConfirm``, ``AlwaysConfirm`` or ``ConfirmRisky``."""
    security_analyzer: dict[str, Any] | None = None
    """Security analyzer (since 1.1.0)."""
    activated_knowledge_skills: list[str] | None = None
    """Knowledge skills already triggered."""
    activated_path_rules: list[str] | None = None
    """Path rules already injected (since 1.34.0)."""
    invoked_skills: list[str] | None = None
    """Skills invoked with ``invoke_skill`` (since 1.18.0)."""
    blocked_actions: dict[str, str] | None = None
    """Action id to block reason (since 1.7.1)."""
    blocked_messages: dict[str, str] | None = None
    """Message id to block reason (since 1.7.1)."""
    last_user_message_id: str | None = None
    """Last user message (since 1.11.5)."""
    leaf_event_id: str | None = None
    """HEAD: parent of the next event (since 1.31.0)."""
    head_is_empty: bool | None = None
    """HEAD deliberately emptied (since 1.31.0)."""
    stats: ConversationStats | None = None
    """LLM usage metrics."""
    secret_registry: dict[str, Any] | None = None
    """``{"secret_sources": {name: StaticSecret|LookupSecret}}``; values masked or encrypted."""
    tags: dict[str, str] | None = None
    """Tags (since 1.16.0)."""
    agent_state: dict[str, Any] | None = None
    """Free-form agent runtime state (since 1.11.2)."""
    hook_config: dict[str, Any] | None = None
    """Hooks (since 1.13.0)."""


def parse_base_state(data: str | bytes | dict[str, Any]) -> BaseState:
    """Parse ``base_state.json`` content; raises ``pydantic.ValidationError`` or ``ValueError``."""
    if isinstance(data, dict):
        return BaseState.model_validate(data)
    obj = orjson.loads(data)
    if not isinstance(obj, dict):
        raise ValueError(f"base_state.json must hold a JSON object, got {type(obj).__name__}")
    return BaseState.model_validate(obj)


def dump_base_state(state: BaseState) -> str:
    """Compact JSON with the keys that are set, in SDK order."""
    return state.model_dump_json(exclude_none=True)
