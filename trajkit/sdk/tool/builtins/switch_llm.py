"""``switch_llm``: the agent moves its own conversation to a saved LLM profile
(`trajkit.sdk.llm.LLMProfileStore`), from the next model call on; ``include_default_tools``
names it ``SwitchLLMTool``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from trajkit.sdk.tool.registry import register_tool
from trajkit.sdk.tool.schema import Action, Observation
from trajkit.sdk.tool.tool import RuntimeTool, ToolContext, ToolDefinition, ToolExecutor

__all__ = ["SwitchLLMAction", "SwitchLLMObservation", "SwitchLLMTool"]

DESCRIPTION = """Moves this conversation to another saved LLM profile. The switch applies from the next model call; this call finishes on the current model.

Saved profiles:
{profiles}

Give `profile_name` exactly as listed, and in `reason` why that model suits the next step better."""


class SwitchLLMAction(Action):
    profile_name: str = Field(description="The saved profile to use from now on.")
    reason: str = Field(description="Why this profile suits the next step better.")


class SwitchLLMObservation(Observation):
    profile_name: str
    reason: str | None = None
    active_model: str | None = None
    """The model the conversation uses after the switch."""


class _Switch(ToolExecutor[SwitchLLMAction, SwitchLLMObservation]):
    def __call__(self, action: SwitchLLMAction, conversation: Any = None) -> Any:
        fields: dict[str, Any] = {"profile_name": action.profile_name, "reason": action.reason}
        if conversation is None:
            return SwitchLLMObservation.from_text(
                "There is no conversation to switch.", is_error=True, **fields
            )
        try:
            conversation.switch_profile(action.profile_name)
        except FileNotFoundError:
            return SwitchLLMObservation.from_text(
                f"There is no LLM profile '{action.profile_name}'.", is_error=True, **fields
            )
        except Exception as e:  # noqa: BLE001 (the agent reads why)
            return SwitchLLMObservation.from_text(
                f"Could not switch to '{action.profile_name}': {e}", is_error=True, **fields
            )
        model = conversation.agent.llm.model
        return SwitchLLMObservation.from_text(
            # the SDK's result format, which the model reads (as the file editor's)
            f"Switched LLM profile to '{action.profile_name}' with active model '{model}'. "
            f"Reason: {action.reason} Future agent steps will use this profile.",
            active_model=model,
            **fields,
        )


@register_tool
class SwitchLLMTool(ToolDefinition[SwitchLLMAction, SwitchLLMObservation]):
    """Switches the conversation's LLM to a saved profile."""

    name = "switch_llm"

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        from trajkit.sdk.llm import LLMProfileStore

        names = sorted(
            n.removesuffix(".json") for n in LLMProfileStore(params.get("profile_store_dir")).list()
        )
        profiles = "\n".join(f"- {n}" for n in names) or "- (none saved)"
        return [
            cls(
                description=DESCRIPTION.format(profiles=profiles),
                action_type=SwitchLLMAction,
                observation_type=SwitchLLMObservation,
                annotations={"title": "switch_llm", "readOnlyHint": False, "destructiveHint": False,
                             "idempotentHint": False, "openWorldHint": False},
                executor=_Switch(),
            )
        ]  # fmt: skip
