"""Issue 14 item 9: escape sequences in conversation text (OSC window title and clipboard
write, CSI 2J, CR + EL, a bidi override) are printed visibly by `ls`, `stats` and `inspect`,
never as raw control characters."""

from __future__ import annotations

import json
from pathlib import Path

from tests.security.conftest import invoke

OSC_TITLE = "\x1b]0;pwned-title\x07"
OSC_CLIPBOARD = "\x1b]52;c;ZWNobyBoaQ==\x07"
CLEAR = "\x1b[2J"
OVERWRITE = "\r\x1b[K"
BIDI = "\u202e"
EVIL = f"hello {OSC_TITLE}{OSC_CLIPBOARD}{CLEAR}{OVERWRITE}fake{BIDI}txt"


def _plant(conv: Path) -> None:
    f = next(
        p
        for p in sorted((conv / "events").glob("event-*.json"))
        if b'"source":"user"' in p.read_bytes().replace(b" ", b"")
    )
    data = json.loads(f.read_text())
    data["llm_message"]["content"][0]["text"] = EVIL
    f.write_text(json.dumps(data))
    state = json.loads((conv / "base_state.json").read_text())
    state["agent"]["llm"]["model"] = f"gpt{CLEAR}"
    (conv / "base_state.json").write_text(json.dumps(state))


def test_control_characters_are_shown_not_obeyed(conv: Path) -> None:
    _plant(conv)
    for args in (["ls", str(conv)], ["stats", str(conv)], ["inspect", "--full", str(conv)]):
        out = invoke(*args).output
        assert "\x1b" not in out and "\x07" not in out and "\r" not in out, args
        assert BIDI not in out, args
    out = invoke("inspect", "--full", str(conv)).output
    assert "\\x1b]0;pwned-title\\x07" in out and "\\x1b[2J" in out and "\\r\\x1b[K" in out
    assert "\\u202e" in out
    assert "\\x1b]52;c;" in invoke("ls", str(conv)).output
