"""Shared set-up of the SDK-style examples: the LLM from LLM_MODEL / LLM_API_KEY / LLM_BASE_URL."""

import os

from pydantic import SecretStr

from trajkit.sdk import LLM


def make_llm(usage_id: str = "agent", **kw: object) -> LLM:
    api_key = os.getenv("LLM_API_KEY")
    assert api_key is not None, "LLM_API_KEY environment variable is not set."
    return LLM(
        usage_id=usage_id,
        model=os.getenv("LLM_MODEL", "openai/gpt-4o"),
        base_url=os.getenv("LLM_BASE_URL"),
        api_key=SecretStr(api_key),
        **kw,  # type: ignore[arg-type]
    )
