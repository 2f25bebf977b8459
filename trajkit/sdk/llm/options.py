"""Which request parameters an `LLM` sends, by model: the SDK's model-feature rules.

Written from the requests openhands-sdk 1.58.2 sends (recorded in ``tests/sdk/parity``):

- **Output limit**: ``max_output_tokens`` when set; else 64000 for Claude Sonnet 4.x / 3.7
  and Kimi K2 thinking; else the model's ``max_output_tokens`` from litellm's model map,
  halved when it reaches the context window and capped at 16384 when a custom ``base_url``
  is used (the map can exceed what a gateway allows); else the map's ``max_tokens`` capped at
  16384; ``o3`` models at most 100000. Chat sends it as ``max_completion_tokens`` (also
  ``max_tokens`` for manual-thinking Claude models, ``max_tokens`` alone on Azure), the
  Responses API as ``max_output_tokens``.
- **Sampling**: chat drops ``temperature``/``top_p``/``top_k`` when the model takes a
  reasoning effort (litellm lists ``reasoning_effort`` for every OpenAI model, so gpt-4o loses
  them too) unless ``capability_overrides["supports_sampling_params"]`` is true; Gemini keeps
  them. The Responses API keeps ``temperature`` unless sampling is declared unsupported.
- **Prompt cache**: ``prompt_cache_key`` (the conversation id) where litellm lists the
  parameter; ``prompt_cache_retention`` for gpt-5 / gpt-4.1 models but not their minis, nor
  Azure; the ``x-litellm-session-id`` header always carries the conversation id.

`call_context` is how a conversation tells its LLMs whose calls they make.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trajkit.sdk.llm._litellm import import_litellm

if TYPE_CHECKING:
    from trajkit.sdk.llm.llm import LLM

__all__ = ["CallContext", "call_context", "current_call_context", "effective_max_output_tokens"]

OUTPUT_CAP = 16384
"""Default output-token cap for models behind a custom base URL."""
_LONG_OUTPUT_MODELS = ("claude-3-7-sonnet", "claude-sonnet-4", "kimi-k2-thinking")
_MANUAL_THINKING = ("claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5")
_RETENTION_RULES = ("gpt-5", "gpt-4.1", "!mini", "gpt-5.1-codex-mini", "!azure/")


@dataclass(frozen=True)
class CallContext:
    """Who is calling: the conversation id (cache shard and session header)."""

    session_id: str
    prompt_cache_key: str


_CONTEXT: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar(
    "trajkit_llm_call_context", default=None
)


@contextlib.contextmanager
def call_context(conversation_id: str, prompt_cache_key: str | None = None) -> Iterator[None]:
    """LLM calls made inside this block belong to ``conversation_id``."""
    token = _CONTEXT.set(CallContext(conversation_id, prompt_cache_key or conversation_id))
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def current_call_context() -> CallContext | None:
    """The enclosing `call_context`, if any."""
    return _CONTEXT.get()


def _matches(model: str, patterns: tuple[str, ...]) -> bool:
    raw = model.lower()
    return any(p in raw for p in patterns)


def _ordered_rules(model: str, rules: tuple[str, ...]) -> bool:
    raw, decided = model.lower(), False
    for rule in rules:
        core = rule.lstrip("!")
        if core in raw:
            decided = not rule.startswith("!")
    return decided


def effective_max_output_tokens(llm: LLM, info: dict[str, Any]) -> int | None:
    """The output-token limit sent with each request (see the module docstring)."""
    if llm.max_output_tokens is not None:
        return llm.max_output_tokens
    limit: int | None = None
    if _matches(llm.model, _LONG_OUTPUT_MODELS):
        limit = 64000
    elif isinstance(info.get("max_output_tokens"), int):
        limit = int(info["max_output_tokens"])
        window = llm.max_input_tokens or info.get("max_input_tokens") or info.get("max_tokens")
        if isinstance(window, int) and limit >= window:
            limit //= 2
        if llm.base_url and not llm.model.startswith("litellm_proxy/") and limit > OUTPUT_CAP:
            limit = OUTPUT_CAP
    elif isinstance(info.get("max_tokens"), int):
        limit = min(int(info["max_tokens"]), OUTPUT_CAP)
    if "o3" in llm.model and (limit is None or limit > 100000):
        limit = 100000
    return limit


def _override(llm: LLM, key: str) -> bool | None:
    value = llm.capability_overrides.get(key)
    return value if isinstance(value, bool) else None


def _supported_params(llm: LLM) -> set[str]:
    litellm = import_litellm()
    for name in (llm.model_canonical_name, llm.model):
        if not name:
            continue
        try:
            params = litellm.get_supported_openai_params(model=name)
        except Exception:  # an unknown provider
            params = None
        if params:
            return set(params)
    return set()


def takes_reasoning_effort(llm: LLM, info: dict[str, Any]) -> bool:
    """The SDK's "supports reasoning effort" feature (override, model map, litellm params)."""
    override = _override(llm, "supports_reasoning_effort")
    if override is not None:
        return override
    if isinstance(info.get("supports_reasoning"), bool):
        return bool(info["supports_reasoning"])
    return "reasoning_effort" in _supported_params(llm)


def _sampling_supported(llm: LLM, info: dict[str, Any]) -> bool | None:
    override = _override(llm, "supports_sampling_params")
    if override is not None:
        return override
    value = info.get("supports_sampling_params")
    return value if isinstance(value, bool) else None


def manual_thinking(llm: LLM) -> bool:
    """Claude models whose thinking budget is set by hand (they also get ``max_tokens``)."""
    return _matches(llm.model, _MANUAL_THINKING)


def apply_chat_options(llm: LLM, kwargs: dict[str, Any], info: dict[str, Any]) -> None:
    """Add the chat request's sampling, limit and cache parameters to ``kwargs``."""
    for key, value in (
        ("top_k", llm.top_k),
        ("top_p", llm.top_p),
        ("temperature", llm.temperature),
    ):
        if value is not None:
            kwargs[key] = value
    limit = effective_max_output_tokens(llm, info)
    if limit is not None:
        kwargs["max_tokens" if llm.model.startswith("azure") else "max_completion_tokens"] = limit
    sampling = _sampling_supported(llm, info)
    drop = sampling is False or (
        sampling is None and takes_reasoning_effort(llm, info) and "gemini" not in llm.model.lower()
    )
    if manual_thinking(llm):
        drop = True
        if limit is not None:
            kwargs["max_tokens"] = limit
    if drop:
        for key in ("temperature", "top_p", "top_k"):
            kwargs.pop(key, None)
    _apply_cache(llm, kwargs)


def apply_responses_options(llm: LLM, kwargs: dict[str, Any], info: dict[str, Any]) -> None:
    """Add the Responses request's limit, sampling and cache parameters to ``kwargs``."""
    limit = effective_max_output_tokens(llm, info)
    if limit is not None:
        kwargs["max_output_tokens"] = limit
    if llm.temperature is not None and _sampling_supported(llm, info) is not False:
        kwargs["temperature"] = llm.temperature
    if llm.enable_encrypted_reasoning and takes_reasoning_effort(llm, info):
        kwargs["include"] = ["reasoning.encrypted_content"]
    _apply_cache(llm, kwargs)


def _apply_cache(llm: LLM, kwargs: dict[str, Any]) -> None:
    retention = _override(llm, "supports_prompt_cache_retention")
    if retention is None:
        retention = _ordered_rules(llm.model, _RETENTION_RULES)
    if retention and llm.prompt_cache_retention:
        kwargs["prompt_cache_retention"] = llm.prompt_cache_retention
    context = current_call_context()
    if context is None:
        return
    takes_key = _override(llm, "supports_prompt_cache_key")
    if takes_key is None:
        takes_key = "prompt_cache_key" in _supported_params(llm)
    if takes_key:
        kwargs["prompt_cache_key"] = context.prompt_cache_key
    headers = dict(kwargs.get("extra_headers") or {})
    headers["x-litellm-session-id"] = context.session_id
    kwargs["extra_headers"] = headers
