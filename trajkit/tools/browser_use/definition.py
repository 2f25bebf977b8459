"""Browser tools with the SDK's names and parameters (``browser_navigate``, ``browser_click``,
... offered together by ``BrowserToolSet``), run by `trajkit.tools.browser_use.impl`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from trajkit.sdk.tool import (
    Action,
    Observation,
    RuntimeTool,
    ToolContext,
    ToolDefinition,
    register_tool,
)
from trajkit.tools.browser_use.impl import BrowserExecutor, BrowserObservation

__all__ = ["BROWSER_TOOLS", "BrowserObservation", "BrowserToolSet"]


class BrowserNavigateAction(Action):
    url: str = Field(description="The address to open (http, https or file).")
    new_tab: bool = Field(default=False, description="Open it in a new tab.")


class BrowserClickAction(Action):
    index: int = Field(ge=0, description="The number of the element, from browser_get_state.")
    new_tab: bool = Field(default=False, description="Open the link in a new tab.")


class BrowserGetStateAction(Action):
    include_screenshot: bool = Field(default=False, description="Also return a screenshot.")


class BrowserGetContentAction(Action):
    extract_links: bool = Field(default=False, description="List the page's links after its text.")
    start_from_char: int = Field(
        default=0, ge=0, description="Skip this many characters of the text."
    )


class BrowserTypeAction(Action):
    index: int = Field(ge=0, description="The number of the input field, from browser_get_state.")
    text: str = Field(description="The text to type.")


class BrowserScrollAction(Action):
    direction: Literal["up", "down"] = Field(default="down", description="Which way to scroll.")


class BrowserGoBackAction(Action):
    pass


class BrowserListTabsAction(Action):
    pass


class BrowserSwitchTabAction(Action):
    tab_id: str = Field(description="The tab's id, from browser_list_tabs.")


class BrowserCloseTabAction(Action):
    tab_id: str = Field(description="The tab's id, from browser_list_tabs.")


class BrowserGetStorageAction(Action):
    pass


class BrowserSetStorageAction(Action):
    storage_state: dict[str, Any] = Field(
        description="Cookies and local storage, as browser_get_storage gives them."
    )


class BrowserStartRecordingAction(Action):
    pass


class BrowserStopRecordingAction(Action):
    pass


BROWSER_TOOLS: list[tuple[str, type[Action], bool, str]] = [
    ("BrowserNavigateTool", BrowserNavigateAction, False, "Opens a web page and returns its text."),
    (
        "BrowserClickTool",
        BrowserClickAction,
        False,
        "Clicks an element of the page, by its number.",
    ),
    (
        "BrowserGetStateTool",
        BrowserGetStateAction,
        True,
        "Returns the page's address, title and numbered elements.",
    ),
    (
        "BrowserGetContentTool",
        BrowserGetContentAction,
        True,
        "Returns the page's text (and links).",
    ),
    ("BrowserTypeTool", BrowserTypeAction, False, "Types text into an input field, by its number."),
    ("BrowserScrollTool", BrowserScrollAction, False, "Scrolls the page up or down."),
    ("BrowserGoBackTool", BrowserGoBackAction, False, "Goes back to the previous page."),
    ("BrowserListTabsTool", BrowserListTabsAction, True, "Lists the open tabs."),
    ("BrowserSwitchTabTool", BrowserSwitchTabAction, False, "Makes another tab the current one."),
    ("BrowserCloseTabTool", BrowserCloseTabAction, False, "Closes a tab."),
    (
        "BrowserGetStorageTool",
        BrowserGetStorageAction,
        True,
        "Returns the cookies and local storage.",
    ),
    ("BrowserSetStorageTool", BrowserSetStorageAction, False, "Sets cookies and local storage."),
    (
        "BrowserStartRecordingTool",
        BrowserStartRecordingAction,
        False,
        "Starts recording the session.",
    ),
    ("BrowserStopRecordingTool", BrowserStopRecordingAction, False, "Stops recording the session."),
]
"""Tool class name, action, read-only, description; in the order the SDK offers them."""

_CLASSES: dict[str, type[ToolDefinition[Any, Any]]] = {
    name: type(name, (ToolDefinition,), {"__module__": __name__}) for name, *_ in BROWSER_TOOLS
}
globals().update(_CLASSES)


@register_tool
class BrowserToolSet(ToolDefinition[Action, Observation]):
    """``Tool(name=BrowserToolSet.name)``: the browser tools, sharing one browser."""

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        executor = BrowserExecutor(**params)
        return [
            _CLASSES[name](
                description=description,
                action_type=action,
                observation_type=BrowserObservation,
                annotations={
                    "title": _CLASSES[name].name,
                    "readOnlyHint": read_only,
                    "destructiveHint": False,
                    "idempotentHint": False,
                    "openWorldHint": True,
                },
                executor=executor,
            )  # fmt: skip
            for name, action, read_only, description in BROWSER_TOOLS
        ]
