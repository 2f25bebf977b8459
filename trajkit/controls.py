"""Terminal safety: control characters from conversation text are shown, never obeyed.

An event can hold any text a model or a tool produced, including terminal escape sequences
(OSC to set the window title or write the clipboard, CSI to clear the screen, a bare CR to
overwrite a line) and Unicode bidi overrides that reorder what is displayed. Everything the
terminal views print (`ls`, `stats`, `inspect`) goes through `visible_controls`, which replaces
each such character by its escape (`\\x1b`, `\\r`, `\\u202e`), so the text reads the same and
does nothing. Newlines and tabs are kept where the layout needs them, and there a CRLF line end
(text written on Windows, HTTP output) is a line end like LF, not a `\\r` on every line.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

__all__ = ["safe_entry", "visible_controls"]

_T = TypeVar("_T")

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_KEEP_LAYOUT = re.compile(f"[{_CONTROLS}]")
_KEEP_NOTHING = re.compile(f"[{_CONTROLS}\n\t]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return "\\r"
    if code == 0x0A:
        return "\\n"
    if code == 0x09:
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible_controls(text: str, *, keep_layout: bool = True) -> str:
    """`text` with control characters shown as escapes; `keep_layout` keeps `\\n` and `\\t`."""
    pattern = _KEEP_LAYOUT if keep_layout else _KEEP_NOTHING
    if pattern.search(text) is None:
        return text
    if keep_layout and "\r\n" in text:
        text = text.replace("\r\n", "\n")  # a line end; a lone CR is still shown
    return pattern.sub(_escape, text)


def safe_entry(entry: _T) -> _T:
    """A copy of a views `Entry` (or `CodeBlock`) with every string field made visible."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(entry):  # type: ignore[arg-type]
        value = getattr(entry, f.name)
        new = _safe_value(value)
        if new is not value:
            changes[f.name] = new
    return dataclasses.replace(entry, **changes) if changes else entry  # type: ignore[type-var]


def _safe_value(value: Any) -> Any:
    if isinstance(value, str):
        safe = visible_controls(value)
        return value if safe == value else safe
    if isinstance(value, list):
        items = [_safe_value(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return safe_entry(value)
    return value
