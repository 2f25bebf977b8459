"""Action and observation payloads, and the unions that read them by ``kind``.

A ``kind`` outside the known set reads as ``UnknownAction``/``UnknownObservation`` with every key
kept, so a custom tool never hides a conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Discriminator, Tag

from trajkit.events.payloads.base import Action, Observation, UnknownAction, UnknownObservation
from trajkit.events.payloads.builtin import (
    FinishAction,
    FinishObservation,
    MCPToolAction,
    MCPToolObservation,
    ThinkAction,
    ThinkObservation,
)
from trajkit.events.payloads.file_editor import FileEditorAction, FileEditorObservation
from trajkit.events.payloads.task import TaskAction, TaskObservation
from trajkit.events.payloads.task_tracker import TaskItem, TaskTrackerAction, TaskTrackerObservation
from trajkit.events.payloads.terminal import CmdOutputMetadata, TerminalAction, TerminalObservation

ACTION_CLASSES: dict[str, type[Action]] = {
    c.__name__: c
    for c in (
        TerminalAction,
        FileEditorAction,
        FinishAction,
        ThinkAction,
        MCPToolAction,
        TaskTrackerAction,
        TaskAction,
    )
}
OBSERVATION_CLASSES: dict[str, type[Observation]] = {
    c.__name__: c
    for c in (
        TerminalObservation,
        FileEditorObservation,
        FinishObservation,
        ThinkObservation,
        MCPToolObservation,
        TaskTrackerObservation,
        TaskObservation,
    )
}
UNKNOWN_TAG = "__unknown__"


class KindDiscriminator:
    """Discriminator giving an object's ``kind`` when ``known`` has it, else ``UNKNOWN_TAG``.

    A class, not a closure, so the readers' fast validators (``parse.current_validator``) can
    tell these unions from others.
    """

    __slots__ = ("known",)
    __name__ = "discriminate"  # what pydantic-core names it by in messages

    def __init__(self, known: Mapping[str, Any]) -> None:
        self.known = known

    def __call__(self, value: Any) -> str:
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        return kind if isinstance(kind, str) and kind in self.known else UNKNOWN_TAG


def kind_discriminator(known: Mapping[str, Any]) -> Callable[[Any], str]:
    """Discriminator giving an object's ``kind`` when ``known`` has it, else ``UNKNOWN_TAG``."""
    return KindDiscriminator(known)


def kind_union(known: Mapping[str, type[Any]], unknown: type[Any]) -> Any:
    """The discriminated union of ``known`` (tagged by ``kind``), ``unknown`` for any other kind."""
    tagged = [Annotated[cls, Tag(kind)] for kind, cls in known.items()]
    members = (*tagged, Annotated[unknown, Tag(UNKNOWN_TAG)])
    return Annotated[Union[members], Discriminator(kind_discriminator(known))]  # noqa: UP007


if TYPE_CHECKING:  # what the checker sees: the base classes
    AnyAction = Action
    AnyObservation = Observation
else:
    AnyAction = kind_union(ACTION_CLASSES, UnknownAction)
    """Any action payload, chosen by ``kind``."""
    AnyObservation = kind_union(OBSERVATION_CLASSES, UnknownObservation)
    """Any observation payload, chosen by ``kind``."""

__all__ = [
    "ACTION_CLASSES",
    "OBSERVATION_CLASSES",
    "Action",
    "AnyAction",
    "AnyObservation",
    "CmdOutputMetadata",
    "FileEditorAction",
    "FileEditorObservation",
    "FinishAction",
    "FinishObservation",
    "KindDiscriminator",
    "MCPToolAction",
    "MCPToolObservation",
    "Observation",
    "TaskAction",
    "TaskItem",
    "TaskObservation",
    "TaskTrackerAction",
    "TaskTrackerObservation",
    "TerminalAction",
    "TerminalObservation",
    "ThinkAction",
    "ThinkObservation",
    "UnknownAction",
    "UnknownObservation",
    "kind_discriminator",
    "kind_union",
]
