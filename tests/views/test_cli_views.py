"""`trajkit ls`, `stats`, `inspect` and `view`, tested by what they print (CliRunner)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from tests.views.conftest import AGENT_TEXT, LONG_LINES, USER_TEXT, make_conversation
from trajkit.cli import main


def run(*args: str, columns: int | None = None) -> tuple[int, str, str]:
    env = {"COLUMNS": str(columns)} if columns else {"COLUMNS": ""}
    result = CliRunner().invoke(main, [*args], env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


# -- ls --------------------------------------------------------------------------------------------


def test_ls_lists_every_fixture_conversation_with_its_facts() -> None:
    code, out, err = run("ls", str(fx.SDK_FIXTURES), columns=200)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == len(fx.sdk_scenarios())
    a_text = next(line for line in lines if line.startswith("23269f85-0da1-564e-8f14-643098c8d932"))
    assert a_text.split() == [
        "23269f85-0da1-564e-8f14-643098c8d932",
        "2026-11-29",
        "08:53:44",
        "08:53:44",
        "finished",
        "3",
        "gpt-4o",  # the model without its provider route (issue 25)
        "$0.0165",
        "Say",
        "hello.",
    ]
    # Default order: first event time.
    firsts = [line.split()[1] + line.split()[2] for line in lines]
    assert firsts == sorted(firsts)


def test_ls_cuts_the_message_to_the_terminal_width() -> None:
    code, out, _ = run("ls", str(fx.SDK_FIXTURES), columns=120)
    assert code == 0
    lines = out.splitlines()
    assert all(len(line) <= 120 for line in lines)
    assert any(line.endswith("…") for line in lines)


def test_ls_sort_by_events_reverse_and_json() -> None:
    code, out, _ = run("ls", str(fx.SDK_FIXTURES), "--sort", "events", "--reverse", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "trajkit.ls/1" and doc["problems"] == []
    rows = doc["conversations"]
    counts = [r["n_events"] for r in rows]
    assert counts == sorted(counts, reverse=True) and counts[0] == 13
    assert set(rows[0]) == {
        "id", "path", "first_time", "last_time", "status", "n_events", "model", "cost", "first_message",
    }  # fmt: skip
    assert rows[0]["first_message"] == "Write one fact into FACTS.txt."


def test_ls_folder_without_conversations_is_skipped_with_exit_1(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, out, err = run("ls", str(tmp_path / "empty"), str(fx.sdk_conversation("a_text")))
    assert code == 1
    assert len(out.splitlines()) == 1  # the good conversation is still listed
    assert "skipped:" in err and "no conversation found here" in err and "Traceback" not in err


def test_ls_broken_base_state_still_lists_the_row(tmp_path: Path) -> None:
    folder = shutil.copytree(fx.BAD_FIXTURES / "truncated_base_state", tmp_path / "c")
    code, out, err = run("ls", str(folder), columns=200)
    assert code == 1
    assert "Run `echo hello-from-terminal && pwd`." in out
    assert "base_state.json" in err and "not valid JSON" in err


# -- stats -----------------------------------------------------------------------------------------


def test_stats_json_counts_match_the_fixtures_expected_kinds() -> None:
    code, out, err = run("stats", str(fx.SDK_FIXTURES))
    assert code == 0, err
    doc = json.loads(out)  # JSON is the default off a terminal
    expected = Counter(
        k["kind"] for s in fx.sdk_scenarios() for k in fx.sdk_expected(s, "event_kinds.json")
    )
    assert doc["events"]["by_kind"] == dict(expected)
    assert doc["events"]["total"] == sum(expected.values())
    assert doc["conversations"] == len(fx.sdk_scenarios())
    assert doc["by_status"] == {"finished": 8} and doc["by_model"] == {"openai/gpt-4o": 8}
    assert doc["tools"]["terminal"]["calls"] == 8 and doc["tools"]["terminal"]["error_rate"] == 0
    assert doc["per_conversation"]["events"]["max"] == 13
    assert doc["per_conversation"]["events"]["min"] == 3
    assert sum(doc["length_distribution"].values()) == 8
    states = [json.loads((c / "base_state.json").read_text()) for c in fx.sdk_conversations()]
    cost = sum(
        m["accumulated_cost"] for s in states for m in s["stats"]["usage_to_metrics"].values()
    )
    assert doc["cost"]["total"] == pytest.approx(cost)


def test_stats_error_rates_and_tables(conversation: Path) -> None:
    code, out, _ = run("stats", str(conversation), "--json")
    assert code == 0
    tools = json.loads(out)["tools"]
    # terminal: 2 calls, 1 agent error, 1 rejection
    assert tools["terminal"] == {"calls": 2, "errors": 1, "rejections": 1, "error_rate": 0.5}
    assert tools["file_editor"]["error_rate"] == 0
    code, out, _ = run("stats", str(conversation), "--table", columns=120)
    assert code == 0
    assert "Tool calls" in out and "50.0%" in out and "FancyFutureEvent" in out


def test_stats_skips_broken_files_and_counts_the_rest(broken_conversation: Path) -> None:
    code, out, err = run("stats", str(broken_conversation), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["events"]["total"] == 12  # 13 files, one unreadable
    assert "not valid JSON" in err and "event-00003-" in err


# -- inspect ---------------------------------------------------------------------------------------


def test_inspect_shows_messages_calls_results_and_usage() -> None:
    code, out, err = run("inspect", str(fx.sdk_conversation("b_terminal")))
    assert code == 0, err
    assert "Conversation 4a354c20-88ff-5c33-b671-d3bccd90da7a" in out
    assert "cost   $0.0342" in out
    lines = out.splitlines()
    assert any(line.startswith("#1 user") for line in lines)
    assert "  Run `echo hello-from-terminal && pwd`." in lines
    call = next(line for line in lines if line.startswith("#2 action · terminal"))
    assert "6,538 in / 66 out · $0.0170" in call
    assert "  $ echo hello-from-terminal && pwd" in lines
    assert "  hello-from-terminal" in lines
    assert "\x1b[" not in out  # no colour off a terminal
    assert all(line == line.rstrip() for line in lines)


def test_inspect_folds_long_output_and_full_shows_it(conversation: Path) -> None:
    code, out, _ = run("inspect", str(conversation))
    assert code == 0
    assert "more lines folded (--full shows them)" in out
    assert "  line 20" not in out.splitlines()
    assert f"  line {LONG_LINES}" in out.splitlines()
    code, out, _ = run("inspect", str(conversation), "--full")
    assert "folded" not in out
    assert all(f"  line {n}" in out.splitlines() for n in range(1, LONG_LINES + 1))


def test_inspect_marks_errors_rejections_condensations_and_unknown_kinds(
    conversation: Path,
) -> None:
    code, out, _ = run("inspect", str(conversation))
    assert code == 0
    assert "#7 rejection · terminal rejected" in out
    assert "Action rejected by user: too dangerous" in out
    assert "#8 error · terminal error" in out and "crashed: boom" in out
    assert "#9 condensation" in out and "forgot 2 events from the LLM's view" in out
    assert "#11 unknown · unknown kind FancyFutureEvent" in out and '"sparkle_level": 11' in out
    assert "The user wants numbers; seq is simplest." in out  # reasoning
    assert "[image] data:image/png;base64,…" in out and "example.invalid" in out
    assert USER_TEXT in out and AGENT_TEXT in out


def test_inspect_range(conversation: Path) -> None:
    code, out, _ = run("inspect", str(conversation), "--from", "5", "--to", "6")
    assert code == 0
    titles = [line.split(" · ")[0] for line in out.splitlines() if line.startswith("#")]
    assert titles == ["#5 observation", "#6 action"]
    assert "events 12 (showing 5–6)" in out
    code, _, err = run("inspect", str(conversation), "--from", "6", "--to", "5")
    assert code == 2 and "--to 5 is before --from 6" in err


def test_inspect_broken_file_shows_the_rest_and_exits_1(broken_conversation: Path) -> None:
    code, out, err = run("inspect", str(broken_conversation))
    assert code == 1
    assert "#3 broken · unreadable event file" in out
    assert AGENT_TEXT in out  # events after the broken one are still shown
    assert err.startswith("skipped: ") and "event-00003-" in err and "not valid JSON" in err


def test_inspect_v0_trajectory_in_memory(tmp_path: Path) -> None:
    src = shutil.copy(fx.V0_FIXTURES / "basic.json", tmp_path / "basic.json")
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run("inspect", str(src))
    assert code == 0, err
    assert "[v0 json-list]" in out
    assert "Please create a simple 2048 game." in out
    assert "#1 action · str_replace_editor" in out
    assert sorted(tmp_path.rglob("*")) == before  # nothing written


def test_inspect_not_a_conversation_and_empty(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    code, _, err = run("inspect", str(tmp_path / "plain"))
    assert code == 1 and err.startswith("Error: ") and "no conversation found here" in err
    code, _, err = run("inspect", str(fx.SDK_FIXTURES))
    assert code == 1 and "not one conversation: it holds 8 conversations" in err
    empty = tmp_path / "e" / "events"
    empty.mkdir(parents=True)
    code, out, err = run("inspect", str(empty.parent))
    assert code == 1
    assert "(no events to show)" in out
    assert "conversation has no events" in err


def test_folder_holding_exactly_one_conversation_is_that_conversation(tmp_path: Path) -> None:
    # A scenario folder holds <hex>/ and expected/: inspect and view use the one conversation.
    code, out, _ = run("inspect", str(fx.SDK_FIXTURES / "d_parallel"))
    assert code == 0 and "Conversation 86868ab7-e923-524d-a354-f992b3496222" in out
    code, out, _ = run("view", str(fx.SDK_FIXTURES / "d_parallel"), "-o", str(tmp_path / "r.html"))
    assert code == 0 and (tmp_path / "r.html").stat().st_size > 1000


@pytest.mark.parametrize(
    "name, exit_code",
    [
        ("valid_base", 0),
        ("empty_event_file", 1),
        ("truncated_event_json", 1),
        ("invalid_utf8", 1),
        ("top_level_array", 1),
        ("wrong_field_types", 0),  # the model reads "0" and "no" leniently; validate reports them
        ("missing_required_fields", 1),
        ("unknown_kind", 0),
        ("index_gap", 0),
        ("truncated_base_state", 1),
        ("missing_events_folder", 1),
        ("parent_cycle", 0),
    ],
)
def test_bad_fixtures_through_inspect_and_view(name: str, exit_code: int, tmp_path: Path) -> None:
    folder = shutil.copytree(fx.BAD_FIXTURES / name, tmp_path / name)
    code, out, err = run("inspect", str(folder))
    assert code == exit_code, err
    assert "Traceback" not in out + err
    if exit_code:
        assert "skipped: " in err and str(folder) in err
    code, _, err = run("view", str(folder), "-o", str(tmp_path / "r.html"))
    assert code == exit_code and (tmp_path / "r.html").stat().st_size > 1000


# -- view ------------------------------------------------------------------------------------------


def test_view_writes_one_self_contained_file(conversation: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "report.html"
    code, out, _ = run("view", str(conversation), "-o", str(out_file))
    assert code == 0
    assert out.strip() == f"wrote {out_file} (12 events)"
    page = out_file.read_text()
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    for external in ("<script src", "<link", "@import", "url(http", 'src="http'):
        assert external not in page
    assert USER_TEXT in page and "FancyFutureEvent" in page
    code, _, err = run("view", str(conversation), "-o", str(out_file))
    assert code == 1 and "already exists; pass --overwrite" in err
    code, _, _ = run("view", str(conversation), "-o", str(out_file), "--overwrite")
    assert code == 0


def test_view_json_payload_cannot_close_its_script(tmp_path: Path) -> None:
    folder = make_conversation(tmp_path / "7d3c1b2a4f6e48d79a0b1c2d3e4f5a6b")
    target = next((folder / "events").glob("event-00001-*"))
    target.write_text(target.read_text().replace(USER_TEXT, "</script><script>alert(1)</script>"))
    code, _, _ = run("view", str(folder), "-o", str(tmp_path / "r.html"))
    assert code == 0
    page = (tmp_path / "r.html").read_text()
    assert page.count("</script>") == 2  # the data block's and the code block's own


def test_pager_receives_the_transcript_as_it_is_rendered(
    conversation: Path, tmp_path: Path
) -> None:
    import io
    import shlex
    import sys

    from rich.console import Console

    from trajkit.views.load import load_conversation
    from trajkit.views.terminal import page_conversation

    sink = tmp_path / "paged.txt"
    script = tmp_path / "pager.py"
    script.write_text(f"import sys\nopen({str(sink)!r}, 'w').write(sys.stdin.read())\n")
    pager = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    console = Console(file=io.StringIO(), color_system="standard", width=100)
    page_conversation(load_conversation(conversation), console, pager=pager)
    paged = sink.read_text()
    assert USER_TEXT in paged and "\x1b[" in paged  # coloured, as on the terminal it pages for
    assert console.file.getvalue() == ""  # everything went to the pager


def test_pager_that_quits_early_stops_rendering(conversation: Path) -> None:
    import io
    import shlex
    import sys

    from rich.console import Console

    from trajkit.views.load import load_conversation
    from trajkit.views.terminal import page_conversation

    pager = f"{shlex.quote(sys.executable)} -c 'import sys; sys.stdin.read(10)'"
    console = Console(file=io.StringIO(), color_system="standard", width=100)
    page_conversation(load_conversation(conversation), console, pager=pager)  # no BrokenPipeError
    assert console.file.getvalue() == ""


def test_ls_and_stats_read_v0_inputs_in_memory(tmp_path: Path) -> None:
    v0 = shutil.copytree(fx.V0_FIXTURES, tmp_path / "v0")
    before = sorted(p for p in v0.rglob("*"))
    code, out, err = run("ls", str(v0), "--json")
    assert code == 0, err
    rows = {Path(r["path"]).name: r for r in json.loads(out)["conversations"]}
    assert rows["basic.json"]["first_message"].startswith("Please create a simple 2048 game.")
    assert rows["basic.json"]["n_events"] == 5 and rows["basic.json"]["status"] == "finished"
    code, out, err = run("stats", str(v0), "--json", "--jobs", "2")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["conversations"] == len(rows) == 6
    assert doc["events"]["total"] == sum(r["n_events"] for r in rows.values())
    assert sorted(p for p in v0.rglob("*")) == before  # nothing written


def test_stats_in_two_processes_equals_one(tmp_path: Path) -> None:
    one = json.loads(run("stats", str(fx.SDK_FIXTURES), "--json", "--jobs", "1")[1])
    two = json.loads(run("stats", str(fx.SDK_FIXTURES), "--json", "--jobs", "2")[1])
    assert one == two
