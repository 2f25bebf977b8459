"""Two conversations side by side, aligned by user turn and step, differences marked.

A conversation is cut into turns at each user message (events before the first one are turn
0). Within a turn, each tool call (with its result) or agent message is a step. Turns are
paired by number; the steps of paired turns are aligned with difflib's `SequenceMatcher` over
their tool names (so the same sequence of tools lines up even when arguments differ), and each
aligned row is marked: `same`, `changed` (same tool, other arguments or another outcome), or
`only` (a step one side has and the other has not). The header compares the totals.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from trajkit.views.entries import Entry, iter_entries, seconds_between, usage_by_response
from trajkit.views.load import LoadedConversation
from trajkit.views.page import asset, content_security_policy, new_nonce
from trajkit.views.summary import conversation_totals

__all__ = ["Step", "Turn", "compare_to_html", "split_turns"]

_DETAIL = 300
"""Characters of a step's detail (command, arguments, message) shown."""


@dataclass
class Step:
    """A tool call and its result, or an agent message."""

    kind: str
    """The tool name, or `message`."""
    detail: str
    """The command, the arguments or the message text."""
    index: int
    """Position of the call or message (links into the report)."""
    outcome: str = ""
    """`ok`, `error`, `exit N` or `` for messages and calls without a result."""


@dataclass
class Turn:
    """A user message and the steps that followed it."""

    user: str
    steps: list[Step] = field(default_factory=list)


def split_turns(entries: list[Entry]) -> list[Turn]:
    """Turns and steps of a conversation's entries (see the module docstring)."""
    turns = [Turn(user="")]
    by_call: dict[str, Step] = {}
    for e in entries:
        if e.role == "user":
            turns.append(Turn(user=e.text))
        elif e.role == "action":
            detail = e.code[0].text if e.code and e.code[0].text else (e.args or "")
            step = Step(kind=e.tool or "?", detail=detail.strip(), index=e.index)
            turns[-1].steps.append(step)
            if e.call_id:
                by_call[e.call_id] = step
        elif e.role == "agent":
            turns[-1].steps.append(Step(kind="message", detail=e.text.strip(), index=e.index))
        elif e.call_id in by_call:
            step = by_call[e.call_id or ""]
            if e.exit_code not in (None, 0):
                step.outcome = f"exit {e.exit_code}"
            else:
                step.outcome = "error" if e.error else "ok"
    if not turns[0].steps:
        turns.pop(0)
    return turns


def _entries(loaded: LoadedConversation) -> list[Entry]:
    """The entries, without what a comparison never shows (tool results' text, reasoning), so
    two long conversations are not held whole (their events are read one at a time).
    """
    out = []
    for e in iter_entries(loaded.iter_items(), usage_by_response(loaded.state)):
        if e.role not in ("user", "agent", "action"):
            e.text, e.code, e.args, e.raw = "", [], None, None
        e.reasoning, e.images = "", []
        out.append(e)
    return out


def compare_to_html(
    a: LoadedConversation,
    b: LoadedConversation,
    *,
    links: tuple[str, str] = ("", ""),
    nonce: str | None = None,
) -> str:
    """The comparison page; `links` are the two reports' URLs (steps link to `#e<index>`)."""
    nonce = nonce or new_nonce()
    ea = _entries(a)
    eb = ea if b is a else _entries(b)  # a conversation with itself: read once
    ta, tb = split_turns(ea), split_turns(eb)
    esc = html.escape
    out = [
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(nonce)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        '<meta name="referrer" content="no-referrer">\n',
        f"<title>trajkit · compare {esc(a.id[:8])} / {esc(b.id[:8])}</title>\n",
        f'<style nonce="{nonce}">\n{asset("theme.css")}\n{asset("compare.css")}\n</style>\n',
        '</head>\n<body>\n<header id="top"><h1><a class="back" href="/">← all conversations</a> '
        "Compare</h1>\n",
        _totals(a, b, ea, eb, links),
        "</header>\n<main>\n",
    ]
    n_diff = 0
    first_turn = len(out)
    for n in range(max(len(ta), len(tb))):
        left = ta[n] if n < len(ta) else None
        right = tb[n] if n < len(tb) else None
        rows, changed = _align(left, right, links)
        n_diff += changed
        user_a, user_b = (left.user if left else ""), (right.user if right else "")
        same_user = user_a == user_b
        flag = "" if same_user else ' <span class="flag">different user messages</span>'
        cls = "side" if same_user else "side changed"
        out.append(
            f'<section class="turn" id="turn-{n}"><h2>Turn {n + 1}{flag}</h2>'
            f'<div class="pair user"><div class="{cls}"><pre>{esc(user_a[:_DETAIL])}</pre></div>'
            f'<div class="{cls}"><pre>{esc(user_b[:_DETAIL])}</pre></div></div>'
            + "".join(rows)
            + "</section>\n"
        )
    out.insert(
        first_turn,
        f'<p id="diff-count" class="summary">{n_diff} '
        f"{'step differs' if n_diff == 1 else 'steps differ'} · turns: {len(ta)} / {len(tb)}</p>\n",
    )
    out.append("</main>\n</body>\n</html>\n")
    return "".join(out)


def _align(left: Turn | None, right: Turn | None, links: tuple[str, str]) -> tuple[list[str], int]:
    sa = left.steps if left else []
    sb = right.steps if right else []
    matcher = SequenceMatcher(a=[s.kind for s in sa], b=[s.kind for s in sb], autojunk=False)
    rows: list[str] = []
    changed = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        pairs: list[tuple[Step | None, Step | None]]
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            pairs = list(zip(sa[i1:i2], sb[j1:j2], strict=True))
        else:
            pairs = [(s, None) for s in sa[i1:i2]] + [(None, s) for s in sb[j1:j2]]
        for x, y in pairs:
            mark = _mark(x, y)
            changed += mark != "same"
            rows.append(
                f'<div class="pair step {mark}">{_side(x, y, links[0])}{_side(y, x, links[1])}</div>'
            )
    return rows, changed


def _mark(x: Step | None, y: Step | None) -> str:
    if x is None or y is None:
        return "only"
    if x.kind == y.kind and x.detail == y.detail and x.outcome == y.outcome:
        return "same"
    return "changed"


def _side(step: Step | None, other: Step | None, link: str) -> str:
    esc = html.escape
    if step is None:
        return '<div class="side missing">—</div>'
    classes = ["side"]
    outcome = ""
    if step.outcome:
        bad = step.outcome != "ok"
        differs = other is not None and other.outcome != step.outcome
        outcome = (
            f'<span class="outcome {"bad" if bad else "ok"}{" differs" if differs else ""}">'
            f"{esc(step.outcome)}</span>"
        )
    kind_differs = other is not None and other.kind != step.kind
    detail_differs = other is not None and other.detail != step.detail
    href = f"{link}#e{step.index}" if link else f"#e{step.index}"
    return (
        f'<div class="{" ".join(classes)}"><div class="head"><a href="{esc(href)}">#{step.index}</a> '
        f'<b class="{"differs" if kind_differs else ""}">{esc(step.kind)}</b> {outcome}</div>'
        f'<pre class="{"differs" if detail_differs else ""}">{esc(step.detail[:_DETAIL])}</pre></div>'
    )


def _totals(
    a: LoadedConversation,
    b: LoadedConversation,
    ea: list[Entry],
    eb: list[Entry],
    links: tuple[str, str],
) -> str:
    def facts(c: LoadedConversation, entries: list[Entry]) -> dict[str, str]:
        t = conversation_totals(c.state)
        times = [e.time for e in entries if e.time]
        duration = seconds_between(min(times), max(times)) if times else None
        return {
            "model": t.model or "?",
            "status": t.status or "?",
            "events": f"{c.total_events:,}",
            "tool calls": str(sum(1 for e in entries if e.role == "action")),
            "errors": str(sum(1 for e in entries if e.error)),
            "tokens": f"{t.prompt_tokens + t.completion_tokens:,}",
            "cost": f"${t.cost:.4f}" if t.cost is not None else "?",
            "duration": f"{duration:.1f} s" if duration is not None else "?",
            "outcome": c.outcome or "—",
        }

    fa, fb = facts(a, ea), facts(b, eb)
    esc = html.escape
    head = "".join(
        f'<th><a href="{esc(link)}">{esc(c.id)}</a></th>'
        for c, link in ((a, links[0]), (b, links[1]))
    )
    body = "".join(
        f'<tr class="{"" if fa[k] == fb[k] else "changed"}"><td>{esc(k)}</td>'
        f"<td>{esc(fa[k])}</td><td>{esc(fb[k])}</td></tr>"
        for k in fa
    )
    return f'<table class="totals"><tr><th></th>{head}</tr>{body}</table>\n'
