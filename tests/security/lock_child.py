"""Child process for the writer-lock tests: opens a Conversation on an id and holds it.

argv: persistence_dir conversation_id ready_file. Writes its pid to ready_file once the
Conversation is open, then sleeps until killed."""

from __future__ import annotations

import os
import sys
import time

from trajkit.sdk import LLM, Agent, Conversation


def main() -> None:
    persist, cid, ready = sys.argv[1:4]
    agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
    conv = Conversation(
        agent=agent, workspace=persist + "-ws", persistence_dir=persist, conversation_id=cid
    )
    conv.send_message("held by the child")
    with open(ready + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(ready + ".tmp", ready)
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
