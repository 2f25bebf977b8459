"""file_editor ``view`` of an image returns the image, as openhands-tools does."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import convert_conversation
from trajkit.events import FileEditorAction, ImageContent, TextContent
from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.tool import ToolContext
from trajkit.tools.file_editor import FileEditorTool


def png(width: int = 2, height: int = 1) -> bytes:
    """A real PNG (RGB, one red row)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def test_view_image_returns_image_content(tmp_path: Path) -> None:
    image = tmp_path / "shot.PNG"
    image.write_bytes(png())
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0jpeg-bytes")
    tool = FileEditorTool(ToolContext(str(tmp_path)))
    obs = tool(FileEditorAction(command="view", path=str(image)))
    assert not obs.is_error and obs.command == "view" and obs.path == str(image)
    text, picture = obs.content
    assert isinstance(text, TextContent) and isinstance(picture, ImageContent)
    assert text.text == f"Image file {image} read successfully. Displaying image content."
    url = picture.image_urls[0]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png()
    jpg = tool(FileEditorAction(command="view", path=str(tmp_path / "photo.jpg")))
    assert jpg.content[1].image_urls[0].startswith("data:image/jpeg;base64,")
    # the stored shape is the SDK's: text item, then image item
    dumped = obs.model_dump(mode="json", exclude_none=True)
    assert [c["type"] for c in dumped["content"]] == ["text", "image"]
    # text files are unchanged
    (tmp_path / "a.txt").write_text("x\n")
    plain = tool(FileEditorAction(command="view", path=str(tmp_path / "a.txt")))
    assert len(plain.content) == 1 and "     1\tx" in plain.text


def test_image_reaches_the_model_and_converts(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "chart.png").write_bytes(png())
    llm_server.enqueue_tool_call("file_editor", {"command": "view", "path": f"{ws}/chart.png"})
    llm_server.enqueue_text("a red line")
    agent = Agent(llm=make_llm(llm_server), tools=[Tool(name="file_editor")])
    conv = Conversation(agent=agent, workspace=ws, persistence_dir=tmp_path / "c")
    conv.send_message("what is in chart.png?")
    conv.run()
    body = llm_server.bodies("chat")[1]
    sent = str(body["messages"])
    assert base64.b64encode(png()).decode() in sent  # gpt-4o takes images
    converted = convert_conversation(Path(conv.state.persistence_dir), to="chat")
    # system, user, assistant call and tool result are what was sent; the image then follows
    # in a user message (litellm moves tool-result images there with its own label text)
    assert converted["messages"][:4] == body["messages"][:4]
    assert body["messages"][4]["role"] == converted["messages"][4]["role"] == "user"
    assert body["messages"][4]["content"][1] == converted["messages"][4]["content"][1]
