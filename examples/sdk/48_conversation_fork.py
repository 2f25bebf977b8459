"""Fork: explore an alternative from the same history without touching the original."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation

source = Conversation(
    agent=Agent(llm=make_llm(), tools=[]),
    workspace=os.getcwd(),
    persistence_dir="./.conversations",
    visualizer=None,
)
source.send_message("Suggest a name for a cat.")
source.run()
fork = source.fork()
fork.send_message("Now one for a dog.")
fork.run()
print(f"Source events: {len(source.state.events)}, fork events: {len(fork.state.events)}")
print(f"Different ids: {fork.id != source.id}")
