"""The planning agent (``get_planning_agent``): reads the code with ``glob``, ``grep`` and the
planning file editor and writes a plan to ``.agents_tmp/PLAN.md`` for an agent that will carry
it out; its condenser keeps more context (100 events, the first 6).
"""

from __future__ import annotations

from trajkit.sdk.agent import Agent
from trajkit.sdk.context.condenser import LLMSummarizingCondenser
from trajkit.sdk.context.skills import AgentContext
from trajkit.sdk.llm import LLM
from trajkit.sdk.tool import Tool

__all__ = [
    "PLAN_STRUCTURE",
    "format_plan_structure",
    "get_plan_headers",
    "get_planning_agent",
    "get_planning_tools",
]

PLAN_STRUCTURE: list[tuple[str, str]] = [
    ("GOAL", "What the change achieves, in one or two sentences."),
    ("WHAT EXISTS", "The files, modules and data involved, and the constraints they impose."),
    ("APPROACH", "The chosen design and, briefly, why it beats the alternatives."),
    ("STEPS", "Numbered steps, each with what it does, how, and which files it touches."),
    ("CHECKS", "How to tell it works: the tests to run and the results to expect."),
]
"""The plan's sections and what each holds."""


def format_plan_structure() -> str:
    """The sections as instructions for the planning agent."""
    lines = [f"{i}. {title}: {what}" for i, (title, what) in enumerate(PLAN_STRUCTURE, 1)]
    return "Write the plan in these sections, in this order:\n" + "\n".join(lines)


def get_plan_headers() -> str:
    """A new PLAN.md: one Markdown header per section."""
    return "\n".join(f"# {i}. {title}\n" for i, (title, _) in enumerate(PLAN_STRUCTURE, 1))


def get_planning_tools(plan_path: str | None = None) -> list[Tool]:
    """``glob``, ``grep`` and ``planning_file_editor`` (with ``plan_path`` when given)."""
    params = {"plan_path": plan_path} if plan_path else {}
    return [Tool(name="glob"), Tool(name="grep"), Tool(name="planning_file_editor", params=params)]


def get_planning_agent(llm: LLM) -> Agent:
    """An agent that studies the code and writes a plan, changing nothing else."""
    guide = (
        "You plan; you do not implement. Study the code with glob, grep and the planning file "
        "editor's view command, then write the plan into PLAN.md with the planning file "
        "editor, and finish.\n\n" + format_plan_structure()
    )
    return Agent(
        llm=llm,
        tools=get_planning_tools(),
        agent_context=AgentContext(system_message_suffix=guide),
        condenser=LLMSummarizingCondenser(
            llm=llm.model_copy(update={"usage_id": "planning_condenser"}),
            max_size=100,
            keep_first=6,
        ),
    )
