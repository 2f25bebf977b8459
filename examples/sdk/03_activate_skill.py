"""Skills: a keyword-triggered skill is added to the message that mentions it."""

import os

from _common import make_llm

from trajkit.sdk import Agent, AgentContext, Conversation
from trajkit.sdk.context import KeywordTrigger, Skill

context = AgentContext(
    skills=[
        Skill(name="flarglebargle", content="Answer flarglebargle with 'magic'.",
              trigger=KeywordTrigger(keywords=["flarglebargle"])),
        Skill(name="style", content="Be brief.", trigger=None),
    ]
)  # fmt: skip
conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[], agent_context=context),
    workspace=os.getcwd(),
    visualizer=None,
)
conversation.send_message("flarglebargle!")
conversation.run()
print(f"Activated: {conversation.state.activated_knowledge_skills}")
