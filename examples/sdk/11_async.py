"""Async: two conversations driven from one event loop, their events handled by a coroutine."""

import asyncio
import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Event, LLMConvertibleEvent, Tool
from trajkit.sdk.conversation.types import ConversationCallbackType
from trajkit.sdk.utils.async_utils import AsyncCallbackWrapper
from trajkit.tools.terminal import TerminalTool

seen: list[str] = []


async def on_event(event: Event) -> None:
    if isinstance(event, LLMConvertibleEvent):
        seen.append(type(event).__name__)


async def main() -> None:
    loop = asyncio.get_running_loop()
    callback: ConversationCallbackType = AsyncCallbackWrapper(on_event, loop=loop)
    conversations = [
        Conversation(
            agent=Agent(llm=make_llm(), tools=[Tool(name=TerminalTool.name)]),
            callbacks=[callback],
            workspace=os.getcwd(),
            visualizer=None,
        )
        for _ in range(2)
    ]
    for i, conversation in enumerate(conversations):
        conversation.send_message(f"Task {i}: say hello.")
    # run() blocks, so each runs in the loop's executor while the loop serves the callbacks
    await asyncio.gather(*(loop.run_in_executor(None, c.run) for c in conversations))
    callback.wait_for_pending(timeout=10)
    statuses = [c.state.execution_status.value for c in conversations]
    print(f"Statuses: {statuses}")
    print(f"Events seen by the async callback: {len(seen)}")


asyncio.run(main())
