"""Action and observation payloads, and the unions that read them by ``kind``.

A ``kind`` outside the known set reads as ``UnknownAction``/``UnknownObservation`` with every key
kept, so a custom tool never hides a conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

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


def kind_discriminator(known: Mapping[str, Any]) -> Callable[[Any], str]:
    """Discriminator giving an object's ``kind`` when ``known`` has it, else ``UNKNOWN_TAG``."""

    def discriminate(value: Any) -> str:
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        return kind if isinstance(kind, str) and kind in known else UNKNOWN_TAG

    return discriminate


AnyAction = Annotated[
    Annotated[TerminalAction, Tag("TerminalAction")]
    | Annotated[FileEditorAction, Tag("FileEditorAction")]
    | Annotated[FinishAction, Tag("FinishAction")]
    | Annotated[ThinkAction, Tag("ThinkAction")]
    | Annotated[MCPToolAction, Tag("MCPToolAction")]
    | Annotated[TaskTrackerAction, Tag("TaskTrackerAction")]
    | Annotated[TaskAction, Tag("TaskAction")]
    | Annotated[UnknownAction, Tag(UNKNOWN_TAG)],
    Discriminator(kind_discriminator(ACTION_CLASSES)),
]
"""Any action payload, chosen by ``kind``."""

AnyObservation = Annotated[
    Annotated[TerminalObservation, Tag("TerminalObservation")]
    | Annotated[FileEditorObservation, Tag("FileEditorObservation")]
    | Annotated[FinishObservation, Tag("FinishObservation")]
    | Annotated[ThinkObservation, Tag("ThinkObservation")]
    | Annotated[MCPToolObservation, Tag("MCPToolObservation")]
    | Annotated[TaskTrackerObservation, Tag("TaskTrackerObservation")]
    | Annotated[TaskObservation, Tag("TaskObservation")]
    | Annotated[UnknownObservation, Tag(UNKNOWN_TAG)],
    Discriminator(kind_discriminator(OBSERVATION_CLASSES)),
]
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
]
