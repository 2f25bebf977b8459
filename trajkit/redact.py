"""Mask, encrypt and detect secret values.

The format's rules (v1-format.md §1.8): a secret-typed field is written either *masked* as the
literal `"**********"` or *encrypted* as a Fernet token (a string starting with `gAAAAA`) whose
key is `base64(sha256(secret_key))`. Anything else in such a field is a secret in clear.
Terminal output has registered secret values replaced by `<secret-hidden>`.

This module is pure (no I/O, no trajkit imports) so `validate`, `export` and the runtime can all
use it; `cryptography` is imported only by `encrypt`/`decrypt`.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

MASK = "**********"
"""What the SDK writes for a secret when no cipher is configured."""

HIDDEN = "<secret-hidden>"
"""What the SDK puts in tool output in place of a registered secret value."""

SECRET_FIELDS = frozenset(
    {"api_key", "aws_access_key_id", "aws_secret_access_key", "aws_session_token"}
)
"""Field names that are secrets wherever they appear (the LLM's `SecretStr` fields)."""

_HEADER_CONTAINERS = frozenset({"headers", "env", "secrets"})
"""Dicts whose values are secrets when their key looks secret (LookupSecret.headers, MCP env);
every string value of a `secrets` map (AgentContext.secrets) is a secret."""

_NO_SECRETS_BELOW = frozenset({"stats"})
"""Keys whose subtree never holds a secret (`stats`: the metrics history of base_state.json)."""

_SECRET_KEY_WORDS = (
    "key",
    "secret",
    "token",
    "password",
    "passwd",
    "authorization",
    "credential",
    "cookie",
)

_FERNET_RE = re.compile(r"gAAAAA[A-Za-z0-9_\-]{60,}={0,2}")

_API_KEY_PATTERNS: tuple[tuple[str, str], ...] = (
    ("OpenAI/Anthropic-style key", r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("AWS access key id", r"(?:AKIA|ASIA)[0-9A-Z]{16}"),
    ("GitHub token", r"g(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})"),
    ("Google API key", r"AIza[0-9A-Za-z_\-]{35}"),
    ("Slack token", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("Hugging Face token", r"hf_[A-Za-z0-9]{30,}"),
)
# One pattern per kind of key, each starting with a literal so the regex engine can skip ahead
# quickly; a match must not sit inside a longer word (checked in `_standalone`).
_API_KEY_RES = tuple((label, re.compile(p)) for label, p in _API_KEY_PATTERNS)
_API_KEY_BYTES_RES = tuple((label, re.compile(p.encode())) for label, p in _API_KEY_PATTERNS)
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")

MIN_SECRET_LENGTH = 6
"""Registered values shorter than this are not searched for: they would match everywhere."""


def is_masked(value: object) -> bool:
    """True for the SDK's redaction marker."""
    return value == MASK


def is_encrypted(value: object) -> bool:
    """True for a string that has the shape of a Fernet token."""
    return isinstance(value, str) and _FERNET_RE.fullmatch(value) is not None


def is_protected(value: object) -> bool:
    """True when a secret field's value does not reveal a secret: absent, empty, masked or encrypted."""
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    return not value.strip() or is_masked(value) or is_encrypted(value)


def is_secret_key(name: str) -> bool:
    """True for a header or environment variable name that usually holds a credential."""
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_KEY_WORDS)


def find_clear_secrets(data: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Yield `(json_pointer, field)` for every secret field holding a value in clear.

    Secret fields are the LLM credential fields (`SECRET_FIELDS`) anywhere in the document,
    `value` of a `StaticSecret`, and secret-looking keys of `headers`/`env`/`secrets` maps.
    Subtrees that hold only numbers and names (`stats`: the metrics history, which grows with
    every LLM call) are skipped.
    """
    if isinstance(data, dict):
        static = data.get("kind") == "StaticSecret"
        for key, value in data.items():
            if not isinstance(value, dict | list | str) or key in _NO_SECRETS_BELOW:
                continue
            secret_field = key in SECRET_FIELDS or (static and key == "value")
            if secret_field and isinstance(value, str):
                if not is_protected(value):
                    yield f"{pointer}/{escape_pointer(str(key))}", str(key)
                continue
            if isinstance(value, str):
                continue
            child = f"{pointer}/{escape_pointer(str(key))}"
            if key in _HEADER_CONTAINERS and isinstance(value, dict):
                yield from _clear_in_map(value, child, every=key == "secrets")
            yield from find_clear_secrets(value, child)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            if isinstance(item, dict | list):
                yield from find_clear_secrets(item, f"{pointer}/{i}")


def _clear_in_map(
    mapping: Mapping[str, Any], pointer: str, *, every: bool
) -> Iterator[tuple[str, str]]:
    for key, value in mapping.items():
        if key in SECRET_FIELDS:
            continue  # reported by find_clear_secrets itself
        secret = every or is_secret_key(str(key))
        if isinstance(value, str) and secret and not is_protected(value):
            yield f"{pointer}/{escape_pointer(str(key))}", str(key)


def registered_secret_values(base_state: Any) -> dict[str, str]:
    """The clear values of `secret_registry.secret_sources` (name -> value), if any were written.

    A well-formed `base_state.json` has none (they are masked or encrypted); when one is in
    clear, events are also searched for it.
    """
    if not isinstance(base_state, dict):
        return {}
    registry = base_state.get("secret_registry")
    sources = registry.get("secret_sources") if isinstance(registry, dict) else None
    if not isinstance(sources, dict):
        return {}
    found: dict[str, str] = {}
    for name, source in sources.items():
        value = source.get("value") if isinstance(source, dict) else None
        if isinstance(value, str) and not is_protected(value) and len(value) >= MIN_SECRET_LENGTH:
            found[str(name)] = value
    return found


def find_api_keys(text: str) -> Iterator[tuple[int, str]]:
    """Yield `(offset, description)` for each substring that looks like a provider API key."""
    hits: list[tuple[int, str]] = []
    for label, pattern in _API_KEY_RES:
        for match in pattern.finditer(text):
            if _standalone(text, match.start(), match.end()):
                hits.append((match.start(), label))
    yield from sorted(hits)


def contains_api_key(data: bytes) -> str | None:
    """The description of the first kind of API key found in `data`, or None (fast path)."""
    for label, pattern in _API_KEY_BYTES_RES:
        for match in pattern.finditer(data):
            if _standalone(data, match.start(), match.end()):
                return label
    return None


def _standalone(text: str | bytes, start: int, end: int) -> bool:
    """True when the match is not part of a longer word (`task-…`, `xxAKIA…`)."""
    before = text[start - 1 : start]
    after = text[end : end + 1]
    return not _is_word(before) and not _is_word(after)


def _is_word(char: str | bytes) -> bool:
    if not char:
        return False
    code = char[0] if isinstance(char, bytes) else ord(char)
    return code in _WORD


def mask_api_keys(text: str) -> str:
    """`text` with API-key-looking substrings replaced by `MASK`."""
    spans: list[tuple[int, int]] = []
    for _, pattern in _API_KEY_RES:
        spans.extend(m.span() for m in pattern.finditer(text) if _standalone(text, *m.span()))
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + MASK + text[end:]
    return text


def mask_values(text: str, values: Iterable[str]) -> str:
    """`text` with each secret value replaced by `HIDDEN`, longest first (as the SDK does)."""
    for value in sorted((v for v in values if v), key=len, reverse=True):
        text = text.replace(value, HIDDEN)
    return text


def mask_secret_fields(data: Any) -> Any:
    """A copy of a JSON value with every clear secret field (see `find_clear_secrets`) masked."""
    if isinstance(data, dict):
        static = data.get("kind") == "StaticSecret"
        out: dict[str, Any] = {}
        for key, value in data.items():
            if (key in SECRET_FIELDS or (static and key == "value")) and isinstance(value, str):
                out[key] = value if is_protected(value) else MASK
            elif key in _HEADER_CONTAINERS and isinstance(value, dict):
                every = key == "secrets"
                out[key] = {
                    k: MASK
                    if isinstance(v, str)
                    and (every or is_secret_key(str(k)))
                    and not is_protected(v)
                    else mask_secret_fields(v)
                    for k, v in value.items()
                }
            else:
                out[key] = mask_secret_fields(value)
        return out
    if isinstance(data, list):
        return [mask_secret_fields(item) for item in data]
    return data


def fernet_key(secret_key: str | bytes) -> bytes:
    """The Fernet key the SDK derives from a secret key: `base64(sha256(secret_key))`."""
    raw = secret_key.encode() if isinstance(secret_key, str) else secret_key
    return base64.urlsafe_b64encode(hashlib.sha256(raw).digest())


def encrypt(value: str, secret_key: str | bytes) -> str:
    """Encrypt `value` as the SDK's cipher does; an existing token is returned unchanged."""
    if is_encrypted(value):
        return value
    from cryptography.fernet import Fernet

    return Fernet(fernet_key(secret_key)).encrypt(value.encode()).decode()


def decrypt(token: str, secret_key: str | bytes) -> str | None:
    """Decrypt a token; None when the key is wrong or the token is damaged (the SDK warns)."""
    from cryptography.fernet import Fernet, InvalidToken

    try:
        return Fernet(fernet_key(secret_key)).decrypt(token.encode()).decode()
    except (InvalidToken, ValueError):
        return None


def escape_pointer(token: str) -> str:
    """Escape one JSON-pointer reference token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


__all__ = [
    "HIDDEN",
    "MASK",
    "MIN_SECRET_LENGTH",
    "SECRET_FIELDS",
    "contains_api_key",
    "decrypt",
    "encrypt",
    "escape_pointer",
    "fernet_key",
    "find_api_keys",
    "find_clear_secrets",
    "is_encrypted",
    "is_masked",
    "is_protected",
    "is_secret_key",
    "mask_api_keys",
    "mask_secret_fields",
    "mask_values",
    "registered_secret_values",
]
