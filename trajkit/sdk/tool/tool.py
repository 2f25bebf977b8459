"""Live tools: `RuntimeTool` (what the LLM is offered, how a call becomes an action and an
action an observation), the `ToolContext` a tool is bound to, and `ToolDefinition`, the base of
a custom tool written the SDK's way.

``agent.tools`` holds `trajkit.sdk.tool.spec.Tool` specs (``{"name": "terminal", "params":
{}}``), exactly what ``base_state.json`` stores. When a conversation starts, each spec is
resolved through `trajkit.sdk.tool.registry` into live `RuntimeTool` objects bound to a
`ToolContext` (working directory and conversation folder).

A `RuntimeTool` knows what the LLM is offered (name, description, JSON Schema with the
``security_risk``/``summary`` arguments the SDK adds) and what the SystemPromptEvent records
(`trajkit.events.ToolDefinition`), parses a call's arguments into its Action payload, and
executes it into an Observation payload.

Custom tools: an `Action` (its fields are the arguments) and an `Observation`
(``to_llm_content`` decides what the LLM reads), a `ToolExecutor` whose
``__call__(action, conversation)`` returns the observation, and a `ToolDefinition` subclass
whose ``create(conv_state, **params)`` returns the live tool(s); ``register_tool("Name",
Subclass)`` makes ``Tool(name="Name")`` resolve to it. A custom tool's action and observation
are persisted as their own ``kind``; the observation's ``content`` holds what
``to_llm_content`` rendered, so ``trajkit convert`` gives the tool result the LLM was sent.
"""

from __future__ import annotations

import copy
import json
import weakref
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from trajkit.convert.tools import (
    chat_tool,
    offered_parameters,
    responses_tool,
    simplify_schema,
)
from trajkit.events import Action as _PayloadAction
from trajkit.events import ImageContent, TextContent, UnknownAction, UnknownObservation
from trajkit.events import Observation as _PayloadObservation
from trajkit.events import ToolDefinition as _ToolEntry
from trajkit.events.payloads.base import ERROR_HEADER
from trajkit.events.tools import tool_name
from trajkit.sdk.tool.response import (
    ResponseSchema,
    response_fields,
    split_response,
    validate_response,
)
from trajkit.sdk.tool.schema import Observation

if TYPE_CHECKING:
    from trajkit.sdk.conversation.base import BaseConversation

__all__ = [
    "RuntimeTool",
    "ToolAnnotations",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutor",
    "action_parameters",
    "own_arguments",
    "persisted_observation",
]


@dataclass(frozen=True)
class ToolContext:
    """What a tool needs to know about where it runs."""

    working_dir: str
    """The workspace folder (commands start here, relative paths resolve here)."""
    conversation_dir: str | None = None
    """The conversation folder ``<persistence_dir>/<hex id>``, if persisted."""
    env: dict[str, str] | None = None
    """Environment for processes (default: the current one)."""
    secrets: Any = None
    """The conversation's `trajkit.sdk.secret.secrets.SecretRegistry`: the terminal exports the secrets
    a command names and hides their values in its output."""

    @property
    def observations_dir(self) -> str | None:
        """``<conversation_dir>/observations``: full outputs truncated for the LLM."""
        if self.conversation_dir is None:
            return None
        return str(Path(self.conversation_dir) / "observations")

    # The SDK's ConversationState attributes a custom ``create(conv_state)`` reads.
    @property
    def workspace(self) -> _Workspace:
        """``conv_state.workspace.working_dir``."""
        return _Workspace(self.working_dir)

    @property
    def persistence_dir(self) -> str | None:
        """``conv_state.persistence_dir``: the conversation folder."""
        return self.conversation_dir

    @property
    def env_observation_persistence_dir(self) -> str | None:
        """``conv_state.env_observation_persistence_dir``: where full outputs are saved."""
        return self.observations_dir


@dataclass(frozen=True)
class _Workspace:
    working_dir: str


class RuntimeTool(ABC):
    """A live tool: offered to the LLM, turns calls into actions and actions into observations."""

    name: str
    """Name the LLM calls."""
    action_type: type[_PayloadAction]
    observation_type: type[_PayloadObservation]
    annotations: dict[str, Any] | None = None
    """MCP-style hints; ``readOnlyHint`` true means no ``security_risk`` argument."""
    parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012
    """JSON Schema of the action's own arguments (without security_risk/summary)."""

    description: str = ""
    response_schema: ResponseSchema | None = None
    """Fields every call also fills in (structured output, `trajkit.sdk.tool.response`)."""
    _responses: dict[int, Any]
    """Response fields by action (its ``id``, dropped with it); set with the schema."""

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        """Build the live tool(s) for a spec; most tools give exactly one."""
        return [cls(ctx, **params)]  # type: ignore[call-arg]

    @property
    def kind(self) -> str:
        """Tool class name as the SystemPromptEvent records it (``TerminalTool``)."""
        return type(self).__name__

    @property
    def read_only(self) -> bool:
        return bool((self.annotations or {}).get("readOnlyHint"))

    def parameters_schema(self) -> dict[str, Any]:
        """The schema sent to the LLM: security_risk (unless read-only), summary, own args
        (then the response schema's fields).
        """
        own = {k: v for k, v in self.parameters.items() if k != "required" or v}  # none: no key
        if self.response_schema is not None:
            extra = response_fields(self.response_schema)
            own = {**own, "properties": {**own.get("properties", {}), **extra["properties"]}}
            if required := [*own.get("required", []), *extra["required"]]:
                own["required"] = required
        return offered_parameters(own, security_risk=not self.read_only)

    # -- structured output -------------------------------------------------------------
    def set_response_schema(self, schema: ResponseSchema) -> RuntimeTool:
        """A copy of this tool whose calls also fill in ``schema``'s fields.

        Raises:
            ValueError: a field of ``schema`` has the name of one of the tool's own.
        """
        names = set(response_fields(schema)["properties"])
        clash = names & {*self.parameters.get("properties", {}), "security_risk", "summary"}
        if clash:
            raise ValueError(f"response_schema fields {sorted(clash)} collide with tool fields")
        tool = copy.copy(self)
        tool.response_schema = schema
        tool._responses = {}
        return tool

    def action_for_call(self, arguments: dict[str, Any]) -> _PayloadAction:
        """The action for a model's call: the response fields validated and kept apart
        (`parse_response`), the rest parsed by `action_from_arguments`.
        """
        if self.response_schema is None:
            return self.action_from_arguments(arguments)
        own, response = split_response(self.response_schema, arguments)
        action = self.action_from_arguments(own)
        self._remember(action, response)
        return action

    def recall_response(self, event: Any) -> None:
        """After a restore: keep the response fields of a recorded call (``event``, an
        ``ActionEvent`` of this tool) read back from its arguments, so that
        ``parse_response(event.action)`` answers as it did in the live run.
        """
        if self.response_schema is None or getattr(event, "action", None) is None:
            return
        try:
            arguments = json.loads(event.tool_call.arguments or "{}")
            response = split_response(self.response_schema, arguments)[1]
        except ValueError:  # a call refused in the run (its error is the next event)
            return
        self._remember(event.action, response)

    def _remember(self, action: Any, response: Any) -> None:
        self._responses[id(action)] = response
        weakref.finalize(action, self._responses.pop, id(action), None)

    def parse_response(self, action: _PayloadAction) -> Any:
        """The response fields of the call that gave ``action`` (a model of the schema's
        class, or a dict).

        Raises:
            ValueError: the tool has no response schema, or ``action`` was not made by it.
        """
        if self.response_schema is None:
            raise ValueError(f"tool {self.name!r} has no response_schema")
        response = getattr(self, "_responses", {}).get(id(action))
        if response is None:
            raise ValueError(f"this {type(action).__name__} has no structured output")
        return validate_response(self.response_schema, response)

    def parse_last_response(self, events: Sequence[Any]) -> Any:
        """The response fields of this tool's last call in ``events`` (None without one)."""
        if self.response_schema is None:
            raise ValueError(f"tool {self.name!r} has no response_schema")
        for event in reversed(events):
            if getattr(event, "kind", None) == "ActionEvent" and event.tool_name == self.name:
                arguments = json.loads(event.tool_call.arguments or "{}")
                return validate_response(
                    self.response_schema, split_response(self.response_schema, arguments)[1]
                )
        return None

    def to_chat_tool(self) -> dict[str, Any]:
        """Chat Completions ``tools`` entry."""
        return chat_tool(self.name, self.description, self.parameters_schema())

    def to_responses_tool(self) -> dict[str, Any]:
        """Responses API ``tools`` entry."""
        return responses_tool(self.name, self.description, self.parameters_schema())

    def definition(self) -> _ToolEntry:
        """What the SystemPromptEvent records for this tool."""
        data: dict[str, Any] = {
            "description": self.description,
            "action_type": self.action_type.__name__,
            "observation_type": self.observation_type.__name__,
        }
        if self.annotations is not None:
            data["annotations"] = self.annotations
        data.update(self._definition_fields())
        data["kind"] = self.kind
        data["title"] = (self.annotations or {}).get("title") or self.name
        return _ToolEntry.model_validate(data)

    def _definition_fields(self) -> dict[str, Any]:
        """Fields a kind of tool adds to its recorded definition (an MCP tool's ``mcp_tool``)."""
        return {}

    def action_from_arguments(self, arguments: dict[str, Any]) -> _PayloadAction:
        """Validate the LLM's arguments (minus security_risk/summary) into the action payload."""
        return self.action_type.model_validate(own_arguments(arguments))

    @abstractmethod
    def __call__(self, action: _PayloadAction) -> _PayloadObservation:
        """Execute ``action``. Errors the LLM should read are observations with is_error."""

    def execute(
        self, action: _PayloadAction, conversation: BaseConversation | None = None
    ) -> _PayloadObservation:
        """Run a persisted action and give the observation to persist (the agent's entry)."""
        del conversation
        return self(action)

    def run(
        self, action: _PayloadAction, conversation: BaseConversation | None = None
    ) -> _PayloadObservation:
        """Run ``action`` and give the tool's own observation (``execute_tool``'s entry); for a
        built-in tool it is the one persisted.
        """
        return self.execute(action, conversation)

    def resource_key(self, action: _PayloadAction | None) -> str | None:
        """Calls with the same key never run at the same time (parallel tool execution).

        The default, the tool's name, serialises calls to one tool (its state is shared);
        a tool whose calls are independent returns None.
        """
        del action
        return self.name

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release processes or files."""


# -- custom tools, the SDK's way ---------------------------------------------------------
A = TypeVar("A", bound=_PayloadAction)
O = TypeVar("O", bound=_PayloadObservation)  # noqa: E741


class ToolAnnotations(BaseModel):
    """MCP-style hints about a tool (the SDK's ``ToolAnnotations``)."""

    model_config = ConfigDict(frozen=True)

    title: str | None = None
    readOnlyHint: bool = False  # noqa: N815 (the MCP names)
    destructiveHint: bool = True  # noqa: N815
    idempotentHint: bool = False  # noqa: N815
    openWorldHint: bool = True  # noqa: N815


class ToolExecutor(ABC, Generic[A, O]):
    """Runs a custom tool's action (the SDK's ``ToolExecutor``)."""

    @abstractmethod
    def __call__(self, action: A, conversation: BaseConversation | None = None) -> O:
        """The observation for ``action``; ``conversation`` is the running conversation."""

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release what the executor holds."""


class ToolDefinition(RuntimeTool, Generic[A, O]):
    """A custom tool, the SDK's way: subclass it and implement ``create``.

    ``create(conv_state, **params)`` returns instances built with ``description``,
    ``action_type``, ``observation_type``, ``annotations`` and an ``executor``. The tool's name
    is the class name in snake case without ``_tool`` (``GrepTool`` -> ``grep``), as in the SDK;
    the parameter schema is the action's fields.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = tool_name({"kind": cls.__name__})  # the name a recorded kind gives

    def __init__(
        self,
        *,
        description: str,
        action_type: type[A],
        observation_type: type[O],
        annotations: ToolAnnotations | Mapping[str, Any] | None = None,
        executor: ToolExecutor[A, O] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.description = description
        self.action_type = action_type
        self.observation_type = observation_type
        if isinstance(annotations, ToolAnnotations):
            annotations = annotations.model_dump(exclude_none=True)
        self.annotations = dict(annotations) if annotations is not None else None
        self.executor = executor
        self.meta = meta
        self.parameters = action_parameters(action_type)

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        raise NotImplementedError(
            f"{cls.__name__}.create(conv_state, **params) must return the tool instances"
        )

    def action_from_arguments(self, arguments: dict[str, Any]) -> _PayloadAction:
        """Validate with the action class; the event stores it as its own ``kind``."""
        action = super().action_from_arguments(arguments)
        return UnknownAction.model_validate(action.model_dump(mode="json"))

    def __call__(self, action: _PayloadAction) -> _PayloadObservation:
        return self.execute(action)

    def execute(
        self, action: _PayloadAction, conversation: BaseConversation | None = None
    ) -> _PayloadObservation:
        return persisted_observation(self.run(action, conversation))

    def run(
        self, action: _PayloadAction, conversation: BaseConversation | None = None
    ) -> _PayloadObservation:
        """The executor's observation, of the tool's own observation class."""
        if self.executor is None:
            raise NotImplementedError(f"tool {self.name!r} has no executor")
        typed = action
        if not isinstance(action, self.action_type):
            args = action.model_dump(mode="json", exclude={"kind"})
            typed = self.action_type.model_validate(args)
        return self.executor(typed, conversation)  # type: ignore[arg-type]

    def resource_key(self, action: _PayloadAction | None) -> str | None:
        """Custom tools run in parallel unless they say otherwise (as the SDK's default)."""
        del action
        return None

    def interrupt(self) -> None:
        """Pass the conversation's `interrupt` on to an executor that has one."""
        stop = getattr(self.executor, "interrupt", None)
        if callable(stop):
            stop()

    def close(self) -> None:
        if self.executor is not None:
            self.executor.close()


def persisted_observation(observation: _PayloadObservation) -> _PayloadObservation:
    """A custom observation as stored: its fields and ``kind``, with ``content`` holding what
    ``to_llm_content`` renders (less the error header the converter adds back).
    """
    if not isinstance(observation, Observation):
        return observation
    rendered = observation.to_llm_content
    items = list(rendered() if callable(rendered) else rendered)
    first = items[0] if items else None
    if observation.is_error and isinstance(first, TextContent) and first.text == ERROR_HEADER:
        items = items[1:]
    data = observation.model_dump(mode="json")
    data["content"] = [
        c.model_dump(mode="json") if isinstance(c, TextContent | ImageContent) else c for c in items
    ]
    return UnknownObservation.model_validate(data)


def action_parameters(action_type: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of an action's arguments as the SDK sends it: ``$ref`` resolved (a
    model met inside itself left as an object), optional (``anyOf`` with null) fields given
    their non-null type, ``kind`` left out.
    """
    schema = action_type.model_json_schema()
    simple = simplify_schema(schema, schema.get("$defs", {}))
    props = {k: v for k, v in simple.get("properties", {}).items() if k != "kind"}
    out: dict[str, Any] = {"type": "object", "properties": props}
    required = [r for r in simple.get("required", []) if r != "kind"]
    if required:
        out["required"] = required
    return out


def own_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A call's arguments without the ``security_risk`` and ``summary`` every tool is offered."""
    return {k: v for k, v in arguments.items() if k not in ("security_risk", "summary")}
