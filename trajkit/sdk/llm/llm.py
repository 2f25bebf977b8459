"""``LLM``: the model configuration the SDK persists (``agent.llm``) and calls through litellm.

The field names, defaults and key order are the SDK's (v1-format section 5), so a dump is what
``base_state.json`` holds: ``api_key`` and the AWS secrets are written as ``"**********"``
unless the dump context says ``expose_secrets``; a masked or empty value loads as None.

Calls go through litellm, imported inside the methods that need it (``trajkit.sdk`` stays cheap
to import, and the toolkit never loads it). ``LITELLM_LOCAL_MODEL_COST_MAP`` is set first so
litellm reads its bundled cost map instead of fetching one. Chat Completions or the Responses
API is chosen by `LLM.uses_responses_api`; the request's messages are formatted by
`trajkit.convert`, the same functions the toolkit's ``convert`` uses, so a conversation on disk
converts to exactly what was sent. Rate limits, timeouts, connection errors and 5xx answers are
retried with exponential backoff (``num_retries`` counts all attempts, as in the SDK);
everything else is raised at once as `LLMError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    SerializationInfo,
    ValidationInfo,
    computed_field,
    field_serializer,
    field_validator,
)

from trajkit.events import (
    Message,
    MessageToolCall,
    ReasoningItemModel,
    RedactedThinkingBlock,
    TextContent,
    ThinkingBlock,
)
from trajkit.sdk.llm._litellm import import_litellm
from trajkit.sdk.llm.exceptions import LLMError, LLMNoResponseError, llm_error_class
from trajkit.sdk.llm.fallback_strategy import FallbackStrategy
from trajkit.sdk.llm.options import apply_chat_options, apply_responses_options
from trajkit.sdk.llm.streaming import TokenCallbackType, current_token_callbacks
from trajkit.sdk.metrics import Metrics, TokenUsage

if TYPE_CHECKING:
    from trajkit.convert.options import FormatOptions
    from trajkit.sdk.tool import RuntimeTool

__all__ = ["LLM", "LLMError", "LLMResponse", "llm_secret_values"]

_SECRET_FIELDS = ("api_key", "aws_access_key_id", "aws_secret_access_key", "aws_session_token")
OPENHANDS_PROXY_URL = "https://llm-proxy.app.all-hands.dev"
"""Where an ``openhands/<model>`` goes when no ``base_url`` is given."""


@dataclass
class LLMResponse:
    """One model answer as a `Message`, with the provider's response id."""

    message: Message
    id: str
    raw: Any = None


def llm_secret_values(llm: Any) -> list[str]:
    """The clear values of an LLM's credential fields (``api_key``, the AWS secrets): each is a
    secret by value, whatever it looks like, and is masked wherever it would be written.
    """
    out: list[str] = []
    for name in _SECRET_FIELDS:
        value = getattr(llm, name, None)
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(text, str) and text.strip():
            out.append(text)
    return out


class LLM(BaseModel):
    """A language model reached through litellm (``provider/model`` names)."""

    model_config = ConfigDict(
        extra="ignore", use_attribute_docstrings=True, validate_assignment=True
    )

    model: str = Field(default="gpt-5.5", min_length=1)
    """litellm model name, ``provider/model`` (e.g. ``openai/gpt-4o``)."""
    api_key: SecretStr | None = None
    """Provider key; written masked (``**********``) or encrypted, never in clear."""
    provider_connection_id: str | None = None
    """Provider connection reference."""
    auth_type: Literal["api_key", "subscription"] = "api_key"
    """How the provider is authenticated."""
    subscription_vendor: Literal["openai"] | None = None
    """Subscription vendor, in subscription mode."""
    base_url: str | None = None
    """Provider base URL (OpenAI-compatible servers end in ``/v1``)."""
    api_version: str | None = None
    """API version (Azure)."""
    aws_access_key_id: SecretStr | None = None
    """AWS key id (secret)."""
    aws_secret_access_key: SecretStr | None = None
    """AWS secret key (secret)."""
    aws_session_token: SecretStr | None = None
    """AWS session token (secret)."""
    aws_region_name: str | None = None
    """AWS region."""
    aws_profile_name: str | None = None
    """AWS profile."""
    aws_role_name: str | None = None
    """AWS role."""
    aws_session_name: str | None = None
    """AWS session name."""
    aws_bedrock_runtime_endpoint: str | None = None
    """Bedrock endpoint."""
    openrouter_site_url: str = "https://docs.all-hands.dev/"
    """OpenRouter site header."""
    openrouter_app_name: str = "OpenHands"
    """OpenRouter app header."""
    num_retries: int = Field(default=5, ge=0)
    """Total attempts per call (the first one included; 0 and 1 both mean no retry)."""
    retry_multiplier: float = Field(default=8.0, ge=0)
    """Backoff multiplier (seconds)."""
    retry_min_wait: int = Field(default=8, ge=0)
    """Shortest wait between attempts (seconds)."""
    retry_max_wait: int = Field(default=64, ge=0)
    """Longest wait between attempts (seconds)."""
    timeout: int | None = 300
    """Request timeout (seconds)."""
    stream_idle_timeout: float | None = 300.0
    """Idle timeout while streaming (seconds)."""
    max_message_chars: int = 30000
    """Kept for compatibility; rendering does not use it."""
    temperature: float | None = Field(default=None, ge=0)
    """Sampling temperature."""
    top_p: float | None = Field(default=None, ge=0, le=1)
    """Nucleus sampling."""
    top_k: float | None = Field(default=None, ge=0)
    """Top-k sampling."""
    max_input_tokens: int | None = Field(default=None, ge=1)
    """Input token limit."""
    max_output_tokens: int | None = Field(default=None, ge=1)
    """Output token limit."""
    model_canonical_name: str | None = None
    """Name used to look up capabilities."""
    api_mode: Literal["auto", "chat", "responses"] = "auto"
    """Force Chat Completions or the Responses API."""
    capability_overrides: dict[str, bool | str] = Field(default_factory=dict)
    """Capability overrides (``supports_responses_api``, ``supports_vision``, ...)."""
    extra_headers: dict[str, str] | None = None
    """Extra HTTP headers."""
    input_cost_per_token: float | None = None
    """Custom input price (USD per token)."""
    output_cost_per_token: float | None = None
    """Custom output price (USD per token)."""
    ollama_base_url: str | None = None
    """Ollama base URL."""
    stream: bool = False
    """Streaming (not used by trajkit)."""
    drop_params: bool = True
    """Let litellm drop parameters a provider does not accept."""
    disable_vision: bool | None = None
    """Never send images."""
    disable_stop_word: bool = False
    """Do not send stop words."""
    caching_prompt: bool = True
    """Use explicit prompt caching where the provider supports it."""
    log_completions: bool = False
    """Log raw completions."""
    log_completions_folder: str = "logs/completions"
    """Where completions are logged."""
    custom_tokenizer: str | None = None
    """Tokenizer name."""
    native_tool_calling: bool = True
    """Use the provider's native function calling."""
    force_string_serializer: bool | None = None
    """Send content as one string (None: decided by the model name)."""
    inline_image_urls: bool | None = None
    """Inline image URLs as data URLs."""
    reasoning_effort: str | None = "high"
    """Reasoning effort for reasoning models."""
    reasoning_summary: Literal["auto", "concise", "detailed"] | None = None
    """Responses reasoning summary."""
    enable_encrypted_reasoning: bool = True
    """Ask for encrypted reasoning (Responses)."""
    prompt_cache_retention: str | None = "24h"
    """Prompt cache retention."""
    extended_thinking_budget: int | None = 200000
    """Anthropic thinking budget."""
    seed: int | None = None
    """Sampling seed."""
    usage_id: str = "default"
    """Key of this LLM's metrics in the conversation stats."""
    litellm_extra_body: dict[str, Any] = Field(default_factory=dict)
    """Extra request body fields."""
    fallback_strategy: FallbackStrategy | None = None
    """LLM profiles to try when this one fails for a transient reason."""

    _metrics: Metrics | None = PrivateAttr(default=None)
    _model_info: dict[str, Any] | None = PrivateAttr(default=None)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def is_subscription(self) -> bool:
        """Subscription (not API key) authentication."""
        return self.auth_type == "subscription"

    @field_validator(*_SECRET_FIELDS, mode="before")
    @classmethod
    def _unmask(cls, v: Any, info: ValidationInfo) -> Any:
        # A masked ("**********") or blank secret was lost on save: load it as None (SDK rule);
        # a Fernet token is decrypted with the context's cipher (sdk.secrets.Cipher).
        from trajkit.sdk.secret.secrets import load_secret

        raw = v.get_secret_value() if isinstance(v, SecretStr) else v
        if raw is None or not isinstance(raw, str):
            return v
        cipher = (info.context or {}).get("cipher") if isinstance(info.context, dict) else None
        return load_secret(raw, cipher)

    @field_serializer(*_SECRET_FIELDS, when_used="always")
    def _mask(self, v: SecretStr | None, info: SerializationInfo) -> str | None:
        if v is None:
            return None
        ctx = info.context if isinstance(info.context, dict) else {}
        if ctx.get("expose_secrets"):
            return v.get_secret_value()
        from trajkit.sdk.secret.secrets import dump_secret

        return dump_secret(v, ctx.get("cipher"))  # encrypted with a cipher, else masked

    # -- metrics ---------------------------------------------------------------------
    @property
    def metrics(self) -> Metrics:
        """Cost, token usage and latencies of every call (restored with the conversation)."""
        if self._metrics is None:
            self._metrics = Metrics(model_name=self.model)
        return self._metrics

    def restore_metrics(self, metrics: Metrics) -> None:
        """Adopt persisted metrics so accumulated cost keeps counting after a restore."""
        if self._metrics is None or not (self._metrics.token_usages or self._metrics.costs):
            self._metrics = metrics
        elif self._metrics is not metrics:
            self._metrics.merge(metrics)

    def copy_for(self, usage_id: str, **update: Any) -> LLM:
        """This configuration under another usage id, with metrics of its own (the LLM of a
        hook or sub-agent, whose usage is counted apart from this one's).
        """
        copy = self.model_copy(update={**update, "usage_id": usage_id})
        copy._metrics = None
        return copy

    def reset_metrics(self) -> None:
        """Count from zero in a metrics object of this LLM's own, as the SDK's method: a
        ``model_copy`` shares its source's metrics until then (the source keeps its count).
        """
        self._metrics = Metrics(model_name=self.model)

    def get_token_count(
        self, messages: Sequence[Message], tools: Sequence[Any] | None = None
    ) -> int:
        """Tokens ``messages`` take for this model (litellm's tokenizer for it, as sent), with
        ``tools`` (a ``SystemPromptEvent``'s tool definitions) counted as they are offered.
        """
        from trajkit.convert import tools_to_chat

        litellm = import_litellm()
        chat = self.format_messages_for_llm(messages)
        offered = tools_to_chat(list(tools)) if tools else None
        name = self.custom_tokenizer or self.model_canonical_name or self.model
        try:
            return int(litellm.token_counter(model=name, messages=chat, tools=offered))
        except Exception:  # a tokenizer litellm cannot load: count with its default one
            return int(litellm.token_counter(messages=chat, tools=offered))

    def is_caching_prompt_active(self) -> bool:
        """Whether requests mark cache breakpoints: ``caching_prompt`` and a model that takes
        explicit prompt caching (Claude models; ``capability_overrides["supports_prompt_cache"]``
        decides for others).
        """
        if not self.caching_prompt:
            return False
        override = self.capability_overrides.get("supports_prompt_cache")
        if isinstance(override, bool):
            return override
        if self._info().get("supports_prompt_caching") is False:
            return False
        return "claude" in self.model.lower() or self.model.startswith("anthropic/")

    # -- capabilities ----------------------------------------------------------------
    @property
    def effective_max_input_tokens(self) -> int | None:
        """The context window used at run time: ``max_input_tokens`` when set, else the
        model's as litellm's model information gives it (None when unknown).
        """
        if self.max_input_tokens:
            return self.max_input_tokens
        known = self._info().get("max_input_tokens")
        return known if isinstance(known, int) and known > 0 else None

    def _info(self) -> dict[str, Any]:
        if self._model_info is None:
            litellm = import_litellm()
            info: dict[str, Any] = {}
            for name in (self.model_canonical_name, self.model, self.model.split("/", 1)[-1]):
                if not name:
                    continue
                try:
                    info = dict(litellm.get_model_info(name))
                    break
                except Exception:  # unknown model: capabilities fall back to name rules
                    continue
            self._model_info = info
        return self._model_info

    def uses_responses_api(self) -> bool:
        """Whether calls use the Responses API (api_mode, override, litellm info, name rule)."""
        from trajkit.convert import uses_responses_api

        endpoints = None
        if self.api_mode == "auto" and not isinstance(
            self.capability_overrides.get("supports_responses_api"), bool
        ):
            endpoints = self._info().get("supported_endpoints")
        return uses_responses_api(
            self.model,
            api_mode=self.api_mode,
            capability_overrides=dict(self.capability_overrides),
            supported_endpoints=endpoints,
            model_canonical_name=self.model_canonical_name,
        )

    def vision_is_active(self) -> bool:
        if self.disable_vision:
            return False
        override = self.capability_overrides.get("supports_vision")
        if isinstance(override, bool):
            return override
        return bool(self._info().get("supports_vision", True))

    def _chat_options(self) -> FormatOptions:
        from trajkit.convert import FormatOptions

        config = self.model_dump(exclude_none=True)
        return FormatOptions.from_llm(config, vision=self.vision_is_active())

    # -- formatting (delegated to trajkit.convert) -----------------------------------
    def format_messages_for_llm(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        """Chat Completions ``messages`` for ``messages``, as they are sent."""
        from trajkit.convert import messages_to_chat

        return messages_to_chat(messages, self._chat_options())

    def format_messages_for_responses(
        self, messages: Sequence[Message]
    ) -> tuple[str | None, list[dict[str, Any]]]:
        """Responses ``(instructions, input)`` for ``messages``, as they are sent."""
        from trajkit.convert import messages_to_responses

        return messages_to_responses(messages, vision=self.vision_is_active())

    # -- calls -----------------------------------------------------------------------
    def call(self, messages: Sequence[Message], tools: Sequence[RuntimeTool] = ()) -> LLMResponse:
        """One model call with the API `uses_responses_api` picks; on a transient failure the
        ``fallback_strategy``'s LLMs are tried in turn (`trajkit.sdk.llm.fallback_strategy`).
        """
        try:
            if self.uses_responses_api():
                return self.responses(messages, tools)
            return self.completion(messages, tools)
        except LLMError as e:
            if self.fallback_strategy is None:
                raise
            return self.fallback_strategy.run(self, e, lambda llm: llm.call(messages, tools))

    def completion(
        self, messages: Sequence[Message], tools: Sequence[RuntimeTool] = ()
    ) -> LLMResponse:
        """Chat Completions call; returns the assistant message."""
        litellm = import_litellm()
        kwargs = self._common_kwargs()
        kwargs["messages"] = self.format_messages_for_llm(messages)
        if tools and self.native_tool_calling:
            kwargs["tools"] = [t.to_chat_tool() for t in tools]
        if self._reasoning_effort():
            kwargs["reasoning_effort"] = self._reasoning_effort()
        if self.seed is not None:
            kwargs["seed"] = self.seed
        apply_chat_options(self, kwargs, self._info())
        callbacks = current_token_callbacks() if self.stream else ()
        if callbacks:  # streamed to the conversation's token callbacks (llm.streaming)
            kwargs["stream"] = True
            return self._send(
                lambda **kw: _streamed(litellm, kw, callbacks),
                kwargs,
                _message_from_chat,
                _usage_from_chat,
            )
        return self._send(litellm.completion, kwargs, _message_from_chat, _usage_from_chat)

    def responses(
        self, messages: Sequence[Message], tools: Sequence[RuntimeTool] = ()
    ) -> LLMResponse:
        """Responses API call (``store=False``); returns the assistant message."""
        litellm = import_litellm()
        instructions, items = self.format_messages_for_responses(messages)
        kwargs = self._common_kwargs()
        kwargs.update(input=items, store=False)
        if instructions is not None:
            kwargs["instructions"] = instructions
        if tools:
            kwargs["tools"] = [t.to_responses_tool() for t in tools]
            kwargs["tool_choice"] = "auto"
        effort = self._reasoning_effort()
        if effort:
            reasoning: dict[str, Any] = {"effort": effort}
            if self.reasoning_summary:
                reasoning["summary"] = self.reasoning_summary
            kwargs["reasoning"] = reasoning
        apply_responses_options(self, kwargs, self._info())
        return self._send(litellm.responses, kwargs, _message_from_responses, _usage_from_responses)

    def _send(
        self,
        api: Callable[..., Any],
        kwargs: dict[str, Any],
        message_of: Callable[[Any], Message],
        usage_of: Callable[[Any], TokenUsage | None],
    ) -> LLMResponse:
        """One request to ``api`` (with retries); its latency, tokens and cost recorded."""
        start = time.monotonic()
        resp = self._with_retries(lambda: api(**kwargs))
        latency = time.monotonic() - start
        message = message_of(resp)
        rid = str(getattr(resp, "id", "") or "")
        self._record(resp, rid, latency, usage_of(getattr(resp, "usage", None)))
        return LLMResponse(message=message, id=rid, raw=resp)

    def _reasoning_effort(self) -> str | None:
        """``reasoning_effort`` to send: only to reasoning models, and not when ``"none"``."""
        effort = self.reasoning_effort
        if not effort or effort == "none":
            return None
        override = self.capability_overrides.get("supports_reasoning_effort")
        supported = (
            override if isinstance(override, bool) else self._info().get("supports_reasoning")
        )
        return effort if supported else None

    def _common_kwargs(self) -> dict[str, Any]:
        model, base_url = self.model, self.base_url
        if model.startswith("openhands/"):  # the OpenHands proxy is a litellm proxy
            model = "litellm_proxy/" + model.removeprefix("openhands/")
            base_url = base_url or OPENHANDS_PROXY_URL
        kwargs: dict[str, Any] = {
            "model": model,
            "timeout": self.timeout,
            "drop_params": self.drop_params,
            "num_retries": 0,
            "max_retries": 0,
        }
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key.get_secret_value()
        if base_url:
            kwargs["api_base"] = base_url
        if self.api_version:
            kwargs["api_version"] = self.api_version
        if self.extra_headers:
            kwargs["extra_headers"] = dict(self.extra_headers)
        if self.litellm_extra_body:
            kwargs["extra_body"] = dict(self.litellm_extra_body)
        return kwargs

    def _with_retries(self, fn: Callable[[], Any]) -> Any:
        litellm = import_litellm()
        retryable = tuple(
            getattr(litellm, name)
            for name in (
                "RateLimitError",
                "Timeout",
                "APIConnectionError",
                "InternalServerError",
                "ServiceUnavailableError",
                "BadGatewayError",
            )
            if hasattr(litellm, name)
        )
        attempt = 0
        while True:
            attempt += 1
            try:
                return fn()
            except retryable as e:
                if attempt >= max(1, self.num_retries):
                    raise _llm_error(e, attempt, self.base_url) from e
                time.sleep(self._backoff(attempt))
            except Exception as e:
                raise _llm_error(e, attempt, self.base_url) from e

    def _backoff(self, attempt: int) -> float:
        wait = self.retry_multiplier * (2 ** (attempt - 1))
        return float(max(self.retry_min_wait, min(self.retry_max_wait, wait)))

    def _record(self, resp: Any, rid: str, latency: float, usage: TokenUsage | None) -> None:
        m = self.metrics
        m.add_response_latency(latency, rid)
        if usage is not None:
            usage.model = self.model
            usage.response_id = rid
            usage.context_window = int(self._info().get("max_input_tokens") or 0)
            m.add_token_usage(usage)
        m.add_cost(self._cost(resp, usage))

    def _cost(self, resp: Any, usage: TokenUsage | None) -> float:
        if usage is None:
            return 0.0
        if self.input_cost_per_token is not None and self.output_cost_per_token is not None:
            return (
                usage.prompt_tokens * self.input_cost_per_token
                + usage.completion_tokens * self.output_cost_per_token
            )
        try:
            hidden = getattr(resp, "_hidden_params", None) or {}
            header_cost = (hidden.get("additional_headers") or {}).get(
                "llm_provider-x-litellm-response-cost"
            )
            if header_cost is not None:
                return float(header_cost)
        except (TypeError, ValueError, AttributeError):
            pass
        # the model the response names first, as litellm's completion_cost (the SDK's) prices a
        # response; then the configured names
        for name in (_get(resp, "model"), self.model_canonical_name, self.model):
            if not name or not isinstance(name, str):
                continue
            try:
                prompt_cost, completion_cost = import_litellm().cost_per_token(
                    model=name,
                    prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens,
                    cache_read_input_tokens=usage.cache_read_tokens,
                )
                return float(prompt_cost + completion_cost)
            except Exception:  # model not in the cost map
                continue
        return 0.0


def _llm_error(e: Exception, attempts: int, base_url: str | None) -> LLMError:
    kind = type(e).__name__
    status = getattr(e, "status_code", None)
    tries = f" (after {attempts} attempts)" if attempts > 1 else ""
    hint = ""
    if "connection error" in str(e).lower() or kind == "APIConnectionError":
        hint = f" [could not connect to {base_url or 'the provider'}]"
    cls = llm_error_class(kind, status if isinstance(status, int) else None, str(e))
    return cls(f"{kind}{tries}: {e}{hint}", kind=kind, status_code=status)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _streamed(
    litellm: Any, kwargs: dict[str, Any], callbacks: tuple[TokenCallbackType, ...]
) -> Any:
    """A streamed Chat Completions call: each chunk to ``callbacks``, then the whole response
    rebuilt from the chunks (`trajkit.sdk.llm.streaming`).
    """
    chunks = []
    for chunk in litellm.completion(**kwargs):
        for callback in callbacks:
            callback(chunk)
        chunks.append(chunk)
    response = litellm.stream_chunk_builder(chunks, messages=kwargs["messages"])
    if response is None:
        raise LLMNoResponseError("the model's stream ended without a response")
    return response


def _message_from_chat(resp: Any) -> Message:
    choices = _get(resp, "choices") or []
    if not choices:
        raise LLMNoResponseError("the model returned no choices")
    msg = _get(choices[0], "message")
    content = _get(msg, "content")
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):
        text = "".join(str(_get(p, "text", "")) for p in content)
    calls = []
    for tc in _get(msg, "tool_calls") or []:
        if _get(tc, "type", "function") != "function":
            continue
        fn = _get(tc, "function")
        calls.append(
            MessageToolCall(
                id=str(_get(tc, "id")),
                name=str(_get(fn, "name")),
                arguments=str(_get(fn, "arguments") or ""),
                origin="completion",
            )
        )
    blocks: list[ThinkingBlock | RedactedThinkingBlock] = []
    for b in _get(msg, "thinking_blocks") or []:
        if _get(b, "type") == "redacted_thinking":
            blocks.append(RedactedThinkingBlock(data=str(_get(b, "data", ""))))
        elif _get(b, "type") == "thinking":
            blocks.append(
                ThinkingBlock(thinking=str(_get(b, "thinking", "")), signature=_get(b, "signature"))
            )
    return Message(
        role="assistant",
        content=[TextContent(text=text)] if text else [],
        tool_calls=calls or None,
        reasoning_content=_get(msg, "reasoning_content") or None,
        thinking_blocks=blocks,
    )


def _message_from_responses(resp: Any) -> Message:
    texts: list[str] = []
    calls: list[MessageToolCall] = []
    reasoning: ReasoningItemModel | None = None
    for item in _get(resp, "output") or []:
        kind = _get(item, "type")
        if kind == "message":
            for part in _get(item, "content") or []:
                if _get(part, "type") == "output_text":
                    texts.append(str(_get(part, "text", "")))
        elif kind == "function_call":
            item_id = _get(item, "id")
            calls.append(
                MessageToolCall(
                    id=str(_get(item, "call_id") or item_id),
                    responses_item_id=item_id,
                    name=str(_get(item, "name")),
                    arguments=str(_get(item, "arguments") or ""),
                    origin="responses",
                )
            )
        elif kind == "reasoning":
            content = _get(item, "content")
            reasoning = ReasoningItemModel(
                id=_get(item, "id"),
                summary=[str(_get(s, "text", "")) for s in _get(item, "summary") or []],
                content=[str(_get(c, "text", "")) for c in content] if content else None,
                encrypted_content=_get(item, "encrypted_content"),
                status=_get(item, "status"),
            )
    text = "\n".join(texts).strip()
    return Message(
        role="assistant",
        content=[TextContent(text=text)] if text else [],
        tool_calls=calls or None,
        responses_reasoning_item=reasoning,
    )


def _usage_from_chat(usage: Any) -> TokenUsage | None:
    if usage is None:
        return None
    prompt = int(_get(usage, "prompt_tokens") or 0)
    completion = int(_get(usage, "completion_tokens") or 0)
    details = _get(usage, "prompt_tokens_details")
    cached = int(_get(details, "cached_tokens") or 0) if details else 0
    cdetails = _get(usage, "completion_tokens_details")
    reasoning = int(_get(cdetails, "reasoning_tokens") or 0) if cdetails else 0
    cache_write = int(_get(usage, "_cache_creation_input_tokens") or 0)
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        cache_read_tokens=cached,
        cache_write_tokens=cache_write,
        reasoning_tokens=reasoning,
        per_turn_token=prompt + completion,
    )


def _usage_from_responses(usage: Any) -> TokenUsage | None:
    if usage is None:
        return None
    prompt = int(_get(usage, "input_tokens") or 0)
    completion = int(_get(usage, "output_tokens") or 0)
    idetails = _get(usage, "input_tokens_details")
    odetails = _get(usage, "output_tokens_details")
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        cache_read_tokens=int(_get(idetails, "cached_tokens") or 0) if idetails else 0,
        reasoning_tokens=int(_get(odetails, "reasoning_tokens") or 0) if odetails else 0,
        per_turn_token=prompt + completion,
    )
