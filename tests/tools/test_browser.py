"""Browser tools (issue 27): offered with the SDK's names and parameters; run on the system
Chromium when there is one (a real headless browser on a local page), else an error observation."""

from __future__ import annotations

import pytest

from trajkit.sdk.tool import ToolContext, resolve_tool
from trajkit.tools.browser_use import BrowserExecutor, find_chromium

SDK_PARAMETERS = {  # openhands-tools 1.58.2, as the examples' recordings list them
    "browser_navigate": ["new_tab", "security_risk", "summary", "url"],
    "browser_click": ["index", "new_tab", "security_risk", "summary"],
    "browser_get_state": ["include_screenshot", "summary"],
    "browser_get_content": ["extract_links", "start_from_char", "summary"],
    "browser_type": ["index", "security_risk", "summary", "text"],
    "browser_scroll": ["direction", "security_risk", "summary"],
    "browser_go_back": ["security_risk", "summary"],
    "browser_list_tabs": ["summary"],
    "browser_switch_tab": ["security_risk", "summary", "tab_id"],
    "browser_close_tab": ["security_risk", "summary", "tab_id"],
    "browser_get_storage": ["summary"],
    "browser_set_storage": ["security_risk", "storage_state", "summary"],
    "browser_start_recording": ["security_risk", "summary"],
    "browser_stop_recording": ["security_risk", "summary"],
}


def _tools(tmp_path):
    from trajkit.sdk import Tool

    return {
        t.name: t
        for t in resolve_tool(Tool(name="browser_tool_set"), ToolContext(working_dir=str(tmp_path)))
    }


def test_offered_as_the_sdk_offers_them(tmp_path):
    tools = _tools(tmp_path)
    assert {
        n: sorted(t.parameters_schema()["properties"]) for n, t in tools.items()
    } == SDK_PARAMETERS
    assert list(tools) == list(SDK_PARAMETERS)
    assert tools["browser_navigate"].kind == "BrowserNavigateTool"


def test_without_chromium_every_call_is_a_clear_error(tmp_path):
    tool = _tools(tmp_path)["browser_navigate"]
    tool.executor.chromium = None
    obs = tool.execute(tool.action_from_arguments({"url": "https://example.com"}))
    assert obs.is_error and "No Chromium" in obs.text


@pytest.mark.skipif(find_chromium() is None, reason="no Chromium on this machine")
def test_a_real_chromium_reads_a_page_and_follows_a_link(tmp_path):
    (tmp_path / "b.html").write_text(
        "<html><head><title>B</title></head><body><p>second page</p></body></html>"
    )
    (tmp_path / "a.html").write_text(
        "<html><head><title>A</title><script>document.write('<p>made by script</p>')</script></head>"
        "<body><p>first page</p><a href='b.html'>to b</a><input name='q'></body></html>"
    )
    tools = _tools(tmp_path)

    def call(name, **args):
        tool = tools[name]
        return tool.execute(tool.action_from_arguments(args))

    opened = call("browser_navigate", url=(tmp_path / "a.html").as_uri())
    assert not opened.is_error, opened.text
    assert "first page" in opened.text and "made by script" in opened.text  # scripts ran
    state = call("browser_get_state").text
    assert "Title: A" in state and "[0] <a> to b" in state and "<input> q" in state
    assert "second page" in call("browser_click", index=0).text
    assert "Back to" in call("browser_go_back").text
    typed = call("browser_type", index=1, text="x")
    assert typed.is_error and "page kept open" in typed.text
    assert "tab_0 (current)" in call("browser_list_tabs").text
    assert isinstance(tools["browser_navigate"].executor, BrowserExecutor)
