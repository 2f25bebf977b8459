"""Browser tools (the SDK's ``browser_use``), run on a system Chromium when one is installed."""

from trajkit.tools.browser_use.definition import BROWSER_TOOLS, BrowserObservation, BrowserToolSet
from trajkit.tools.browser_use.impl import BrowserExecutor, find_chromium

__all__ = [
    "BROWSER_TOOLS",
    "BrowserExecutor",
    "BrowserObservation",
    "BrowserToolSet",
    "find_chromium",
]
