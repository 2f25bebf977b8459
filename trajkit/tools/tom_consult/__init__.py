"""The user-model tools: ``tom_consult`` and ``sleeptime_compute``."""

from trajkit.tools.tom_consult.definition import (
    ConsultTomAction,
    ConsultTomObservation,
    SleeptimeComputeAction,
    SleeptimeComputeObservation,
    SleeptimeComputeTool,
    TomConsultTool,
)

__all__ = [
    "ConsultTomAction",
    "ConsultTomObservation",
    "SleeptimeComputeAction",
    "SleeptimeComputeObservation",
    "SleeptimeComputeTool",
    "TomConsultTool",
]
