"""Mask secrets in exported rows, and count what was masked.

Two kinds of secret are masked in every string column, JSON text included:
- the *values* of a conversation's secrets: registered secrets written in clear, clear values of
  secret fields (`api_key`, secret headers, ...), secrets decrypted with the user's secret key,
  and any extra values the caller passes; each becomes `<secret-hidden>` (as the SDK hides them
  in tool output);
- substrings that look like provider API keys (`trajkit.redact`'s patterns); each becomes
  `**********`.

Speed: nearly every event holds no secret, so `Redactor.is_clean(raw)` first searches the event's
stored bytes once (a compiled byte regex plus a substring test per value); only rows built from a
dirty event are walked string by string. A value is also searched in its JSON-escaped form, so a
secret holding quotes or backslashes is found inside JSON text; masking keeps JSON text valid
because both masks hold no character that JSON escapes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from trajkit.errors import value_at_pointer
from trajkit.redact import (
    MASK,
    SecretMasker,
    contains_api_key,
    decrypt,
    find_clear_secrets,
    is_encrypted,
    registered_secret_values,
)

__all__ = ["KEY_PREFIXES", "Redactor", "secret_values"]

KEY_PREFIXES = (
    "sk-",
    "AKIA",
    "ASIA",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "AIza",
    "xox",
    "hf_",
)
"""Literal starts of `trajkit.redact`'s API-key patterns, for the prefilter.

Python's `re` scans the full key pattern at about 12 MB/s (alternation plus lookarounds), far
too slow for every byte of a corpus. `Redactor.dirty()` instead runs one RE2 alternation of
these prefixes (pyarrow compute, hundreds of MB/s) over a conversation's texts, and the exact
`trajkit.redact` patterns only on the few texts it flags. A test checks that every pattern of
`trajkit.redact` starts with one of these prefixes.
"""

_PREFILTER = "|".join(re.escape(p) for p in KEY_PREFIXES)
_ESCAPES = r"\\u|\\/"


class Redactor:
    """Masks known secret values and API-key-looking strings; `count` says how many were masked.

    The masking itself is `trajkit.redact.SecretMasker` (every encoded form of each value,
    object keys, JSON text decoded when it holds escapes), the same rule the runtime applies
    before writing an event.
    """

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._masker = SecretMasker(values, api_keys=True)
        self._values = self._masker.forms
        self._bytes = [v.encode() for v in self._values]

    @property
    def count(self) -> int:
        """Replacements made so far."""
        return self._masker.count

    def dirty(self, texts: list[str | bytes]) -> list[bool]:
        """For each text: might it hold a secret? (False is certain; True is checked by `text`.)"""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not texts:
            return []
        # Searched as bytes (str is encoded as UTF-8): the prefixes and values are literals, so
        # a byte-wise search finds the same texts, without validating UTF-8 first.
        array = pa.array(texts, pa.binary())
        mask = pc.match_substring_regex(array, _PREFILTER)
        for value in self._values:
            mask = pc.or_(mask, pc.match_substring(array, value))
        if self._values:  # an escape (`\u0074`, `\/`) can spell a value: decode those texts
            mask = pc.or_(mask, pc.match_substring_regex(array, _ESCAPES))
        if not pc.any(mask).as_py():
            return [False] * len(texts)
        return [bool(x) for x in mask.to_pylist()]

    def is_clean(self, raw: bytes) -> bool:
        """True when `raw` holds neither a secret value nor an API-key-looking string."""
        if contains_api_key(raw) is not None:
            return False
        if self._bytes and (b"\\u" in raw or b"\\/" in raw):
            return False
        return not any(v in raw for v in self._bytes)

    def text(self, text: str) -> str:
        """`text` with secrets masked (counted)."""
        return self._masker.text(text)

    def value(self, data: Any) -> Any:
        """A copy of a row value (str, list, dict, scalar) with every string (and key) masked.

        UTF-8 `bytes` (JSON text kept as read) come back as masked `str`.
        """
        if isinstance(data, bytes):
            return self.text(data.decode("utf-8", "replace"))
        return self._masker.data(data)


def secret_values(
    state: Mapping[str, Any] | None,
    *,
    secret_key: str | None = None,
    extra: Iterable[str] = (),
) -> list[str]:
    """Secret values a conversation's `base_state.json` reveals, to search for in its events.

    Clear registered secrets, clear values of secret fields, registered secrets decrypted with
    `secret_key` (the SDK's cipher key) when given, plus `extra`.
    """
    found = list(extra)
    if not isinstance(state, Mapping):
        return found
    found.extend(registered_secret_values(state).values())
    for pointer, _ in find_clear_secrets(state):
        value = value_at_pointer(state, pointer)
        if isinstance(value, str) and value != MASK:
            found.append(value)
    if secret_key:
        found.extend(_decrypted(state, secret_key))
    return found


def _decrypted(state: Mapping[str, Any], secret_key: str) -> list[str]:
    registry = state.get("secret_registry")
    sources = registry.get("secret_sources") if isinstance(registry, Mapping) else None
    out: list[str] = []
    tokens: list[Any] = []
    if isinstance(sources, Mapping):
        for source in sources.values():
            if isinstance(source, Mapping):
                tokens.append(source.get("value"))
                headers = source.get("headers")
                if isinstance(headers, Mapping):
                    tokens.extend(headers.values())
    llm = state.get("agent", {}).get("llm") if isinstance(state.get("agent"), Mapping) else None
    if isinstance(llm, Mapping):
        tokens.extend(llm.get(k) for k in ("api_key", "aws_secret_access_key", "aws_session_token"))
    for token in tokens:
        if is_encrypted(token):
            clear = decrypt(str(token), secret_key)
            if clear:
                out.append(clear)
    return out
