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
import json
import re
import urllib.parse
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
    # header.payload.signature, each base64url; header and payload are JSON objects, so both
    # start `{"` = "eyJ" (the signature is empty for `alg: none`)
    ("JSON Web Token", r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
)
# One pattern per kind of key, each starting with a literal so the regex engine can skip ahead
# quickly; a match must not sit inside a longer word (checked in `_standalone`).
_API_KEY_RES = tuple((label, re.compile(p)) for label, p in _API_KEY_PATTERNS)
_API_KEY_BYTES_RES = tuple((label, re.compile(p.encode())) for label, p in _API_KEY_PATTERNS)
_API_KEY_PREFIXES: tuple[tuple[bytes, ...], ...] = (
    (b"sk-",),
    (b"AKI", b"ASI"),  # not AKIA/ASIA: their last "A" could hide the "A" of an "AIza" key
    (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_"),
    (b"AIza",),
    (b"xoxa-", b"xoxb-", b"xoxp-", b"xoxo-", b"xoxs-", b"xoxr-"),
    (b"hf_",),
    (b"eyJ",),
)
"""Literals every match of the pattern of the same rank in `_API_KEY_PATTERNS` starts with.

No literal contains another or ends with the start of one, so a left-most, non-overlapping
scan for them reports every place any of them starts (tests/test_redact_scan.py checks it).
"""
API_KEY_LITERALS: tuple[bytes, ...] = tuple(lit for lits in _API_KEY_PREFIXES for lit in lits)
"""Every literal a provider key starts with (the fast paths scan for these, then the rule)."""


def _base64_literals(literal: bytes) -> set[bytes]:
    """The base64 text `literal` gives at each of the three byte alignments, in both alphabets,
    keeping only the characters it alone decides (so any base64 holding it holds one of these).
    """
    out = set()
    for offset in range(3):
        first = -(-8 * offset // 6)  # the first character made of the literal's bits only
        last = 8 * (offset + len(literal)) // 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            out.add(encode(b"\0" * offset + literal + b"\0\0\0")[first:last])
    return out


BASE64_KEY_LITERALS: tuple[bytes, ...] = tuple(
    sorted({b for lit in API_KEY_LITERALS for b in _base64_literals(lit)})
)
"""What `API_KEY_LITERALS` look like inside base64 text: a base64 blob holding a key holds one."""


def _family_prefixes(literals: tuple[bytes, ...], family: int = 4) -> tuple[bytes, ...]:
    """`literals` with each family of `family` or more sharing a prefix of three or more
    characters replaced by that prefix, longest prefixes first: every literal holds one of the
    result, so finding none of them proves none of `literals` occurs.
    """
    out = set(literals)
    for k in range(max(map(len, out)) - 1, 2, -1):
        groups: dict[bytes, set[bytes]] = {}
        for lit in out:
            if len(lit) > k:
                groups.setdefault(lit[:k], set()).add(lit)
        for prefix, members in groups.items():
            if len(members) >= family:
                out = (out - members) | {prefix}
    return tuple(sorted(out))


KEY_GATE_LITERALS: tuple[bytes, ...] = API_KEY_LITERALS + _family_prefixes(BASE64_KEY_LITERALS)
"""One scan for both rules' literals (`contains_api_key`'s first pass): `API_KEY_LITERALS` and
`BASE64_KEY_LITERALS` with their large families shortened to a shared prefix, 50 literals in all
(`ahocorasick_rs`'s SIMD search takes at most 64; the 72 of both lists in one scanner take 55 us
per 8 KB, two scanners about 4 us, this one about 2 us)."""
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_\-]{16,}={0,2}")
_BASE64_LABEL = "base64 of a provider key"
_prefix_scan: Any = None
_base64_scan: Any = None
_gate_scan: Any = None
_escape_scan: Any = None
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
                every = key == "secrets" or (
                    key == "headers" and data.get("kind") == "LookupSecret"
                )
                yield from _clear_in_map(value, child, every=every)
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
    """Yield `(offset, description)` for each substring that looks like a provider API key
    (a JSON Web Token included), or is base64 text whose bytes hold one.
    """
    yield from sorted((start, label) for start, _, label in _key_spans(text))


def _key_spans(text: str) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []
    for label, pattern in _API_KEY_RES:
        for match in pattern.finditer(text):
            if _standalone(text, match.start(), match.end()):
                spans.append((match.start(), match.end(), label))
    data = text.encode("utf-8", "surrogatepass")
    if data.isascii():  # offsets in the bytes are offsets in the text
        spans.extend((a, b, _BASE64_LABEL) for a, b in _base64_key_spans(data))
    if "\n" in text:
        spans.extend(_keys_across_newlines(text, {start for start, _, _ in spans}))
    return spans


def _keys_across_newlines(text: str, starts: set[int]) -> Iterator[tuple[int, int, str]]:
    """Keys cut in two by one newline (text parts joined with newlines, as `Message.text`
    joins them; a key wrapped by a terminal), whose starting literal is whole before it.
    """
    for stub in _STUB_RE.finditer(text):
        start = stub.start()
        rest = _KEY_CHARS_TO_NEWLINE.match(text, stub.end())
        if start in starts or rest is None:
            continue
        cut = rest.end() - 1  # the newline
        joined = text[start:cut] + text[cut + 1 : cut + 1 + 4096]
        for label, pattern in _API_KEY_RES:
            match = pattern.match(joined)
            if match and match.end() > cut - start and _standalone(joined, 0, match.end()):
                yield start, start + match.end() + 1, label
                break


_KEY_CHARS_TO_NEWLINE = re.compile(r"[A-Za-z0-9_\-.]*\n")


def _base64_key_spans(data: bytes) -> list[tuple[int, int]]:
    """Base64 runs of `data` whose decoded bytes hold a provider key (not base64 of base64)."""
    if not has_base64_key_literal(data):
        return []
    spans = []
    for match in _BASE64_RUN.finditer(data):
        if _standalone(data, match.start(), match.end()) and _holds_key(match.group()):
            spans.append(match.span())
    return spans


def may_hold_key(data: bytes) -> bool:
    """Whether `data` may hold a provider key: False is certain (the fast half of the rule).

    True when a key's starting literal or its base64 occurs (`KEY_GATE_LITERALS`), or a JSON
    `\\u` escape (which could spell one); about 2 us per 8 KB, where the rule's regexes take 20.
    """
    return _key_gate(data) or _has_escape(data)


def _key_gate(data: bytes) -> bool:
    """Whether `data` holds one of `KEY_GATE_LITERALS`: False proves it holds no literal of
    either rule (`API_KEY_LITERALS`, `BASE64_KEY_LITERALS`); one SIMD scan.
    """
    global _gate_scan
    if _gate_scan is None:
        import ahocorasick_rs

        _gate_scan = ahocorasick_rs.BytesAhoCorasick(
            list(KEY_GATE_LITERALS), matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
        )
    return bool(_gate_scan.find_matches_as_indexes(data))


def _has_escape(data: bytes) -> bool:
    """`b"\\u" in data`, by a SIMD scan: bytes' own search goes at ~1 GB/s on JSON (every
    `u` is a candidate), 0.38 s of a 377 MB converted document against 0.05 s.
    """
    global _escape_scan
    if _escape_scan is None:
        import ahocorasick_rs

        _escape_scan = ahocorasick_rs.BytesAhoCorasick([b"\\u"])
    return bool(_escape_scan.find_matches_as_indexes(data))


def has_base64_key_literal(data: bytes) -> bool:
    """Whether `data` holds one of `BASE64_KEY_LITERALS` (the fast half of the base64 rule).

    A scanner of its own: added to the scan for `API_KEY_LITERALS`, 72 literals (over the
    64 that `ahocorasick_rs`'s SIMD search takes) cost 55 us per 8 KB event; two scans cost
    about 6 us each.
    """
    global _base64_scan
    if _base64_scan is None:
        import ahocorasick_rs

        _base64_scan = ahocorasick_rs.BytesAhoCorasick(
            list(BASE64_KEY_LITERALS), matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
        )
    return bool(_base64_scan.find_matches_as_indexes(data))


def _holds_key(run: bytes) -> bool:
    body = run.rstrip(b"=").replace(b"-", b"+").replace(b"_", b"/")
    for skip in range(4):  # the run may start with characters that belong to no group
        part = body[skip:]
        part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part
        try:
            decoded = base64.b64decode(part + b"=" * (-len(part) % 4))
        except ValueError:
            continue
        if _plain_key_kind(decoded) is not None:
            return True
    return False


def contains_api_key(data: bytes) -> str | None:
    """The description of the first kind of API key found in `data`, or None (fast path).

    One pass of a multi-literal scanner (`ahocorasick_rs`, SIMD) looks for the literal each
    kind of key starts with; only the kinds whose literal occurs run their regex. Six regex
    passes over every event file cost 21 us per 8 KB file; the scan costs 1-2 us, and real
    files seldom hold the literals (issue 20). A first pass over `KEY_GATE_LITERALS` answers
    None for a file holding no literal of either rule, the plain one or base64's, so most files
    take one scan, not two.
    """
    if not _key_gate(data):  # no literal of either rule: most files
        return None
    label = _plain_key_kind(data)
    if label is None and _base64_key_spans(data):
        return _BASE64_LABEL
    return label


def _plain_key_kind(data: bytes) -> str | None:
    found = _key_kinds_present(data)
    if not found:
        return None
    for rank, (label, pattern) in enumerate(_API_KEY_BYTES_RES):
        if rank not in found:
            continue
        for match in pattern.finditer(data):
            if _standalone(data, match.start(), match.end()):
                return label
    return None


def _key_kinds_present(data: bytes) -> set[int]:
    """Ranks (in `_API_KEY_PATTERNS`) of the kinds of key whose starting literal is in `data`."""
    global _prefix_scan
    if _prefix_scan is None:
        import ahocorasick_rs

        literals = [lit for lits in _API_KEY_PREFIXES for lit in lits]
        ranks = [rank for rank, lits in enumerate(_API_KEY_PREFIXES) for _ in lits]
        scanner = ahocorasick_rs.BytesAhoCorasick(
            literals, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
        )
        _prefix_scan = (scanner, ranks)
    scanner, ranks = _prefix_scan
    return {ranks[i] for i, _, _ in scanner.find_matches_as_indexes(data, overlapping=False)}


def _standalone(text: str | bytes, start: int, end: int) -> bool:
    """True when the match is not part of a longer word (`task-…`, `xxAKIA…`); a JSON escape
    before it (`\\nsk-…` in JSON text as written) is no word.
    """
    before = text[start - 1 : start]
    if start >= 2 and text[start - 2 : start - 1] in ("\\", b"\\") and before in _ESCAPES:
        before = text[:0]
    after = text[end : end + 1]
    return not _is_word(before) and not _is_word(after)


_ESCAPES = frozenset(["n", "r", "t", "b", "f", b"n", b"r", b"t", b"b", b"f"])


def _is_word(char: str | bytes) -> bool:
    if not char:
        return False
    code = char[0] if isinstance(char, bytes) else ord(char)
    return code in _WORD


def mask_api_keys(text: str) -> str:
    """`text` with API-key-looking substrings (and base64 holding a key) replaced by `MASK`."""
    return _mask_spans(text, [(a, b) for a, b, _ in _key_spans(text)])


def _mask_spans(text: str, spans: list[tuple[int, int]]) -> str:
    out, at = [], len(text)
    for start, end in sorted(spans, reverse=True):  # a span inside a masked one is dropped
        if end > at:
            end = at
        if start >= end:
            continue
        out.append(text[end:at])
        out.append(MASK)
        at = start
    out.append(text[:at])
    return "".join(reversed(out))


def _split_keys(parts: list[str]) -> tuple[list[str], int]:
    """Consecutive texts (the text parts of one message) with a key that starts in one, its
    starting literal whole, and ends in the next masked on both sides; and how many.
    """
    out, found = list(parts), 0
    for i in range(len(out) - 1):
        head, tail = out[i], out[i + 1]
        joined = head + tail
        for start, end, _ in _key_spans(joined):
            literal = next(
                (x for x in API_KEY_LITERALS if joined.startswith(x.decode(), start)), b""
            )
            if start + len(literal) <= len(head) < end:
                out[i], out[i + 1] = head[:start] + MASK, MASK + tail[end - len(head) :]
                found += 1
                break
    return out, found


def _has_key_stub(text: str) -> bool:
    """Whether `text` holds a key's starting literal (standalone) that starts no whole key:
    perhaps the first half of a key split across two strings of a JSON text.
    """
    starts = {start for start, _, _ in _key_spans(text)}
    return any(m.start() not in starts for m in _STUB_RE.finditer(text))


_STUB_RE = re.compile(
    "(?<![A-Za-z0-9_\\-])(?:" + "|".join(re.escape(x.decode()) for x in API_KEY_LITERALS) + ")"
)


def mask_values(text: str, values: Iterable[str]) -> str:
    """`text` with each secret value replaced by `HIDDEN`, longest first (as the SDK does)."""
    for value in sorted((v for v in values if v), key=len, reverse=True):
        text = text.replace(value, HIDDEN)
    return text


_SECRET_QUERY_RE = re.compile(
    r"([?&;][^=&#\s\"'<>]*(?:key|secret|token|password|passwd|signature|sig|auth|credential)"
    r"[^=&#\s\"'<>]*=)([^&#\s\"'<>]+)",
    re.IGNORECASE,
)
"""A URL query parameter whose name looks secret (`?api-key=`, `&access_token=`, `?sig=`)."""

_RAW_SECRET_FIELD_RE = re.compile(
    rb'"(' + b"|".join(re.escape(f.encode()) for f in sorted(SECRET_FIELDS)) + rb')"\s*:\s*"'
    rb'((?:[^"\\]|\\.)*)"'
)


def mask_secret_query(text: str) -> str:
    """`text` with the values of secret-looking URL query parameters replaced by `MASK`."""
    if "=" not in text:
        return text
    return _SECRET_QUERY_RE.sub(
        lambda m: m.group(1) + (m.group(2) if is_protected(m.group(2)) else MASK), text
    )


def has_secret_query(text: str) -> bool:
    """True when `text` holds a URL query parameter with a secret-looking name, in clear."""
    return "=" in text and any(
        not is_protected(m.group(2)) for m in _SECRET_QUERY_RE.finditer(text)
    )


def raw_clear_secret_fields(raw: bytes) -> list[str]:
    """Names of secret fields (`api_key`, ...) holding a clear value anywhere in the raw JSON
    text, duplicates included: a parser keeps only the last of two equal keys, this does not.
    """
    found = []
    for m in _RAW_SECRET_FIELD_RE.finditer(raw):
        try:
            value = json.loads(b'"' + m.group(2) + b'"')
        except ValueError:
            continue
        if not is_protected(value):
            found.append(m.group(1).decode())
    return found


def iter_strings(data: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """`(json_pointer, text)` for every string of a JSON value, object keys included."""
    if isinstance(data, str):
        yield pointer, data
    elif isinstance(data, dict):
        for key, value in data.items():
            child = f"{pointer}/{escape_pointer(str(key))}"
            if isinstance(key, str):
                yield child, key
            yield from iter_strings(value, child)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from iter_strings(item, f"{pointer}/{i}")


def encoded_forms(value: str) -> set[str]:
    """The forms of a secret value searched for: itself, JSON-escaped (both ways), URL-encoded,
    and the base64 text its bytes give at each of the three alignments inside a larger blob
    (only the characters that depend on the value alone, so a hit proves it is there).
    """
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    forms.add(urllib.parse.quote(value, safe=""))
    forms.add(urllib.parse.quote_plus(value, safe=""))
    raw = value.encode()
    for offset in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(b"\0" * offset + raw).decode()
            start = 4 if offset else 0  # the first group mixes in the preceding bytes
            end = (offset + len(raw)) // 3 * 4  # the last, partial group mixes the next ones
            core = text[start:end]
            if len(core) >= 8:
                forms.add(core)
    return {f for f in forms if f}


class SecretMasker:
    """Hides secret values in text and JSON data, on the decoded value of every string.

    Each value is searched in every form of `encoded_forms` (plain, JSON-escaped, URL-encoded,
    base64), in one regex pass. Object keys are masked as well as values. A string that is
    itself JSON (tool-call arguments, a `value` field holding JSON) and holds escapes is also
    decoded and masked inside, so `"\\u0074ok..."` cannot hide `tok...`; a percent-encoded
    string is also searched decoded. With `api_keys`, substrings that look like a provider key
    are masked too (as `MASK`). `count` says how many replacements were made.
    """

    def __init__(
        self, values: Iterable[str], *, api_keys: bool = False, replacement: str = HIDDEN
    ) -> None:
        forms: set[str] = set()
        self.values = sorted(
            {v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET_LENGTH},
            key=len,
            reverse=True,
        )
        for value in self.values:
            forms |= encoded_forms(value)
        self.forms = sorted(forms, key=len, reverse=True)
        self._re = re.compile("|".join(re.escape(f) for f in self.forms)) if forms else None
        self._api_keys = api_keys
        self.replacement = replacement
        self.count = 0

    def __bool__(self) -> bool:
        return self._re is not None or self._api_keys

    def text(self, text: str) -> str:
        """`text` with every form of every value (and, if asked, API keys) replaced."""
        raw = text.encode("utf-8", "surrogatepass")
        literal = bool(_key_kinds_present(raw)) or has_base64_key_literal(raw)
        if self._re is None and not literal and b"\\u" not in raw:
            return text  # the usual case: no key, no value to look for
        if self._re is not None:
            text, n = self._re.subn(self.replacement, text)
            self.count += n
            if "%" in text and self.values:
                decoded = urllib.parse.unquote(text)
                if decoded != text and self._re.search(decoded):
                    text = self.text(decoded)
        if self._api_keys and literal:  # (a value's mask holds no literal)
            n = sum(1 for _ in find_api_keys(text))
            if n:
                self.count += n
                text = mask_api_keys(text)
        if text.lstrip()[:1] in ("{", "[", '"') and (
            "\\" in text or (self._api_keys and _has_key_stub(text))
        ):
            text = self._json_text(text)
        return text

    def raw(self, data: bytes) -> bytes:
        """UTF-8 `data` masked as `text` does; returned as it came when the fast scan clears it
        (invalid bytes are kept as they were).
        """
        if not may_hold_key(data):
            return data
        return self.text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def _json_text(self, text: str) -> str:
        import orjson  # 3x faster than json on the events this decodes; json for the rest

        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            try:
                data = json.loads(text)
            except (ValueError, RecursionError):
                return text
        if self._re is None and not _literal_in(data):
            return text  # decoded, it holds no key's literal either: nothing to walk
        masked = self.data(data)
        if masked == data:
            return text
        return json.dumps(masked, ensure_ascii=False)

    def data(self, data: Any) -> Any:
        """A copy of a JSON-like value with every string (keys included) masked."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {
                (self.text(k) if isinstance(k, str) else k): self.data(v) for k, v in data.items()
            }
        if isinstance(data, list):
            if self._api_keys and len(data) > 1:
                data = self._text_parts(data)
            return [self.data(v) for v in data]
        return data

    def _text_parts(self, items: list[Any]) -> list[Any]:
        """A message's content parts (`{"type": "text", "text": ...}`) with a key split across
        two neighbours masked in both (see `_split_keys`).
        """
        texts = [i.get("text") if isinstance(i, dict) else None for i in items]
        if sum(isinstance(t, str) for t in texts) < 2:
            return items
        out = list(items)
        run: list[int] = []
        for i, text in enumerate([*texts, None]):
            if isinstance(text, str):
                run.append(i)
                continue
            if len(run) > 1:
                masked, n = _split_keys([texts[j] for j in run])  # type: ignore[misc]
                self.count += n
                for j, new in zip(run, masked, strict=True):
                    if new != texts[j]:
                        out[j] = {**items[j], "text": new}
            run = []
        return out

    def found_in(self, text: str) -> bool:
        """Whether masking would change `text` (does not count)."""
        before = self.count
        changed = self.text(text) != text
        self.count = before
        return changed


def _literal_in(data: Any) -> bool:
    """Whether a decoded JSON value holds a key's starting literal (or its base64) anywhere."""
    import orjson  # JSON text again, decoded: one scan instead of a walk over every string

    try:
        raw = orjson.dumps(data)
    except TypeError:  # an integer beyond 64 bits, a lone surrogate
        raw = json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return bool(_key_kinds_present(raw)) or has_base64_key_literal(raw)


def mask_secret_fields(data: Any) -> Any:
    """A copy of a JSON value with every clear secret field (see `find_clear_secrets`) masked."""
    if isinstance(data, dict):
        static = data.get("kind") == "StaticSecret"
        out: dict[str, Any] = {}
        for key, value in data.items():
            if (key in SECRET_FIELDS or (static and key == "value")) and isinstance(value, str):
                out[key] = value if is_protected(value) else MASK
            elif key in _HEADER_CONTAINERS and isinstance(value, dict):
                every = key == "secrets" or (
                    key == "headers" and data.get("kind") == "LookupSecret"
                )
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
    _require_cryptography()
    from cryptography.fernet import Fernet

    return Fernet(fernet_key(secret_key)).encrypt(value.encode()).decode()


def decrypt(token: str, secret_key: str | bytes) -> str | None:
    """Decrypt a token; None when the key is wrong or the token is damaged (the SDK warns)."""
    _require_cryptography()
    from cryptography.fernet import Fernet, InvalidToken

    try:
        return Fernet(fernet_key(secret_key)).decrypt(token.encode()).decode()
    except (InvalidToken, ValueError):
        return None


def escape_pointer(token: str) -> str:
    """Escape one JSON-pointer reference token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


__all__ = [
    "API_KEY_LITERALS",
    "BASE64_KEY_LITERALS",
    "HIDDEN",
    "MASK",
    "MIN_SECRET_LENGTH",
    "SECRET_FIELDS",
    "SecretMasker",
    "has_secret_query",
    "iter_strings",
    "mask_secret_query",
    "raw_clear_secret_fields",
    "contains_api_key",
    "decrypt",
    "encoded_forms",
    "encrypt",
    "escape_pointer",
    "fernet_key",
    "find_api_keys",
    "find_clear_secrets",
    "has_base64_key_literal",
    "is_encrypted",
    "is_masked",
    "is_protected",
    "is_secret_key",
    "mask_api_keys",
    "mask_secret_fields",
    "mask_values",
    "may_hold_key",
    "registered_secret_values",
]


def _require_cryptography() -> None:
    from trajkit._extras import require

    require("runtime", "cryptography", feature="decrypting the SDK's encrypted secrets")
