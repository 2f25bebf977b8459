"""Issue 30, Low list (inputs): a conversation folder named `<hex>\\n` and an `output.jsonl`
nested too deeply give an answer or one line per command, never a traceback. Real files."""

from __future__ import annotations

import json
import os
import shutil
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.conftest import copy_fixture, invoke, tree
from tests.support.value_server import value_server


def test_a_conversation_folder_named_hex_and_a_newline(tmp_path: Path) -> None:
    """`$` matched before the final newline: the name passed as a UUID hex, and uuid.UUID
    raised ValueError in ls, stats and convert."""
    src = copy_fixture(tmp_path)
    corpus = tmp_path / "odd"
    corpus.mkdir()
    shutil.move(src, corpus / f"{src.name}\n")
    for args in (["ls", str(corpus)], ["stats", str(corpus)], ["validate", str(corpus)]):
        r = invoke(*args)
        assert r.exit_code == 0, (args, r.output)
        assert "ValueError" not in r.output
    listed = invoke("ls", str(corpus))
    assert str(uuid.UUID(hex=src.name)) in listed.output  # the id base_state.json gives


def _deep_record(depth: int) -> str:
    record = {"instance_id": "deep", "instruction": "x", "history": [], "metadata": 0}
    return json.dumps(record).replace('"metadata": 0', '"metadata": ' + "[" * depth + "]" * depth)


@pytest.mark.parametrize("command", ["ls", "stats", "validate", "convert", "inspect"])
def test_a_deeply_nested_output_jsonl_is_one_line(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "eval"
    folder.mkdir()
    path = folder / "output.jsonl"
    path.write_text(_deep_record(100_000) + "\n")
    before = path.read_bytes()
    r = invoke(command, str(folder if command in ("ls", "stats", "validate") else path))
    assert "RecursionError" not in r.output and "Traceback" not in r.output, r.output[-2000:]
    assert r.exit_code in (0, 1), r.output[-2000:]
    if command in ("ls", "stats"):
        lines = [line for line in r.output.splitlines() if "output.jsonl" in line]
        assert lines and all("nested too deeply" in line for line in lines), r.output[-2000:]
    assert path.read_bytes() == before


# A key used as a JSON field name (issue 30, medium 5): error lines show where, never the key.
FIELD_KEYS = (
    "sk-proj-" + "Zq8xT2mN4vB6cR1wY3uP9sK5jH7gF0dL",  # invented, as tests/export's FAKE_KEY
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0cmFqa2l0LXRlc3QifQ.Zm9yZ2VkLXNpZ25hdHVyZS0xMjM0",
)


@pytest.mark.parametrize("command", ["validate", "convert", "inspect", "ls", "stats"])
def test_a_key_used_as_a_field_name_is_masked_in_error_lines(tmp_path: Path, command: str) -> None:
    conv = copy_fixture(tmp_path)
    for path in sorted((conv / "events").glob("event-*.json")):
        data = json.loads(path.read_text())
        if data.get("kind") == "ActionEvent":
            data["action"].update(dict.fromkeys(FIELD_KEYS, 1))
            path.write_text(json.dumps(data))
            break
    target = conv if command in ("convert", "inspect") else conv.parent
    r = invoke(command, str(target))
    assert not [k for k in FIELD_KEYS if k in r.output or k[8:30] in r.output], r.output[-3000:]
    if command in ("validate", "convert", "inspect"):
        assert "/action/**********" in r.output, r.output[-3000:]  # still says where


def test_a_folder_symlink_leading_outside_the_path_is_refused_by_every_command(
    tmp_path: Path,
) -> None:
    """One rule for ls, stats, convert and the static site, as serve has: a conversation folder
    reached through a symlink that leads outside the PATH given is not read, and one line names
    it (on 8bb7cc8 ls, stats, convert and the site read it)."""
    inside = copy_fixture(tmp_path)  # tmp_path/corpus/<id>
    elsewhere = copy_fixture(tmp_path / "elsewhere", "a_text")
    link = inside.parent / "link"
    link.symlink_to(elsewhere, target_is_directory=True)
    outside_id = str(uuid.UUID(hex=elsewhere.name))
    for args in (
        ["ls", str(inside.parent)],
        ["stats", str(inside.parent), "--json"],
        ["convert", str(inside.parent), "-o", str(tmp_path / "out.jsonl")],
        ["view", str(inside.parent), "-o", str(tmp_path / "site")],
    ):
        r = invoke(*args)
        assert r.exit_code == 1, (args, r.output)
        named = [line for line in r.stderr.splitlines() if f"{link}: symlink to" in line]
        assert len(named) == 1 and "outside" in named[0], (args, r.stderr)
        assert outside_id not in r.stdout, args
    assert outside_id not in (tmp_path / "out.jsonl").read_text()
    inner = inside.parent / "inner"  # a link that stays inside the PATH is followed
    inner.symlink_to(inside, target_is_directory=True)
    assert invoke("ls", str(inner)).exit_code == 0


@pytest.mark.parametrize("scheme", ["file", "FILE", "ftp"])
def test_a_lookup_secret_reads_no_local_file(tmp_path: Path, scheme: str) -> None:
    """A `LookupSecret` in a folder from someone else named `file:///…`, and resuming it read
    that file into the agent's environment (8bb7cc8): only http(s) is fetched now."""
    from trajkit.sdk.secret.secrets import LookupSecret, SecretError, SecretRegistry

    private = tmp_path / "private.txt"
    private.write_text("the-contents-of-a-private-file")
    url = f"{scheme}://{private}" if scheme != "ftp" else "ftp://127.0.0.1:9/x"
    registry = SecretRegistry.model_validate(
        {"secret_sources": {"TOKEN": {"kind": "LookupSecret", "url": url}}}
    )
    source = registry.secret_sources["TOKEN"]
    assert isinstance(source, LookupSecret)
    with pytest.raises(SecretError, match="only http"):
        source.get_value()
    env = registry.env_for_command("echo $TOKEN")
    assert "the-contents-of-a-private-file" not in json.dumps(env)


def test_an_archive_bomb_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A small .tar.gz whose conversation declares 80 MiB (spaces compress 1000 to 1): on
    8bb7cc8 every command read it all into memory; now each says so in one line, reads nothing."""
    import io
    import tarfile

    from trajkit.shapes.archive import BOMB_FLOOR_BYTES

    conv = copy_fixture(tmp_path)
    bomb = tmp_path / "bomb.tar.gz"
    size = BOMB_FLOOR_BYTES + 16 * 2**20
    with tarfile.open(bomb, "w:gz") as tar:
        tar.add(conv, arcname=conv.name)
        info = tarfile.TarInfo(f"{conv.name}/events/event-00099-{uuid.UUID(int=9)}.json")
        info.size = size
        tar.addfile(info, io.BytesIO(b" " * size))
    assert bomb.stat().st_size < size // 500
    for args in (["ls", str(bomb)], ["convert", str(bomb)], ["inspect", str(bomb)]):
        r = invoke(*args)
        assert r.exit_code == 1, (args, r.output)
        assert "times the archive's size: an archive bomb? not read" in r.stderr, (args, r.stderr)


def test_a_second_conversation_object_on_one_id_is_refused_while_the_first_lives(
    tmp_path: Path,
) -> None:
    """Two `Conversation` objects on one id in one process both wrote (two branches) on
    8bb7cc8; the second is refused now as a second process is, until the first is closed or
    dropped (the SDK's persistence example drops one and opens the id again at once)."""
    from trajkit.errors import ConversationLockedError
    from trajkit.sdk import LLM, Agent, Conversation

    persist, cid = tmp_path / "p", uuid.uuid4()

    def _open() -> Conversation:
        agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
        return Conversation(
            agent=agent,
            workspace=str(tmp_path / "ws"),
            persistence_dir=persist,
            conversation_id=cid,
        )

    first = _open()
    first.send_message("first")
    before = tree(persist)
    with pytest.raises(ConversationLockedError, match=r"this process \(pid \d+\)"):
        _open()
    assert tree(persist) == before  # the refused one wrote nothing
    first.send_message("still the writer")
    first.close()
    second = _open()  # closed: free
    second.send_message("second")
    del second  # dropped (held by reference cycles only): free at once
    third = _open()
    try:
        texts = [
            e.llm_message.content[0].text for e in third.state.events if hasattr(e, "llm_message")
        ]
        assert texts[-3:] == ["first", "still the writer", "second"]
    finally:
        third.close()


FETCH_RESTORED_LOOKUPS = "TRAJKIT_FETCH_RESTORED_LOOKUPS"  # the opt-in the README names


@pytest.fixture
def lookup_url() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A loopback server answering each lookup (requests counted)."""
    with value_server(b"value-from-the-lookup-url") as served:
        yield served


def test_a_resumed_lookup_secret_is_fetched_only_on_opt_in(
    tmp_path: Path, lookup_url: tuple[str, list[dict[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resuming a conversation folder from someone else fetched the URLs of its LookupSecrets
    when a command named them (8bb7cc8); now a restored lookup is not fetched, and says which
    opt-in fetches it, unless TRAJKIT_FETCH_RESTORED_LOOKUPS=1 or the secret is given again."""
    from trajkit.errors import TrajkitError
    from trajkit.sdk import LLM, Agent, Conversation, LookupSecret

    url, seen = lookup_url
    monkeypatch.delenv(FETCH_RESTORED_LOOKUPS, raising=False)
    agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
    where = {"agent": agent, "workspace": str(tmp_path / "ws"), "persistence_dir": tmp_path / "p"}
    first = Conversation(**where, secrets={"TOKEN": LookupSecret(url=url)})
    assert first.state.secret_registry.env_for_command("echo $TOKEN") == {
        "TOKEN": "value-from-the-lookup-url"
    }  # given by the user: fetched
    first.close()
    assert len(seen) == 1

    resumed = Conversation(**where, conversation_id=first.id)
    try:
        registry = resumed.state.secret_registry
        assert isinstance(registry.secret_sources["TOKEN"], LookupSecret)
        assert registry.env_for_command("echo $TOKEN") == {}
        with pytest.raises(TrajkitError, match=f"not fetched.*{FETCH_RESTORED_LOOKUPS}=1"):
            registry.get_value("TOKEN")
        assert len(seen) == 1  # no request left the process
        monkeypatch.setenv(FETCH_RESTORED_LOOKUPS, "1")
        assert registry.env_for_command("echo $TOKEN") == {"TOKEN": "value-from-the-lookup-url"}
        assert len(seen) == 2
        monkeypatch.delenv(FETCH_RESTORED_LOOKUPS)
        resumed.update_secrets({"TOKEN": LookupSecret(url=url)})  # given again: fetched
        assert registry.get_value("TOKEN") == "value-from-the-lookup-url"
        assert len(seen) == 3
    finally:
        resumed.close()


@pytest.mark.parametrize("command", ["ls", "stats", "inspect", "validate", "convert"])
def test_a_fifo_named_like_an_event_file_is_refused_by_every_command(
    tmp_path: Path, command: str
) -> None:
    """`ls` counted a FIFO named like an event file as an event and exited 0 (8bb7cc8), where
    validate and convert reject the folder: the store's listing now tells it is no file, so every
    command names it in one line and exits 1. A real FIFO, a real child process (a hang fails
    by the timeout)."""
    from tests.support.cli import run_trajkit

    conv = copy_fixture(tmp_path)
    n_files = len(list((conv / "events").glob("event-*.json")))
    fifo = conv / "events" / "event-00002-ffffffff-1111-4222-8333-444455556666.json"
    os.mkfifo(fifo)  # in the middle: ls reads only the first and last files
    target = conv if command in ("inspect", "convert") else conv.parent
    r = run_trajkit(command, target, cwd=tmp_path, timeout=120)
    assert r.returncode == 1, (r.returncode, r.stdout[-1000:], r.stderr[-1000:])
    assert "Traceback" not in r.stderr
    out = r.stdout + r.stderr  # validate's report is its stdout
    assert [line for line in out.splitlines() if fifo.name in line], out[-1000:]
    if command == "ls":
        listed = run_trajkit("ls", "--json", conv.parent, cwd=tmp_path, timeout=120)
        (row,) = json.loads(listed.stdout)["conversations"]
        assert row["n_events"] == n_files  # the FIFO is not counted as an event
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # left as it was


def test_a_dropped_conversation_whose_mcp_server_failed_lets_go(tmp_path: Path) -> None:
    """The failed server's error, kept with its traceback, held the frame of the Conversation
    that started it, from the finalizer's arguments: the dropped object lived on, and with the
    in-process refusal the SDK's persistence example could not reopen its id."""
    import sys

    from trajkit.sdk import LLM, Agent, Conversation

    failing = {"mcpServers": {"broken": {"command": sys.executable, "args": ["-c", "exit(3)"]}}}
    agent = Agent(
        llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[], mcp_config=failing
    )
    where = {"agent": agent, "workspace": str(tmp_path / "ws"), "persistence_dir": tmp_path / "p"}
    first = Conversation(**where)
    first.send_message("hello")  # starts the MCP servers: this one fails
    cid = first.id
    del first
    again = Conversation(**where, conversation_id=cid)
    again.close()
