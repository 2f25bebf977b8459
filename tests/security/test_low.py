"""Issue 14, Low list: each a one-line error (never a traceback) or a right answer. Real
files, real links; a full disk is a real tmpfs (skipped where mounting is not allowed)."""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.conftest import FIXTURES, copy_fixture, invoke, tree
from trajkit.errors import InputError, WriteFailed


def test_folder_name_ending_in_a_newline(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus\n"
    conv = corpus / copy_fixture(tmp_path).name
    shutil.move(tmp_path / "corpus" / conv.name, conv)
    for args in (
        ["validate", str(corpus)],
        ["ls", str(corpus)],
        ["stats", str(corpus)],
        ["convert", str(conv)],
        ["inspect", str(conv)],
        ["view", str(conv), "-o", str(tmp_path / "v.html")],
        ["export", str(corpus), "-o", str(tmp_path / "out")],
        ["repair", "--dry-run", str(corpus)],
    ):
        r = invoke(*args)
        assert r.exit_code == 0, (args, r.output)
        assert "corpus\n" not in r.output  # shown escaped, on one line


def test_event_index_of_220_digits(tmp_path: Path, conv: Path) -> None:
    f = sorted((conv / "events").glob("event-*.json"))[-1]
    data = json.loads(f.read_text())
    data["id"] = "abcdef12"
    f.write_text(json.dumps(data))
    f.rename(conv / "events" / ("event-" + "9" * 220 + "-abcdef12.json"))
    for args in (
        ["export", str(conv), "-o", str(tmp_path / "out")],
        ["validate", str(conv)],
        ["convert", str(conv)],
        ["repair", "--dry-run", str(conv)],
    ):
        assert invoke(*args).exit_code == 1, args


def _deep(path: Path) -> None:
    state = json.loads(path.read_text())
    path.write_text(json.dumps(state)[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_base_state_nested_100k_deep(tmp_path: Path, conv: Path) -> None:
    _deep(conv / "base_state.json")
    before = tree(conv)
    r = invoke("repair", str(conv))
    assert r.exit_code == 1 and "base_state.json" in r.output
    assert tree(conv) == before
    from trajkit.sdk import LLM, Agent, Conversation

    agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
    first = Conversation(agent=agent, workspace=tmp_path / "ws", persistence_dir=tmp_path / "p")
    first.close()
    _deep(tmp_path / "p" / first.id.hex / "base_state.json")
    with pytest.raises(InputError, match="not valid JSON"):
        Conversation(
            agent=agent,
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "p",
            conversation_id=first.id,
        )


def test_view_into_a_missing_folder(tmp_path: Path, conv: Path) -> None:
    r = invoke("view", str(conv), "-o", str(tmp_path / "no" / "such" / "v.html"))
    assert r.exit_code == 1 and "does not exist; create it first" in r.output  # issue 16
    assert not (tmp_path / "no").exists()


def test_validate_refuses_a_number_no_double_holds(conv: Path) -> None:
    text = (conv / "base_state.json").read_text()
    (conv / "base_state.json").write_text(text[:-1] + ', "huge": 1e400}')
    r = invoke("validate", str(conv))
    assert r.exit_code == 1 and "1e400" in r.output
    assert invoke("convert", str(conv)).exit_code == 1  # as every other command


def test_outputs_inside_the_input_conversation_are_refused(tmp_path: Path, conv: Path) -> None:
    before = tree(conv)
    for args in (
        ["view", str(conv), "-o", str(conv / "v.html")],
        ["view", str(conv), "-o", str(conv / "events" / "v.html")],
        ["export", str(conv), "-o", str(conv / "out")],
        ["export", str(conv.parent), "-o", str(conv / "out")],
    ):
        r = invoke(*args)
        assert r.exit_code == 1 and "inside the input conversation" in r.output, (args, r.output)
    session = tmp_path / "session"
    shutil.copytree(FIXTURES / "v0-synthetic", session / "src")
    sessions = [p.parent for p in (session / "src").rglob("events") if p.is_dir()]
    assert sessions, "a V0 session folder sample"
    r = invoke("migrate", str(sessions[0]), "-o", str(sessions[0] / "out"))
    assert r.exit_code == 1 and "inside the input conversation" in r.output
    assert tree(conv) == before


def _broken_event(conv: Path) -> Path:
    f = sorted((conv / "events").glob("event-*.json"))[-1]
    f.write_bytes(f.read_bytes()[:30])
    return f


def test_damaged_quarantine_record_file_is_kept(conv: Path) -> None:
    q = conv / "quarantine"
    q.mkdir()
    (q / "reasons.json").write_text('{"old-file.json": {"from": "events/x", "reason": "cut')
    broken = _broken_event(conv)
    assert invoke("repair", str(conv)).exit_code in (0, 1)
    assert (q / "reasons.json.damaged").read_text().startswith('{"old-file.json"')
    reasons = json.loads((q / "reasons.json").read_text())
    assert reasons[broken.name]["from"] == f"events/{broken.name}"


@contextlib.contextmanager
def _small_disk(tmp_path: Path, kib: int) -> Iterator[Path]:
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(mnt)], capture_output=True
    )
    if r.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs CAP_SYS_ADMIN)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(folder: Path) -> None:
    with contextlib.suppress(OSError), (folder / "filler").open("wb") as f:
        while True:
            f.write(b"\0" * 4096)
            f.flush()


def test_disk_full_repair_export_and_run(tmp_path: Path) -> None:
    with _small_disk(tmp_path, 512) as disk:
        conv = disk / copy_fixture(tmp_path).name
        shutil.copytree(tmp_path / "corpus" / conv.name, conv)
        broken = _broken_event(conv)
        (conv / "quarantine").mkdir()
        _fill(disk)
        r = invoke("repair", str(conv))
        assert r.exit_code == 1 and "No space left on device" in r.output, r.output
        assert broken.exists()  # not moved without its record
        assert not any((conv / "quarantine").iterdir()) or (
            broken.name in (conv / "quarantine" / "reasons.json").read_text()
        )
        r = invoke("export", str(conv), "-o", str(disk / "out"))
        assert r.exit_code == 1 and "No space left on device" in r.output, r.output

        from trajkit.sdk import LLM, Agent, Conversation

        agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
        (disk / "filler").unlink()
        conv2 = Conversation(
            agent=agent,
            workspace=tmp_path / "ws",
            persistence_dir=disk / "p",
            conversation_id=uuid.uuid4(),
        )
        try:
            _fill(disk)
            with pytest.raises(WriteFailed, match="no space left on device"):
                for i in range(200):
                    conv2.send_message(f"message {i} " + "x" * 4000)
        finally:
            conv2.close()


def test_migrate_writes_strict_json_and_never_follows_links_out(tmp_path: Path) -> None:
    sample = next(p.parent for p in (FIXTURES / "v0-synthetic").rglob("events") if p.is_dir())
    session = tmp_path / "in" / sample.name
    shutil.copytree(sample, session)
    first = sorted((session / "events").glob("*.json"))[0]
    data = json.loads(first.read_text())
    data["extras_nan"] = math.nan  # Python's json writes NaN, as V0 tools did
    first.write_text(json.dumps(data))
    secret = tmp_path / "outside.json"
    secret.write_text(json.dumps({**data, "id": 999, "message": "OUTSIDE-MARKER-v0"}))
    (session / "events" / "999.json").symlink_to(secret)
    out = tmp_path / "out"
    invoke("migrate", str(session), "-o", str(out))
    written = [p for p in out.rglob("*.json") if p.is_file()]
    assert written

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    for p in written:
        text = p.read_text()
        json.loads(text, parse_constant=refuse)
        assert "OUTSIDE-MARKER-v0" not in text


def test_newline_in_a_file_name_cannot_forge_a_line(conv: Path) -> None:
    src = sorted((conv / "events").glob("event-*.json"))[0]
    shutil.copy(src, conv / "events" / "event-00009-abcdef12.json\nError: all good.json")
    r = invoke("validate", str(conv))
    assert not any(line.startswith("Error: all good") for line in r.output.splitlines())
    assert "\\nError: all good" in r.output


def test_long_line_renders_as_rich_would(tmp_path: Path) -> None:
    import io

    from rich.console import Console
    from rich.text import Text

    from trajkit.views.terminal import _LongText

    def render(renderable: object) -> str:
        console = Console(file=io.StringIO(), width=97, color_system=None)
        console.print(renderable)
        return console.file.getvalue()  # type: ignore[attr-defined]

    # One line without spaces (a base64 blob, minified JSON): exactly as rich wraps it.
    line = "x" * 700_000 + "\n" + "short\n" * 50_000
    assert render(_LongText(line, "")) == render(Text(line))
    # With spaces, only rows next to a cut may break differently: the same text, in order.
    spaced = "word " * 30_000
    a, b = render(_LongText(spaced, "")), render(Text(spaced))
    assert a.split() == b.split()


def test_lookup_secret_url_tokens_and_odd_headers_never_in_clear(tmp_path: Path) -> None:
    from trajkit.sdk import LLM, Agent, Conversation
    from trajkit.sdk.secret.secrets import Cipher, LookupSecret

    url = "https://vault.example/v1/secret?access_token=VAULT-TOKEN-123456&x=1"
    lookup = LookupSecret(url=url, headers={"X-Vault-Thing": "HEADER-VALUE-987654"})
    agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
    for cipher in (None, Cipher("k")):
        conv = Conversation(
            agent=agent,
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "p",
            secrets={"V": lookup},
            cipher=cipher,
        )
        conv.close()
        text = (tmp_path / "p" / conv.id.hex / "base_state.json").read_text()
        assert "VAULT-TOKEN-123456" not in text and "HEADER-VALUE-987654" not in text
        if cipher is not None:
            again = Conversation(
                agent=agent,
                workspace=tmp_path / "ws",
                persistence_dir=tmp_path / "p",
                conversation_id=conv.id,
                cipher=cipher,
            )
            restored = again.state.secret_registry.secret_sources["V"]
            assert isinstance(restored, LookupSecret)
            assert restored.url == url and restored.headers == lookup.headers
            again.close()


def test_report_csp_allows_only_its_own_script(tmp_path: Path, conv: Path) -> None:
    import re

    out = tmp_path / "v.html"
    assert invoke("view", str(conv), "-o", str(out)).exit_code == 0
    page = out.read_text()
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    script_src = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
    assert "unsafe-inline" not in script_src
    nonces = re.findall(r"<script nonce=\"([^\"]+)\">", page)
    assert len(nonces) == 1 and f"'nonce-{nonces[0]}'" in script_src
    assert len(re.findall(r"<script(?![^>]*application/json)", page)) == 1


def test_duplicate_api_key_hides_nothing_from_validate(conv: Path) -> None:
    text = (conv / "base_state.json").read_text()
    masked = '"api_key":"**********"'
    assert masked in text
    doubled = '"api_key":"sk-clear-value-1234567890abcdef",' + masked
    (conv / "base_state.json").write_text(text.replace(masked, doubled, 1))
    r = invoke("validate", str(conv))
    assert r.exit_code == 1 and "duplicate key" in r.output
