"""The ``workflow`` tool: the model writes a short Python script that hands parts of a job to
registered sub-agents (`trajkit.sdk.subagent`), in parallel, and combines their answers.
"""

from trajkit.tools.workflow.definition import (
    WorkflowAction,
    WorkflowExecutor,
    WorkflowObservation,
    WorkflowTool,
    WorkflowToolSet,
)
from trajkit.tools.workflow.impl import WorkflowContext, WorkflowScriptError

__all__ = [
    "WorkflowAction",
    "WorkflowContext",
    "WorkflowExecutor",
    "WorkflowObservation",
    "WorkflowScriptError",
    "WorkflowTool",
    "WorkflowToolSet",
]
