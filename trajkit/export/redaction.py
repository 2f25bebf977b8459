"""Mask secrets in exported rows, and count what was masked.

Two kinds of secret are masked in every string column, JSON text included:
- the *values* of a conversation's secrets: registered secrets written in clear, clear values of
  secret fields (`api_key`, secret headers, ...), secrets decrypted with the user's secret key,
  and any extra values the caller passes; each becomes `<secret-hidden>` (as the SDK hides them
  in tool output);
- substrings that look like provider API keys or JSON Web Tokens (`trajkit.redact`'s rule),
  base64 text whose bytes hold one, and a key split across two text parts of one message;
  each becomes `**********`.

Speed: nearly every event holds no secret, so `Redactor.dirty(texts)` first searches each event's
stored bytes once (one multi-literal scan for the API-key prefixes and the secret values); only
rows built from a dirty event are walked string by string. A value is also searched in its JSON-escaped form, so a
secret holding quotes or backslashes is found inside JSON text; masking keeps JSON text valid
because both masks hold no character that JSON escapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from trajkit.errors import value_at_pointer
from trajkit.redact import (
    API_KEY_LITERALS,
    MASK,
    SecretMasker,
    decrypt,
    find_clear_secrets,
    has_base64_key_literal,
    is_encrypted,
    registered_secret_values,
)

__all__ = ["KEY_PREFIXES", "Redactor", "secret_values"]

KEY_PREFIXES = tuple(x.decode() for x in API_KEY_LITERALS)
"""The literals every match of `trajkit.redact`'s API-key rule starts with, for the prefilter
(base64 text holding a key is found by `trajkit.redact.has_base64_key_literal`, a second scan).

Python's `re` scans the full key pattern at about 12 MB/s (alternation plus lookarounds), far
too slow for every byte of a corpus. `Redactor.dirty()` instead runs one multi-literal scan
of these (and of the conversation's secret values) over each text, and the exact
`trajkit.redact` rule only on the few texts it flags. They come from `trajkit.redact` itself,
so the prefilter cannot drift from the rule.
"""

_PREFIX_BYTES = tuple(p.encode() for p in KEY_PREFIXES)
_ESCAPE_BYTES = (b"\\u", b"\\/")
_PREFIX_SCANNER: Any = None


def _literal_scanner(patterns: list[bytes]) -> Any:
    import ahocorasick_rs

    return ahocorasick_rs.BytesAhoCorasick(
        patterns, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    )


def _prefix_scanner() -> Any:
    """The scanner of `KEY_PREFIXES` alone (a conversation without secret values), built once."""
    global _PREFIX_SCANNER
    if _PREFIX_SCANNER is None:
        _PREFIX_SCANNER = _literal_scanner(list(_PREFIX_BYTES))
    return _PREFIX_SCANNER


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
        self._scan: Any = None

    @property
    def count(self) -> int:
        """Replacements made so far."""
        return self._masker.count

    def dirty(self, texts: list[str | bytes]) -> list[bool]:
        """For each text, whether it might hold a secret: False is certain, True is checked by `text`.

        True when a text holds one of `KEY_PREFIXES` (or its base64), a secret value (in any of its forms) or,
        when there are values, a JSON escape (`\\u`, `\\/`: an escape can spell a value, so those
        texts are decoded). Searched as bytes (a `str` as UTF-8): the patterns are literals, so
        a byte-wise search finds the same texts, without validating UTF-8 first.
        """
        scan = self._scanner().find_matches_as_indexes
        flags = []
        for t in texts:
            data = t if isinstance(t, bytes) else t.encode("utf-8", "surrogatepass")
            flags.append(bool(scan(data)) or has_base64_key_literal(data))
        return flags

    def _scanner(self) -> Any:
        """One multi-literal scanner (`ahocorasick_rs`, SIMD) for every pattern of `dirty`.

        One pass per text, 1.7-2.3 us for a 5.7 KB event (leftmost-first matching, which
        reports a match whenever any pattern occurs), where Arrow's RE2 alternation plus one
        substring kernel per value, over a binary array copied from the texts, cost 17 us.
        """
        if self._scan is None:
            if not self._bytes:
                self._scan = _prefix_scanner()
            else:
                patterns = [*_PREFIX_BYTES, *self._bytes, *_ESCAPE_BYTES]
                self._scan = _literal_scanner(patterns)
        return self._scan

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
