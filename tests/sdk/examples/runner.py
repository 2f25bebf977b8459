"""Run one of the SDK's standalone examples against the scripted loopback server and snapshot it.

Only the standard library and ``tests.support.llm_server``: the same code records on
openhands-sdk 1.58.2 (``record_sdk.py``, the example run by the SDK venv's interpreter) and
tests trajkit (``test_examples.py``, the example run by this venv's interpreter with its import
lines renamed). The example runs unmodified otherwise, in a temporary copy, as a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.sdk.examples.scripts import API_KEY, Example
from tests.sdk.parity.snapshot import AUXILIARY, SYSTEM, Ids
from tests.support.llm_server import ScriptedLLMServer

REPO = Path(__file__).resolve().parents[3]
SHARED = next(
    (p for p in (REPO.parent / "shared", REPO.parents[1] / "shared") if p.is_dir()),
    REPO.parent / "shared",
)
SOURCE = SHARED / "sdk-examples" / "01_standalone_sdk"
"""The SDK's examples, never copied into the project (tests skip when it is absent)."""

_IMPORT = re.compile(r"^(\s*(?:from|import)\s+)openhands\.(sdk|tools)\b", re.MULTILINE)
_TIMES = [
    re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"),
    re.compile(r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b"),
    re.compile(r"\b[A-Z][a-z]{2} +\d{1,2} +\d{2}:\d{2}\b"),  # ls -l dates
    re.compile(r"\b\d+(\.\d+)?\s?(ms|s|sec|seconds)\b"),
    # a printed metrics dict: when each cost was counted, how long each response took
    re.compile(r"(?<=['\"]timestamp['\"]: )\d+(\.\d+)?|(?<=['\"]latency['\"]: )\d+(\.\d+)?"),
]
_PORT = re.compile(r"127\.0\.0\.1:\d+")
_RANDOM = re.compile(r"((?:^|<work>/)tmp/[A-Za-z_.-]+?)[a-z0-9_]{8}(?=[^a-z0-9_]|$)")
"""The random part of a folder made by ``tempfile.mkdtemp`` in TMPDIR."""
_PID = re.compile(r"\b(pid|PID)[ =:]+\d+")


def rename_imports(text: str) -> str:
    """The issue's two renames, on import lines only."""
    return _IMPORT.sub(lambda m: f"{m.group(1)}trajkit.{m.group(2)}", text)


class Normalizer:
    """Ids, times, paths and the server's port replaced by markers."""

    def __init__(self, work: Path, source: str | None = None) -> None:
        self.ids = Ids({str(work.resolve()): "<work>", str(work): "<work>"})
        self.source = source
        """The example's own code: user texts not from it are the runtime's wording."""

    def __call__(self, text: str) -> str:
        text = _PORT.sub("<server>", self.ids(text))
        text = _RANDOM.sub(r"\1<random>", text)
        for pattern in _TIMES:
            text = pattern.sub("<time>", text)
        return _PID.sub("<pid>", text)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if not isinstance(part, dict):
            continue
        if "text" in part:
            parts.append(str(part["text"]))
        elif part.get("type") in ("image_url", "input_image"):
            parts.append("<image>")
    return "\n".join(parts)


def _params(schema: Any) -> list[str]:
    props = (schema or {}).get("properties") if isinstance(schema, dict) else None
    return sorted(props or {})


def _tool(t: dict[str, Any]) -> dict[str, Any]:
    fn = t.get("function", t)
    return {"name": fn.get("name"), "params": _params(fn.get("parameters"))}


def _call(name: Any, arguments: Any) -> dict[str, Any]:
    import json

    try:
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        args = None
    return {"name": name, "args": sorted(args) if isinstance(args, dict) else arguments}


_SIDE_QUESTION = ("<QUESTION>", "Answer this side question")
"""How the SDK's and trajkit's ``ask_agent`` open the question they append (with the tools
offered): that message is wording, compared as a marker."""


RUNTIME_TEXT = "<runtime text>"


def _wording(text: str, aux: bool, role: str | None = None, source: str | None = None) -> str:
    """``text`` as compared: a marker for wording that is the runtime's, not the example's
    (the side question; a user message whose first line is not in the example's source, such
    as a hook's or a goal loop's prompt)."""
    if aux or text.startswith(_SIDE_QUESTION):
        return AUXILIARY
    if role == "user" and source is not None:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if first and not first.startswith("<") and first[:30] not in source:
            return RUNTIME_TEXT
    return text


def _chat_messages(body: dict[str, Any], norm: Normalizer, aux: bool) -> list[dict[str, Any]]:
    out = []
    for i, m in enumerate(body.get("messages") or []):
        role = m.get("role")
        text = _wording(_text_of(m.get("content")), aux, role, norm.source)
        if role in ("system", "developer") or i == 0 and role != "user":
            text = SYSTEM
        item: dict[str, Any] = {"role": role, "text": norm(text)}
        calls = m.get("tool_calls") or []
        if calls:
            item["tool_calls"] = [
                _call(c["function"]["name"], c["function"].get("arguments")) for c in calls
            ]
        out.append(item)
    return out


def _responses_input(body: dict[str, Any], norm: Normalizer, aux: bool) -> list[dict[str, Any]]:
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    out = []
    for it in items or []:
        kind = it.get("type", "message")
        if kind == "message":
            text = _wording(_text_of(it.get("content")), aux, it.get("role"), norm.source)
            out.append({"role": it.get("role"), "text": norm(text)})
        elif kind == "function_call":
            out.append({"role": "assistant", "tool_calls": [_call(it["name"], it["arguments"])]})
        elif kind == "function_call_output":
            out.append({"role": "tool", "text": norm(_text_of(it.get("output")))})
        else:
            out.append({"role": kind})
    return out


def normalize_request(body: Any, endpoint: str, norm: Normalizer) -> dict[str, Any]:
    """Count, roles, texts, tool calls, tool names and parameter names of one request."""
    if not isinstance(body, dict):
        return {"endpoint": endpoint, "body": "<not json>"}
    aux = not body.get("tools")  # a title/question/condenser call: its prompt is wording
    messages = (
        _responses_input(body, norm, aux)
        if endpoint == "responses"
        else _chat_messages(body, norm, aux)
    )
    return {
        "endpoint": endpoint,
        "messages": messages,
        "tools": [_tool(t) for t in body.get("tools") or []],
    }


def _files(work: Path, skip: set[Path]) -> list[Path]:
    return sorted(p for p in work.rglob("*") if p.is_file() and p not in skip)


_CACHE = re.compile(
    r"home/(\.openhands/cache/|\.cache/|\.npm/|\.config/browseruse/|\.bash_history$)"
    r"|tmp/oh_editor_history_"
)
"""Not the run's files: caches in HOME (the SDK's compiled templates, npm's and uv's for MCP
servers), the config browser-use writes when the SDK imports it, the SDK editor's undo
history, and bash's own history file (the SDK's terminal shell saves it when it exits; trajkit's
is killed and saves none)."""


def snapshot_files(work: Path, skip: set[Path], norm: Normalizer) -> dict[str, Any]:
    """Every file the run left (paths normalised) and each conversation folder's essentials."""
    import json

    files = _files(work, skip)
    conversations = []
    found = []
    for base in (p for p in files if p.name == "base_state.json"):
        folder = base.parent
        names = sorted(p.name for p in (folder / "events").glob("event-*.json"))
        events = [json.loads((folder / "events" / n).read_text()) for n in names]
        first = events[0].get("timestamp", "") if events else ""
        found.append((first, str(base), base, [e.get("kind") for e in events]))
    # oldest conversation first (folder names are random ids)
    for _, _, base, kinds in sorted(found):
        folder = base.parent
        try:
            state = json.loads(base.read_text())
        except ValueError:
            state = {}
        conversations.append(
            {
                "folder": norm(str(folder.relative_to(work))),
                "event_kinds": kinds,
                "base_state_keys": sorted(state),
            }
        )
    # Caches a library keeps in HOME (the SDK's compiled jinja templates) are not the run's.
    paths = [
        norm(str(p.relative_to(work))) for p in files if not _CACHE.match(str(p.relative_to(work)))
    ]
    # Event files are compared as kinds in order; their names carry ids and counters.
    paths = sorted({re.sub(r"event-\d+-<id\d+>\.json$", "event-N.json", p) for p in paths})
    return {"paths": paths, "conversations": conversations}


_SYSTEM_PRINTED = re.compile(r"(role='system'|SystemPromptEvent:?)\s.*")
"""A printed system message or event (examples print the messages): its wording is not part of
the comparison (and the SDK's prompt is not copied into the recordings)."""
_TITLE = re.compile(r"^(?:\u256d\u2500 )?(\S.*?) \u2500{3,}")
MARK = "\x02"  # not a line break for str.splitlines (\x1e is)
SITECUSTOMIZE = f"""
import builtins, io, sys
_print = builtins.print
def _marked(*args, sep=" ", end="\\n", file=None, flush=False):
    if file is not None and file is not sys.stdout:
        return _print(*args, sep=sep, end=end, file=file, flush=flush)
    buf = io.StringIO()
    _print(*args, sep=sep, end=end, file=buf)
    lines = buf.getvalue().splitlines(True)
    _print("".join({MARK!r} + line for line in lines), end="", flush=flush)
builtins.print = _marked
"""
"""Loaded by the example's interpreter: marks each line the example prints with ``print``, so
its own lines are told apart from the console visualizer's (which writes through rich)."""


def normalize_lines(text: str, norm: Normalizer) -> list[str]:
    """The example's own printed lines, normalised, and the title of each block the console
    visualizer drew (its layout and the system prompt's wording are not compared)."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith(MARK):
            # normalised first: ids are numbered as they appear, the prompt's included
            line = _SYSTEM_PRINTED.sub(r"\1 <system prompt>", norm(line.replace(MARK, ""))).rstrip()
            if line.strip():
                out.append(line)
        elif title := _TITLE.match(line):
            out.append(f"[{norm(title.group(1))}]")
    return out


def _install(example: Example, work: Path, *, rename: bool) -> tuple[Path, set[Path]]:
    src = SOURCE / example.path
    dest = work / "example"
    if src.is_dir():
        shutil.copytree(src, dest)
        script = dest / "main.py"
    else:
        dest.mkdir()
        script = dest / src.name
        shutil.copy2(src, script)
    for py in dest.rglob("*.py"):
        if rename:
            py.write_text(rename_imports(py.read_text()))
    return script, set(_files(work, set()))  # all but these are the run's files


def run_example(example: Example, python: str, work: Path, *, rename: bool) -> dict[str, Any]:
    """Run ``example`` with ``python`` under ``work``; return its comparable snapshot and the
    raw stdout/stderr (``raw``), which tests search for secrets."""
    script, copied = _install(example, work, rename=rename)
    cwd = work / "cwd"
    home = work / "home"
    tmp = work / "tmp"
    hook = work / "hook"
    for d in (cwd, home, tmp, hook):
        d.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    copied.add(hook / "sitecustomize.py")
    with ScriptedLLMServer(default=example.default) as server:
        server.enqueue(*example.replies(cwd))
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "COLUMNS": "100",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OPENHANDS_SUPPRESS_BANNER": "1",
            "LLM_API_KEY": API_KEY,
            "LLM_BASE_URL": server.base_url,
            "LLM_MODEL": example.model,
            **example.env,
        }
        # trajkit from this checkout, as the test process imports it
        env["PYTHONPATH"] = f"{hook}:{REPO}" if rename else str(hook)
        started = time.monotonic()
        try:
            proc = subprocess.run(
                [python, str(script)],
                cwd=cwd,
                env=env,
                input=example.stdin,
                capture_output=True,
                text=True,
                timeout=example.timeout,
                start_new_session=True,
            )
            status: int | str = proc.returncode
            out, err = proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            status = "timeout"
            out = _decode(exc.stdout)
            err = _decode(exc.stderr)
        seconds = round(time.monotonic() - started, 1)
        src = SOURCE / example.path
        code = sorted(src.rglob("*.py")) if src.is_dir() else [src]
        norm = Normalizer(work, "\n".join(p.read_text() for p in code))
        requests = [normalize_request(r.body, r.endpoint, norm) for r in server.requests]
    return {
        "exit": status,
        "requests": requests,
        "files": snapshot_files(work, copied, norm),
        "stdout": normalize_lines(out, norm),
        "raw": {"stdout": out, "stderr": err, "seconds": seconds},
    }


def _decode(data: bytes | str | None) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data or ""


__all__ = ["SOURCE", "first_difference", "run_example"]


def first_difference(got: dict[str, Any], want: dict[str, Any]) -> str | None:
    """What first differs between a trajkit run and the SDK's recording, in the order a
    reader would check (exit, requests, files, printed lines), or None when they agree."""
    got, want = _machine_free(got), _machine_free(want)
    if got["exit"] != want["exit"]:
        tail = got.get("raw", {}).get("stderr", "").strip().splitlines()[-1:]
        return f"exit {got['exit']} (SDK {want['exit']}): {' '.join(tail)}"
    mine, theirs = got["requests"], want["requests"]
    if len(mine) != len(theirs):
        return f"{len(mine)} requests (SDK {len(theirs)})"
    for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        if a != b:
            return f"request {i + 1} differs: {_diff(a, b)}"
    for key in ("conversations", "paths"):
        if got["files"][key] != want["files"][key]:
            return f"files ({key}): {_diff(got['files'][key], want['files'][key])}"
    if got["stdout"] != want["stdout"]:
        return f"printed lines: {_diff(got['stdout'], want['stdout'])}"
    return None


_INTERPRETER = re.compile(r"(\[Python interpreter: )[^\]\\\"]*(\])")
"""The terminal tool names the shell's `python`: whatever PATH this machine gives (a venv, pyenv)."""


def _machine_free(data: dict[str, Any]) -> dict[str, Any]:
    """The run with what depends on this machine, not on the runtime, replaced by markers."""
    return json.loads(_INTERPRETER.sub(r"\1<python>\2", json.dumps(data)))  # type: ignore[no-any-return]


def _diff(a: Any, b: Any) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return f"{k}: {_diff(a.get(k), b.get(k))}"
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return f"[{i}] {_diff(x, y)}"
        if len(a) != len(b):
            extra = a[len(b) :] or b[len(a) :]
            return f"{len(a)} items (SDK {len(b)}), first extra {str(extra[0])[:150]!r}"
    return f"{str(a)[:150]!r} (SDK {str(b)[:150]!r})"
