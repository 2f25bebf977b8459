"""Names and links from input never make trajkit read or write outside the folders it was given.

Each hostile input goes through the store, validate, convert, inspect, repair, export and
migrate: `../` and absolute event ids, an event file (or `events/`, or `base_state.json`) that
is a symlink leading outside the conversation, sidecar names planted as links to outside files,
a conversation folder linked from outside the persistence dir, V0 `instance_id`s with `../`.
The outside file holds a marker; it must never show up in any output, and never change.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

import pytest

from tests.support.cli import invoke
from trajkit.errors import UnsafePath
from trajkit.events import Message, MessageEvent, TextContent
from trajkit.store import ConversationWriter, open_conversation
from trajkit.store.layout import length_marker_name

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MARKER = "OUTSIDE-MARKER-7f3a9c"


def _tree(root: Path, *, skip: Path | None = None) -> dict[str, tuple[int, int]]:
    """Every path below root (links not followed) with size and mtime."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if skip is not None and (p == skip or skip in p.parents):
                continue
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def conv(tmp_path: Path) -> Path:
    src = next((FIXTURES / "sdk" / "a_text").glob("[0-9a-f]" * 32))
    dst = tmp_path / "corpus" / src.name
    shutil.copytree(src, dst)
    return dst


def _outside_event(tmp_path: Path, conv: Path) -> tuple[Path, Path]:
    """Replace the user message file by a link to a marked copy outside the conversation."""
    link = next(
        p for p in sorted((conv / "events").glob("event-*.json")) if b'"user"' in p.read_bytes()
    )
    data = json.loads(link.read_text())
    data["llm_message"]["content"][0]["text"] = MARKER
    outside = tmp_path / "outside" / "stolen.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps(data))
    link.unlink()
    link.symlink_to(outside)
    return link, outside


def test_event_file_linked_outside_is_refused_everywhere(tmp_path: Path, conv: Path) -> None:
    link, outside = _outside_event(tmp_path, conv)
    before = outside.read_bytes()

    with pytest.raises(UnsafePath, match="outside the conversation folder"):
        list(open_conversation(conv).iter_events())
    ef = next(f for f in open_conversation(conv).event_files() if f.path == link)
    assert ef.outside == outside
    with pytest.raises(UnsafePath):
        ef.read_bytes()

    v = invoke("validate", str(conv))
    assert v.exit_code == 1
    assert f"symlink to {outside}, outside the conversation folder" in v.output
    assert MARKER not in v.output

    for args in (["convert", str(conv)], ["inspect", str(conv)], ["view", str(conv)]):
        r = invoke(*args, *(["-o", str(tmp_path / "view.html")] if args[0] == "view" else []))
        assert MARKER not in r.output, args
        assert r.exit_code != 0, (args, r.output)
    assert (
        not (tmp_path / "view.html").exists() or MARKER not in (tmp_path / "view.html").read_text()
    )

    out = tmp_path / "export"
    e = invoke("export", str(conv), "-o", str(out))
    assert e.exit_code == 1 and "outside the conversation folder" in e.output
    for f in out.rglob("*"):
        if f.is_file():
            assert MARKER.encode() not in f.read_bytes(), f
    if any(out.rglob("*.parquet")):
        import pyarrow.parquet as pq

        for f in out.rglob("*.parquet"):
            assert MARKER not in json.dumps(pq.read_table(f).to_pylist(), default=str)

    r = invoke("repair", str(conv))
    assert "did quarantine" in r.output and "index gap" in r.output  # explained, not renumbered
    assert (conv / "quarantine" / link.name).is_symlink()  # the link moved, not the target
    assert outside.read_bytes() == before


def test_link_inside_the_conversation_is_read(conv: Path) -> None:
    files = sorted((conv / "events").glob("event-*.json"))
    copy = conv / "kept" / files[-1].name
    copy.parent.mkdir()
    shutil.move(files[-1], copy)
    files[-1].symlink_to(Path("..") / "kept" / copy.name)
    assert len(list(open_conversation(conv).iter_events())) == len(files)
    assert invoke("validate", str(conv)).exit_code == 0


def test_conversation_folder_linked_from_outside_the_path_follows_the_one_symlink_rule(
    tmp_path: Path, conv: Path
) -> None:
    # Issue 30's one rule for every command (serve's): a conversation folder below PATH that
    # links outside PATH is refused with one line naming it; the link named as PATH is read.
    linked = tmp_path / "elsewhere" / conv.name
    linked.parent.mkdir()
    linked.symlink_to(conv)
    assert len(list(open_conversation(linked).iter_events())) == 3
    below = invoke("validate", str(tmp_path / "elsewhere"))
    assert below.exit_code == 1
    assert f"symlink to {conv.resolve()}" in below.output
    assert invoke("validate", str(linked)).exit_code == 0


def test_events_folder_linked_outside_is_refused(tmp_path: Path, conv: Path) -> None:
    outside = tmp_path / "outside-events"
    shutil.move(conv / "events", outside)
    (conv / "events").symlink_to(outside)
    with pytest.raises(UnsafePath):
        list(open_conversation(conv).iter_events())
    v = invoke("validate", str(conv))
    assert v.exit_code == 1 and "outside the conversation folder" in v.output
    event = MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text="x")])
    )
    before = _tree(outside)
    with pytest.raises(UnsafePath):
        ConversationWriter(conv).append(event)
    assert _tree(outside) == before


def test_base_state_linked_outside_is_refused(tmp_path: Path, conv: Path) -> None:
    outside = tmp_path / "outside-state.json"
    state = json.loads((conv / "base_state.json").read_text())
    state["tags"] = {"note": MARKER}
    outside.write_text(json.dumps(state))
    (conv / "base_state.json").unlink()
    (conv / "base_state.json").symlink_to(outside)
    with pytest.raises(UnsafePath):
        open_conversation(conv).base_state()
    v = invoke("validate", str(conv))
    assert v.exit_code == 1 and "outside the conversation folder" in v.output
    assert MARKER not in invoke("inspect", str(conv)).output
    r = invoke("repair", str(conv))
    assert "outside the conversation" in r.output
    assert MARKER in outside.read_text()  # untouched


def test_sidecar_names_planted_as_links_never_write_through(tmp_path: Path, conv: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    events = conv / "events"
    n = len(list(events.glob("event-*.json")))
    lock = events / ".eventlog.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    event = MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text="0")])
    )
    with pytest.raises(UnsafePath, match="lock file is a symlink"):
        ConversationWriter(conv).append(event)
    assert victim.read_text() == "precious\n"
    lock.unlink()
    # A marker name planted while a writer runs (after its rescan) is the one it creates next.
    writer = ConversationWriter(conv)
    writer.append(event)
    (events / length_marker_name(n + 2)).symlink_to(victim)
    writer.append(
        MessageEvent(
            source="user", llm_message=Message(role="user", content=[TextContent(text="1")])
        )
    )
    assert victim.read_text() == "precious\n"
    assert not (events / length_marker_name(n + 2)).is_symlink()


@pytest.mark.parametrize(
    "event_id", ["../../escape", "/etc/passwd", "..", "a/b", "abcdef12\\..\\x", "abcdef12\x00"]
)
def test_event_ids_that_would_escape_are_refused(tmp_path: Path, conv: Path, event_id: str) -> None:
    before = _tree(tmp_path)
    with pytest.raises(UnsafePath):
        ConversationWriter(conv).append_json(event_id, json.dumps({"id": event_id}))
    assert _tree(tmp_path) == before


def test_ids_in_content_never_name_a_path(tmp_path: Path, conv: Path) -> None:
    # The id inside a file is data: validate reports the mismatch, repair renames nothing.
    f = sorted((conv / "events").glob("event-*.json"))[-1]
    data = json.loads(f.read_text())
    data["id"] = "../../../../tmp/escape"
    f.write_text(json.dumps(data))
    state = json.loads((conv / "base_state.json").read_text())
    state["id"] = "../../../../tmp/escape-conversation"
    (conv / "base_state.json").write_text(json.dumps(state))
    before = _tree(tmp_path, skip=conv)
    assert invoke("validate", str(conv)).exit_code == 1
    invoke("repair", str(conv))
    invoke("export", str(conv), "-o", str(tmp_path / "out"))
    invoke("convert", str(conv), "-o", str(tmp_path / "c.json"))
    after = _tree(tmp_path, skip=conv)
    assert {k for k in after if not k.startswith(("out", "c.json"))} == set(before)
    assert not Path("/tmp/escape").exists()
    assert not Path("/tmp/escape-conversation").exists()


def test_runtime_refuses_unsafe_ids_and_linked_folders(tmp_path: Path) -> None:
    from trajkit.sdk import LLM, Agent, Conversation

    agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
    for cid in ("../../x", "/etc", "..", "x" * 32):
        with pytest.raises(UnsafePath):
            Conversation(
                agent=agent,
                workspace=tmp_path / "ws",
                persistence_dir=tmp_path / "p",
                conversation_id=cid,
            )
    cid = uuid.uuid4()
    (tmp_path / "p").mkdir(exist_ok=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "p" / cid.hex).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafePath, match="outside"):
        Conversation(
            agent=agent,
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "p",
            conversation_id=cid,
        )
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_v0_instance_ids_with_dot_dot_stay_in_the_output(tmp_path: Path) -> None:
    lines = (FIXTURES / "v0-synthetic" / "eval_output.jsonl").read_text().splitlines()
    hostile = ["../../../escape", "/abs/escape", "..", "a/../../b", "x\\..\\..\\y", ""]
    records = []
    for i, instance_id in enumerate(hostile):
        record = json.loads(lines[i % len(lines)])
        record["instance_id"] = instance_id
        records.append(json.dumps(record))
    src = tmp_path / "in" / "output.jsonl"
    src.parent.mkdir()
    src.write_text("\n".join(records) + "\n")
    out = tmp_path / "deep" / "out"
    before = _tree(tmp_path)
    r = invoke("migrate", str(src), "-o", str(out))
    assert r.exit_code in (0, 1), r.output
    after = _tree(tmp_path)
    new = {k for k in after if k not in before}
    assert new and all(k == "deep" or k.startswith(("deep/out",)) for k in new), sorted(new)
    folders = [p.name for p in out.iterdir() if p.is_dir()]
    assert folders and all(len(n) == 32 and int(n, 16) >= 0 for n in folders)
    assert not (tmp_path / "escape").exists() and not Path("/abs").exists()
    # the migrated folders are valid, and exporting them names files by the export only
    assert invoke("validate", str(out)).exit_code == 0
    e = invoke("export", str(out), "-o", str(tmp_path / "deep" / "ds"))
    assert e.exit_code == 0, e.output
    assert all(
        (tmp_path / "deep" / "ds") in p.parents for p in (tmp_path / "deep" / "ds").rglob("*")
    )
