"""The goal loop: drive a conversation until a second LLM (the judge) finds the objective done.

`run_goal` sends the objective, runs the agent, and after each run asks the judge for a
verdict on the transcript (`judge_goal`: a JSON ``{"score", "complete", "missing"}``; an
answer it cannot read counts as not done). Not done: the judge's ``missing`` goes back to the
agent as the next message, until ``max_iterations`` rounds (``capped``). `GoalController` is
the decision part alone, for drivers that do their own I/O.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from trajkit.events import Event, LLMConvertibleEvent, Message, TextContent

if TYPE_CHECKING:
    from trajkit.sdk.conversation.base import BaseConversation
    from trajkit.sdk.llm import LLM

__all__ = [
    "GoalContinue",
    "GoalController",
    "GoalDone",
    "GoalOutcome",
    "GoalVerdict",
    "judge_goal",
    "run_goal",
]

JUDGE_INSTRUCTIONS = (
    "You check whether an agent has fully achieved an objective, judging only from the "
    "transcript of its work: what it ran, what the tools returned, what it wrote. A claim "
    "without evidence in the transcript does not count, and neither does partial work. "
    'Answer with one JSON object and nothing else: {"score": <0.0 to 1.0, how likely the '
    'whole objective is provably done>, "complete": <true or false>, "missing": "<what is '
    'still to do, or an empty string>"}'
)
JUDGE_REQUEST = "Objective:\n{objective}\n\nTranscript:\n{transcript}"
FOLLOWUP = (
    "A review (round {iteration}) found the objective not finished yet. Still to do: "
    "{missing}\nContinue until it is done, and show the evidence (command output, file "
    "contents, test results)."
)


class GoalVerdict(BaseModel):
    """The judge's answer for one round."""

    score: float = Field(ge=0.0, le=1.0)
    complete: bool
    missing: str = ""


class GoalOutcome(BaseModel):
    """How the loop ended: ``complete`` or ``capped`` (rounds used up)."""

    status: Literal["complete", "capped"]
    iterations: int = Field(ge=1)
    verdict: GoalVerdict


class GoalContinue(BaseModel):
    """Not done: send ``followup`` and run again."""

    followup: str
    verdict: GoalVerdict


class GoalDone(BaseModel):
    outcome: GoalOutcome


def judge_goal(judge_llm: LLM, objective: str, events: Sequence[Event]) -> GoalVerdict:
    """The judge's verdict on ``objective`` from the conversation's events."""
    from trajkit.convert import events_to_messages

    turns = []
    for message in events_to_messages([e for e in events if isinstance(e, LLMConvertibleEvent)]):
        text = "\n".join(c.text for c in message.content if isinstance(c, TextContent)).strip()
        if message.role != "system" and text:  # the system prompt holds no evidence
            turns.append(f"{message.role}: {text}")
    request = JUDGE_REQUEST.format(objective=objective, transcript="\n\n".join(turns))
    messages = [Message(role="system", content=[TextContent(text=JUDGE_INSTRUCTIONS)]),
                Message(role="user", content=[TextContent(text=request)])]  # fmt: skip
    reply = judge_llm.copy_for(judge_llm.usage_id, stream=False) if judge_llm.stream else judge_llm
    answer = reply.completion(messages).message
    return _verdict("\n".join(c.text for c in answer.content if isinstance(c, TextContent)))


def _verdict(raw: str) -> GoalVerdict:
    data: Any = None
    block = re.search(r"\{.*\}", raw, re.DOTALL)
    for candidate in (raw, block.group(0) if block else None):
        if data is None and candidate:
            with contextlib.suppress(json.JSONDecodeError):
                data = json.loads(candidate)
    if not isinstance(data, dict):
        return GoalVerdict(
            score=0.0, complete=False, missing="The review's answer could not be read."
        )
    try:
        score = min(1.0, max(0.0, float(data.get("score", 0.0))))
    except (TypeError, ValueError):
        score = 0.0
    return GoalVerdict(
        score=score,
        complete=bool(data.get("complete", score >= 1.0)),
        missing=str(data.get("missing") or ""),
    )


class GoalController:
    """Decides after each run whether to continue (and with what message) or stop."""

    def __init__(self, objective: str, judge_llm: LLM, *, max_iterations: int = 10) -> None:
        if not objective.strip():
            raise ValueError("the goal's objective is empty")
        if max_iterations < 1:
            raise ValueError("max_iterations must be at least 1")
        self.objective, self.judge_llm, self.max_iterations = objective, judge_llm, max_iterations
        self.iteration = 0

    def start(self) -> str:
        return self.objective

    def on_run_finished(self, events: Sequence[Event]) -> GoalContinue | GoalDone:
        verdict = judge_goal(self.judge_llm, self.objective, events)
        self.iteration += 1
        if verdict.complete or self.iteration >= self.max_iterations:
            status: Literal["complete", "capped"] = "complete" if verdict.complete else "capped"
            return GoalDone(
                outcome=GoalOutcome(status=status, iterations=self.iteration, verdict=verdict)
            )
        missing = verdict.missing or "the review could not confirm every requirement."
        return GoalContinue(
            followup=FOLLOWUP.format(iteration=self.iteration, missing=missing), verdict=verdict
        )


def run_goal(
    conversation: BaseConversation, objective: str, judge_llm: LLM, *, max_iterations: int = 10
) -> GoalOutcome:
    """Run ``conversation`` toward ``objective`` until the judge finds it complete or the
    rounds are used up.
    """
    controller = GoalController(objective, judge_llm, max_iterations=max_iterations)
    conversation.send_message(controller.start())
    while True:
        conversation.run()
        step = controller.on_run_finished(list(getattr(conversation.state, "events", [])))
        if isinstance(step, GoalDone):
            return step.outcome
        conversation.send_message(step.followup)
