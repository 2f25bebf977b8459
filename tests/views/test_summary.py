"""The data behind the views: percentiles, buckets, per-response usage, entries per kind."""

from __future__ import annotations

import json

import pytest

from tests.support import fixtures as fx
from trajkit.events import parse_base_state, parse_event
from trajkit.views.entries import event_to_entry, usage_by_response
from trajkit.views.load import load_conversation
from trajkit.views.summary import ConversationStats, CorpusStats, percentiles


def test_percentiles_interpolate_linearly() -> None:
    p = percentiles([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert p == {"min": 1, "p50": 5.5, "p90": 9.1, "p99": 9.91, "max": 10, "mean": 5.5}
    assert percentiles([]) == dict.fromkeys(("min", "p50", "p90", "p99", "max", "mean"))
    assert percentiles([7])["p99"] == 7


def test_length_distribution_buckets() -> None:
    corpus = CorpusStats()
    for n in (0, 1, 9, 10, 49, 50, 100, 999, 1000, 12345):
        corpus.add(ConversationStats(id=str(n), n_events=n))
    assert corpus.length_distribution() == {
        "0": 1, "1-9": 2, "10-49": 2, "50-99": 1, "100-499": 1, "500-999": 1, "1000+": 2,
    }  # fmt: skip
    assert corpus.by_status == {"unknown": 10}


def test_usage_by_response_matches_ids_and_aligns_costs() -> None:
    raw = json.loads((fx.sdk_conversation("b_terminal") / "base_state.json").read_text())
    usage = usage_by_response(parse_base_state(raw))
    assert set(usage) == {"chatcmpl-b_terminal-0", "chatcmpl-b_terminal-1"}
    first = usage["chatcmpl-b_terminal-0"]
    assert (first.prompt_tokens, first.completion_tokens) == (6538, 66)
    assert first.cost == pytest.approx(0.017005) and first.latency == pytest.approx(
        0.0165, abs=1e-3
    )
    # Costs carry no response id: with a cost missing, they cannot be matched and are left out.
    raw["stats"]["usage_to_metrics"]["agent"]["costs"].pop()
    usage = usage_by_response(parse_base_state(raw))
    assert usage["chatcmpl-b_terminal-0"].cost is None
    assert usage["chatcmpl-b_terminal-0"].prompt_tokens == 6538
    assert usage_by_response(None) == {}


def test_usage_goes_on_the_first_event_of_each_response() -> None:
    from trajkit.views.entries import iter_entries

    loaded = load_conversation(fx.sdk_conversation("d_parallel"))
    entries = list(iter_entries(loaded.items, usage_by_response(loaded.state)))
    with_usage = [e for e in entries if e.usage is not None]
    response_ids = [e.response_id for e in entries if e.response_id]
    assert len(with_usage) == len(set(response_ids))
    for e in with_usage:
        assert e.response_id is not None and e.usage is not None
        assert e.usage.response_id == e.response_id
        first = next(x for x in entries if x.response_id == e.response_id)
        assert first is e


def test_every_fixture_event_gets_a_known_role() -> None:
    roles = set()
    for path in fx.sdk_event_files():
        entry = event_to_entry(0, parse_event(path.read_bytes()))
        assert entry.role != "unknown", path
        roles.add(entry.role)
    assert {"system", "user", "agent", "action", "observation", "condensation", "status"} <= roles


def test_file_edit_entries_carry_diffs() -> None:
    loaded = load_conversation(fx.sdk_conversation("c_file_editor"))
    entries = [event_to_entry(i, e) for i, e in loaded.items]  # type: ignore[arg-type]
    edit = next(e for e in entries if e.code and e.code[0].label.startswith("edit "))
    assert edit.code[0].language == "diff"
    assert "-beta\n+BETA" in edit.code[0].text
    result = next(e for e in entries if any(c.label.startswith("file diff") for c in e.code))
    diff = next(c for c in result.code if c.label.startswith("file diff"))
    assert (
        diff.detail
        and "@@ -1,3 +1,3 @@" in diff.text
        and " alpha\n-beta\n+BETA\n gamma" in diff.text
    )
    create = next(e for e in entries if e.code and e.code[0].label.startswith("create "))
    assert (
        create.code[0].language.endswith("notes.txt")
        and create.code[0].text == "alpha\nbeta\ngamma\n"
    )


def test_stats_count_an_unreadable_event_and_say_why(tmp_path) -> None:
    """`conversation_stats` goes on past a damaged file: counted, not parsed, and the reader's
    refusal (file and JSON path) in `problems`."""
    import shutil

    from trajkit.errors import InputError
    from trajkit.store import open_conversation
    from trajkit.views.summary import conversation_stats

    src = fx.sdk_conversation("b_terminal")
    folder = tmp_path / src.name
    shutil.copytree(src, folder)
    files = sorted((folder / "events").glob("event-*.json"))
    whole = conversation_stats(folder)
    obj = json.loads(files[2].read_bytes())
    obj["timestamp"] = 5
    files[2].write_text(json.dumps(obj), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        list(open_conversation(folder).iter_events())
    stats = conversation_stats(folder)
    assert stats.problems == [str(raised.value)]
    assert "/timestamp" in stats.problems[0] and files[2].name in stats.problems[0]
    assert stats.n_events == whole.n_events == len(files)
    assert sum(stats.kinds.values()) == sum(whole.kinds.values()) - 1
