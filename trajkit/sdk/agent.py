"""``Agent``: the persisted agent configuration and its step.

The model holds what ``base_state.json`` stores under ``agent`` (field names and order of the
SDK's ``Agent``): the LLM, `Tool` specs, ``mcp_config``, the built-in tools to include, the
system prompt settings. ``mcp_config`` is accepted both as the plain server map the SDK 1.58
persists and in the ``{"mcpServers": {...}}`` form of Claude-style configs; it is stored as the
plain map, which both read.

One `Agent.step` is one LLM call plus the tool calls it asks for:

1. The messages are the conversation's view (``state.view``, `trajkit.sdk.context.view`):
   kept live during a run, as the SDK keeps it, and rebuilt with the view properties on
   restore, so a restored conversation sends what ``trajkit convert --view condensed`` gives.
2. Text without tool calls becomes an agent ``MessageEvent`` and the run is finished. A
   reply the provider's content filter blocked becomes a user message asking the model to
   rephrase, and the run goes on (as the SDK does).
3. Every tool call becomes an ``ActionEvent`` (thought and reasoning on the first only); all of
   them are emitted before any runs. A call naming no known tool, or with arguments that are not
   valid JSON for the tool, gets ``action=None`` and, in its turn, an ``AgentErrorEvent`` that
   quotes the original arguments text; the run continues so the model can correct itself.
4. The calls run one after another, or up to ``tool_concurrency_limit`` at once in threads
   (calls to a tool with one shared session, such as the terminal, take turns); each result is
   an ``ObservationEvent`` (or an ``AgentErrorEvent`` when the tool raised), emitted in call
   order once all have run. ``finish`` ends the run.
"""

from __future__ import annotations

import json
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    ValidationError,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    CondensationRequest,
    FinishAction,
    Message,
    MessageEvent,
    ObservationEvent,
    SystemPromptEvent,
    TextContent,
    UserRejectObservation,
)
from trajkit.sdk.context.condenser import CONDENSERS, Condenser
from trajkit.sdk.context.skills import AgentContext
from trajkit.sdk.llm import LLM
from trajkit.sdk.llm.exceptions import (
    LLMContentPolicyViolationError,
    LLMContextWindowExceedError,
    LLMMalformedConversationHistoryError,
)
from trajkit.sdk.mcp_config import MCPServer, protect_mcp_config, unprotect_mcp_config
from trajkit.sdk.prompt import DEFAULT_TEMPLATE, render_system_prompt
from trajkit.sdk.security.analyzers import SecurityAnalyzerBase
from trajkit.sdk.tool import RuntimeTool, Tool, ToolContext, resolve_tool
from trajkit.sdk.tool.builtins import BUILTIN_TOOL_NAMES, DEFAULT_TOOL_NAMES

if TYPE_CHECKING:
    from trajkit.sdk.conversation.base import BaseConversation

__all__ = ["Agent"]

CONTENT_FILTERED = (
    "The provider's content filter stopped your last reply before it reached me. Go on with "
    "the task and word the reply differently."
)
"""Sent as a user message when the model's reply was blocked by the provider's filter."""


class Agent(BaseModel):
    """An LLM with tools; persisted with the conversation."""

    model_config = ConfigDict(extra="ignore", frozen=True, use_attribute_docstrings=True)

    llm: LLM
    """The model."""
    tools: list[Tool] = Field(default_factory=list)
    """Tool specs, resolved through the registry when a conversation starts."""
    mcp_config: dict[str, Any] = Field(default_factory=dict)
    """MCP servers by name (``{"name": {"command", "args", "env"}}``)."""
    filter_tools_regex: str | None = None
    """Only offer tools whose name matches."""
    include_default_tools: list[str] = Field(default_factory=lambda: list(DEFAULT_TOOL_NAMES))
    """Built-in tools: ``FinishTool``, ``ThinkTool``."""
    agent_context: AgentContext | None = None
    """Skills (keyword-triggered or always on) and prompt suffixes."""
    system_prompt: str | None = None
    """Full system prompt used verbatim; None renders ``system_prompt_filename``."""
    system_prompt_filename: str = "system_prompt.j2"
    """Jinja template: a name in ``trajkit/sdk/prompts`` or an absolute path (`trajkit.sdk.prompt`)."""
    security_policy_filename: str = "security_policy.j2"
    """Security policy inserted in the prompt: a bundled name, an absolute path, or "" for none."""
    system_prompt_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Template variables, e.g. ``cli_mode``; ``llm_security_analyzer`` defaults to true."""
    condenser: Condenser | dict[str, Any] | None = None
    """``LLMSummarizingCondenser``, ``PipelineCondenser`` or ``NoOpCondenser`` (other kinds
    are kept as given and not run)."""
    critic: dict[str, Any] | None = None
    """Critic configuration (kept as given)."""
    tool_concurrency_limit: int = Field(default=1, ge=1)
    """How many tool calls of one response may run at once (1: one after another); results
    are persisted in call order either way."""
    kind: Literal["Agent"] = "Agent"
    """Agent class name."""

    @model_validator(mode="before")
    @classmethod
    def _prompt_settings(cls, data: Any) -> Any:
        # As the SDK's Agent: an inline prompt excludes a custom template, a None policy name
        # means none, and the risk-rating instructions are on unless switched off.
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if data.get("security_policy_filename", "") is None:
            data["security_policy_filename"] = ""
        if data.get("system_prompt") is not None and data.get(
            "system_prompt_filename", DEFAULT_TEMPLATE
        ) not in (None, DEFAULT_TEMPLATE):
            raise ValueError(
                "Cannot set both 'system_prompt' and a non-default 'system_prompt_filename'. "
                "Use one or the other."
            )
        kwargs = data.get("system_prompt_kwargs")
        kwargs = dict(kwargs) if isinstance(kwargs, dict) else {}
        kwargs.setdefault("llm_security_analyzer", True)
        data["system_prompt_kwargs"] = kwargs
        return data

    @field_validator("mcp_config", mode="before")
    @classmethod
    def _plain_server_map(cls, v: Any) -> Any:
        # Claude/Cursor-style configs (and the SDK docs) wrap servers in "mcpServers"; SDK 1.58
        # persists the plain map. Accept both, store the plain map.
        if isinstance(v, dict) and isinstance(v.get("mcpServers"), dict):
            v = dict(v["mcpServers"])
        if isinstance(v, dict):  # MCPServer models are stored as the plain map the SDK dumps
            v = {k: s.as_config() if isinstance(s, MCPServer) else s for k, s in v.items()}
        return v

    @field_validator("mcp_config")
    @classmethod
    def _servers_are_objects(cls, v: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        for name, server in v.items():
            if not isinstance(server, dict):
                raise ValueError(f"mcp_config[{name!r}] must be an object, got {server!r}")
        # secret-looking env/headers values are masked or encrypted on disk (sdk.mcp)
        context = info.context if isinstance(info.context, dict) else {}
        return unprotect_mcp_config(v, context.get("cipher"))

    @field_serializer("mcp_config")
    def _protect_mcp_secrets(self, v: dict[str, Any], info: SerializationInfo) -> dict[str, Any]:
        context = info.context if isinstance(info.context, dict) else {}
        if context.get("expose_secrets"):
            return v
        return protect_mcp_config(v, context.get("cipher"))

    # -- tools -----------------------------------------------------------------------
    def llms(self) -> list[LLM]:
        """The agent's LLM (and those it routes to) and the condenser's, each keeping its metrics
        under its usage id.
        """
        out = [self.llm, *getattr(self.llm, "llms_for_routing", {}).values()]  # a router's LLMs
        if isinstance(self.condenser, CONDENSERS):
            out.extend(self.condenser.llms())
        return out

    def handles_condensation_requests(self) -> bool:
        """Whether the condenser answers a ``CondensationRequest`` (the SDK's check)."""
        return isinstance(self.condenser, CONDENSERS) and (
            self.condenser.handles_condensation_requests()
        )

    def tool_names(self) -> list[str]:
        """Names of the spec'd tools plus the built-in ones (for the restore check)."""
        names = [t.name for t in self.tools]
        names += [BUILTIN_TOOL_NAMES.get(d, d) for d in self.include_default_tools]
        return names

    def resolve_tools(self, ctx: ToolContext) -> dict[str, RuntimeTool]:
        """Live tools by name: specs in order, then the built-ins."""
        out: dict[str, RuntimeTool] = {}
        for spec in [*self.tools, *(Tool(name=d) for d in self.include_default_tools)]:
            for tool in resolve_tool(spec, ctx):
                out[tool.name] = tool
        return {n: t for n, t in out.items() if self.keeps_tool(n)}

    def keeps_tool(self, name: str) -> bool:
        """Whether ``filter_tools_regex`` lets a tool (spec'd or MCP) through; built-ins always."""
        if not self.filter_tools_regex or name in BUILTIN_TOOL_NAMES.values():
            return True
        return re.match(self.filter_tools_regex, name) is not None

    def verify(self, persisted_agent: dict[str, Any]) -> None:
        """Refuse to continue a conversation written by another agent class or with fewer tools."""
        kind = persisted_agent.get("kind", "Agent")
        if kind != self.kind:
            raise ValueError(
                f"this conversation was written by a {kind!r} agent; it cannot be continued "
                f"with {self.kind!r}"
            )
        tools = persisted_agent.get("tools") or []
        persisted = {t.get("name") for t in tools if isinstance(t, dict)}
        defaults = persisted_agent.get("include_default_tools", list(DEFAULT_TOOL_NAMES))
        persisted |= {BUILTIN_TOOL_NAMES.get(d, d) for d in defaults or []}
        missing = sorted(str(n) for n in persisted - set(self.tool_names()))
        if missing:
            raise ValueError(
                "tools were removed mid-conversation: the conversation used "
                f"{', '.join(missing)}, which this agent does not have; tools may be added, "
                "not removed"
            )

    # -- prompt ----------------------------------------------------------------------
    @property
    def static_system_message(self) -> str:
        """The system prompt without what a conversation adds (the agent context's skills and
        suffix), for the current directory as the workspace.
        """
        return self._static_prompt(os.getcwd(), self.tool_names())

    def _static_prompt(self, working_dir: str, tool_names: list[str]) -> str:
        if self.system_prompt is not None:
            return self.system_prompt
        return render_system_prompt(
            working_dir=working_dir,
            tool_names=tool_names,
            system_prompt_filename=self.system_prompt_filename,
            security_policy_filename=self.security_policy_filename,
            system_prompt_kwargs=self.system_prompt_kwargs,
        )

    def system_prompt_event(
        self, tools: dict[str, RuntimeTool], ctx: ToolContext
    ) -> SystemPromptEvent:
        text = self._static_prompt(ctx.working_dir, list(tools))
        suffix = self.agent_context.system_prompt_suffix() if self.agent_context else None
        if suffix:
            text = f"{text}\n\n{suffix}"
        return SystemPromptEvent(
            system_prompt=TextContent(text=text),
            tools=[t.definition() for t in tools.values()],
        )

    # -- the step --------------------------------------------------------------------
    def step(self, conversation: BaseConversation) -> None:
        """One LLM call and the tool calls it asks for (see the module docstring)."""
        pending = conversation.pending_actions()
        if pending:  # actions the user confirmed by calling run() again
            for action_event in pending:
                conversation.emit(self._results(conversation, [action_event])[action_event.id])
            if any(isinstance(e.action, FinishAction) for e in pending):
                conversation.finish()
            return
        last_message = conversation.state.last_user_message_id
        if last_message is not None and conversation.state.pop_blocked_message(last_message):
            conversation.finish()  # a UserPromptSubmit hook blocked it: not answered (SDK)
            return
        condensation = self._condensation(conversation)
        if condensation is not None:  # this step condenses; the next one calls the model
            conversation.emit(condensation)
            return
        messages = conversation.llm_messages()
        tools = conversation.tools
        try:
            response = conversation.call_llm(lambda: self.llm.call(messages, list(tools.values())))
        except LLMContextWindowExceedError:
            if not self.handles_condensation_requests():
                raise
            conversation.emit(CondensationRequest())  # condensed at the next step (SDK)
            return
        except LLMContentPolicyViolationError:
            # a refusal of this reply, not of the task: ask again, as the SDK does
            conversation.emit(
                MessageEvent(
                    source="user",
                    llm_message=Message(role="user", content=[TextContent(text=CONTENT_FILTERED)]),
                )
            )
            return
        except LLMMalformedConversationHistoryError:
            if not self.handles_condensation_requests():
                raise
            # The live view may be what the provider refused: rebuild it with the view
            # properties enforced, then condense at the next step (as the SDK recovers).
            conversation.state.rebuild_view()
            conversation.emit(CondensationRequest())
            return
        message = response.message
        if not message.tool_calls:
            conversation.emit(
                MessageEvent(source="agent", llm_message=message, llm_response_id=response.id)
            )
            conversation.finish()
            return
        analyzer = conversation.state.security_analyzer
        planned = [
            self._action_event(
                message,
                i,
                response.id,
                tools,
                analyzer if isinstance(analyzer, SecurityAnalyzerBase) else None,
            )
            for i in range(len(message.tool_calls))
        ]
        for event, _ in planned:
            conversation.emit(event)
        runnable = [event for event, error in planned if error is None]
        if runnable and conversation.needs_confirmation(runnable):
            for _, error in planned:
                if error is not None:
                    conversation.emit(error)
            conversation.wait_for_confirmation()
            return
        results = self._results(conversation, runnable)
        for event, error in planned:
            conversation.emit(error if error is not None else results[event.id])
        if any(isinstance(e.action, FinishAction) for e, err in planned if err is None):
            conversation.finish()

    def _condensation(self, conversation: BaseConversation) -> Condensation | None:
        """The condensation the condenser wants before this step's model call, if any."""
        if not isinstance(self.condenser, CONDENSERS):
            return None
        return self.condenser.condense(conversation.state.view, agent_llm=self.llm)

    def _action_event(
        self,
        message: Message,
        i: int,
        response_id: str,
        tools: dict[str, RuntimeTool],
        analyzer: SecurityAnalyzerBase | None = None,
    ) -> tuple[ActionEvent, AgentErrorEvent | None]:
        assert message.tool_calls is not None
        call = message.tool_calls[i]
        first = i == 0
        common: dict[str, Any] = {
            "thought": [c for c in message.content if isinstance(c, TextContent)] if first else [],
            "reasoning_content": message.reasoning_content if first else None,
            "thinking_blocks": list(message.thinking_blocks) if first else [],
            "responses_reasoning_item": message.responses_reasoning_item if first else None,
            "tool_name": call.name,
            "tool_call_id": call.id,
            "tool_call": call,
            "llm_response_id": response_id,
        }
        tool = tools.get(call.name)
        if tool is None:
            err = (
                f"Tool '{call.name}' not found. Available: {', '.join(tools)}. "
                f"The call's arguments were: {call.arguments}"
            )
            return _failed(common, call.name, call.arguments, err)
        try:
            args = _parse_arguments(call.arguments)
            action = tool.action_from_arguments(args)
        except (ValueError, ValidationError) as e:
            reason = _validation_reason(e)
            err = f"Error validating args {call.arguments} for tool '{call.name}': {reason}"
            return _failed(common, call.name, call.arguments, err)
        summary = args.get("summary")
        risk = analyzer.security_risk(args, read_only=tool.read_only) if analyzer else "UNKNOWN"
        event = ActionEvent(
            **common,
            action=action,
            security_risk=risk,
            summary=summary
            if isinstance(summary, str)
            else _default_summary(call.name, call.arguments),
        )
        return event, None

    def _run_all(
        self, conversation: BaseConversation, events: list[ActionEvent]
    ) -> dict[str, ObservationEvent | AgentErrorEvent]:
        """Results by action id. Up to ``tool_concurrency_limit`` calls run at once (threads);
        calls to a tool with one shared session (`RuntimeTool.resource_key`) take turns.
        """
        limit = min(self.tool_concurrency_limit, len(events))
        if limit <= 1:
            return {e.id: self._run_one(conversation, e) for e in events}
        locks: dict[str, threading.Lock] = {}
        for e in events:
            key = conversation.tools[e.tool_name].resource_key(e.action)
            if key is not None:
                locks.setdefault(key, threading.Lock())

        def run(event: ActionEvent) -> ObservationEvent | AgentErrorEvent:
            key = conversation.tools[event.tool_name].resource_key(event.action)
            if key is None:
                return self._run_one(conversation, event)
            with locks[key]:
                return self._run_one(conversation, event)

        with ThreadPoolExecutor(max_workers=limit, thread_name_prefix="trajkit-tool") as pool:
            results = list(pool.map(run, events))
        return {e.id: r for e, r in zip(events, results, strict=True)}

    def _results(
        self, conversation: BaseConversation, events: list[ActionEvent]
    ) -> dict[str, ObservationEvent | AgentErrorEvent | UserRejectObservation]:
        """Results by action id: a rejection for each action a PreToolUse hook blocked
        (`trajkit.sdk.hooks`), the tool's result for the others.
        """
        out: dict[str, ObservationEvent | AgentErrorEvent | UserRejectObservation] = {}
        for e in events:
            reason = conversation.state.pop_blocked_action(e.id)
            if reason is not None:
                out[e.id] = UserRejectObservation(
                    tool_name=e.tool_name, tool_call_id=e.tool_call_id, action_id=e.id,
                    rejection_reason=reason, rejection_source="hook",
                )  # fmt: skip
        out.update(self._run_all(conversation, [e for e in events if e.id not in out]))
        return {e.id: out[e.id] for e in events}

    def _run_one(
        self, conversation: BaseConversation, event: ActionEvent
    ) -> ObservationEvent | AgentErrorEvent:
        tool = conversation.tools[event.tool_name]
        assert event.action is not None
        try:
            observation = tool.execute(event.action, conversation)
        except Exception as e:  # a tool bug must not end the conversation
            return AgentErrorEvent(
                tool_name=event.tool_name,
                tool_call_id=event.tool_call_id,
                error=conversation.mask_secrets(
                    f"Error executing tool '{event.tool_name}': {type(e).__name__}: {e}"
                ),
            )
        if conversation.interrupted():  # the SDK cancels the call: an error, not its output
            return AgentErrorEvent(
                tool_name=event.tool_name,
                tool_call_id=event.tool_call_id,
                error="The tool call was cancelled: the conversation was interrupted.",
            )
        return ObservationEvent(
            tool_name=event.tool_name,
            tool_call_id=event.tool_call_id,
            observation=conversation.mask_secrets(observation),
            action_id=event.id,
        )


def _failed(
    common: dict[str, Any], name: str, arguments: str, error: str
) -> tuple[ActionEvent, AgentErrorEvent]:
    event = ActionEvent(**common, action=None, summary=_default_summary(name, arguments))
    return event, AgentErrorEvent(
        tool_name=common["tool_name"], tool_call_id=common["tool_call_id"], error=error
    )


def _validation_reason(e: Exception) -> str:
    if isinstance(e, ValidationError):
        parts = []
        for err in e.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "arguments"
            parts.append(f"{loc}: {err['msg']}")
        return "; ".join(parts)
    return str(e)


def _default_summary(tool_name: str, arguments_text: str) -> str:
    """The SDK's summary when the LLM gave none: ``<tool>: <arguments JSON>``."""
    return f"{tool_name}: {arguments_text}"


def _parse_arguments(text: str) -> dict[str, Any]:
    """Arguments JSON text into a dict; raises ValueError with a readable reason."""
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as e:
        raise ValueError(f"arguments are not valid JSON ({e.msg} at position {e.pos})") from None
    if not isinstance(value, dict):
        raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value
