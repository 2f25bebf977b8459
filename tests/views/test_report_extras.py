"""Errors, timing, outcome and the final diff in the report's data; `inspect` marks failed
commands; the static site writes one page per conversation, continues a site and refuses to
write into another folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from tests.views.conftest import failing_command_events, make_corpus, write_conversation
from trajkit.cli import main
from trajkit.events import (
    ActionEvent,
    FileEditorAction,
    FileEditorObservation,
    MessageToolCall,
    ObservationEvent,
    TextContent,
)
from trajkit.views.entries import add_step_times, iter_entries
from trajkit.views.html import conversation_to_html, markdown_to_html
from trajkit.views.load import load_conversation
from trajkit.views.site import SITE_MANIFEST

EVAL_RECORD = {
    "instance_id": "demo__demo-1",
    "instruction": "Fix it",
    "metadata": {"agent_class": "CodeActAgent", "llm_config": {"model": "openai/gpt-4o"}},
    "history": [
        {
            "id": 0,
            "timestamp": "2025-07-09T13:41:00.100000",
            "source": "user",
            "message": "Fix the failing test in a.py",
            "action": "message",
            "args": {"content": "Fix the failing test in a.py", "wait_for_response": False},
        }
    ],
    "error": None,
    "test_result": {
        "git_patch": "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
        "report": {"resolved": True},
    },
}


def test_failed_command_is_an_error_with_its_exit_code_and_times(tmp_path: Path) -> None:
    folder = write_conversation(tmp_path / ("ab" * 16), failing_command_events())
    loaded = load_conversation(folder)
    entries = list(iter_entries(loaded.items))
    add_step_times(entries)
    obs = entries[3]
    assert obs.error and obs.exit_code == 2
    assert obs.run_s is not None and obs.run_s >= 0
    assert entries[2].step_s is not None  # first event of response resp-f1
    assert [e.index for e in entries if e.error] == [3]


def test_inspect_marks_the_failed_command(tmp_path: Path) -> None:
    folder = write_conversation(tmp_path / ("ab" * 16), failing_command_events())
    result = CliRunner().invoke(main, ["inspect", str(folder)])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.lstrip("─ ").startswith("#3"))
    assert "ERROR" in line and "exit 2" in line and "ran " in line
    header = result.output.split("#0", 1)[0]
    assert re.search(r"errors\s+1\n", header) and re.search(r"duration\s+[\d.]+s\n", header)


def test_eval_record_outcome_and_patch_reach_the_header(tmp_path: Path) -> None:
    record = tmp_path / "output.jsonl"
    record.write_text(json.dumps(EVAL_RECORD) + "\n")
    loaded = load_conversation(record)
    assert loaded.outcome == "resolved"
    assert loaded.patch is not None and "+x = 2" in loaded.patch
    page = conversation_to_html(loaded)
    assert '<div class="fact fact-outcome good"><dt>outcome</dt><dd>resolved</dd>' in page
    assert 'id="final-diff"' in page and "final patch (git_patch" in page


def test_final_diff_folds_file_editor_edits_per_file(tmp_path: Path) -> None:
    events = failing_command_events()[:2]
    for n, (old, new) in enumerate([("a\n", "b\n"), ("b\n", "c\n")]):
        call = f"call_e{n}"
        action = ActionEvent(
            thought=[],
            action=FileEditorAction(
                command="str_replace", path="/w/f.txt", old_str=old, new_str=new
            ),
            tool_name="file_editor",
            tool_call_id=call,
            tool_call=MessageToolCall(id=call, name="file_editor", arguments="{}"),
            llm_response_id=f"r{n}",
        )
        events += [
            action,
            ObservationEvent(
                tool_name="file_editor",
                tool_call_id=call,
                action_id=action.id,
                observation=FileEditorObservation(
                    content=[TextContent(text="edited")],
                    command="str_replace",
                    path="/w/f.txt",
                    old_content=old,
                    new_content=new,
                ),
            ),
        ]
    loaded = load_conversation(write_conversation(tmp_path / ("cd" * 16), events))
    page = conversation_to_html(loaded)
    shown = page.split('id="final-diff"', 1)[1].split("</details>", 1)[0]
    assert "<summary>final diff of the files edited (1 file)</summary>" in shown
    text = re.sub(r"<[^>]+>", "", shown).splitlines()
    assert "-a" in text and "+c" in text and "+b" not in text


def test_markdown_is_rendered_without_raw_html() -> None:
    out = markdown_to_html(
        '**bold** <b onclick="x()">raw</b> [a](javascript:alert(1)) [ok](https://e.x)'
    )
    assert "<strong>bold</strong>" in out
    assert "&lt;b onclick" in out and re.search(r"<b[\s>]", out) is None  # raw HTML: text
    assert 'href="javascript' not in out and "[a](javascript:alert(1))" in out
    assert 'href="https://e.x"' in out and 'rel="noopener noreferrer nofollow"' in out


def test_static_site_writes_every_conversation_and_refuses_another_folder(tmp_path: Path) -> None:
    make_corpus(tmp_path / "corpus")
    out = tmp_path / "site"
    runner = CliRunner()
    first = runner.invoke(main, ["view", str(tmp_path / "corpus"), "-o", str(out)])
    assert first.exit_code == 0, first.output
    pages = sorted(p.name for p in (out / "c").glob("*.html"))
    assert len(pages) == 3
    index = (out / "index.html").read_text()
    data = json.loads(index.split('id="trajkit-index">', 1)[1].split("</script>", 1)[0])
    assert sorted(f"{r['key']}.html" for r in data["rows"]) == pages
    assert {r["status"] for r in data["rows"]} == {"finished", "error", "running"}
    again = runner.invoke(main, ["view", str(tmp_path / "corpus"), "-o", str(out)])
    assert again.exit_code == 0 and "(3 unchanged, kept)" in again.output  # a site continues
    (out / "c" / pages[0]).unlink()
    (out / "mine.txt").write_text("mine")
    (out / SITE_MANIFEST).unlink()  # no longer a site trajkit wrote
    refused = runner.invoke(main, ["view", str(tmp_path / "corpus"), "-o", str(out)])
    assert refused.exit_code == 1 and "already exists" in refused.output
    forced = runner.invoke(main, ["view", str(tmp_path / "corpus"), "-o", str(out), "--overwrite"])
    assert forced.exit_code == 0, forced.output


def test_an_evaluation_output_of_many_records_becomes_a_site(tmp_path: Path) -> None:
    failed = {**EVAL_RECORD, "instance_id": "demo__demo-2", "test_result": {"resolved": False}}
    record = tmp_path / "output.jsonl"
    record.write_text(json.dumps(EVAL_RECORD) + "\n" + json.dumps(failed) + "\n")
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["view", str(record), "-o", str(out)])
    assert result.exit_code == 0, result.output
    index = (out / "index.html").read_text()
    data = json.loads(index.split('id="trajkit-index">', 1)[1].split("</script>", 1)[0])
    assert sorted(r["outcome"] for r in data["rows"]) == ["not resolved", "resolved"]
    assert len(list((out / "c").glob("*.html"))) == 2


def test_inspect_draws_the_failed_result_red_on_a_terminal(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from trajkit.views.terminal import render_conversation

    folder = write_conversation(tmp_path / ("ab" * 16), failing_command_events())
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=100)
    for part in render_conversation(load_conversation(folder)):
        console.print(part)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    failed = next(x for x in out.splitlines() if "#3 observation" in x)
    assert "\x1b[1;31m" in failed  # bold red
    ok = next(x for x in out.splitlines() if "#2 action" in x)
    assert "\x1b[1;31m" not in ok


def test_resolver_success_is_an_outcome(tmp_path: Path) -> None:
    from trajkit.views.load import eval_outcome

    assert eval_outcome({"success": True}) == ("resolved", None)
    assert eval_outcome({"success": False, "test_result": {"git_patch": "diff"}}) == (
        "not resolved",
        "diff",
    )
    assert eval_outcome({"error": "agent stuck"}) == ("error: agent stuck", None)
