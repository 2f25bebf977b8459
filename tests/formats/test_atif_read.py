"""Reading ATIF: every real file, embedded subagents, and bad input named by file and pointer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.formats._shared import needs_formats
from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.convert import convert_conversation
from trajkit.errors import InputError
from trajkit.events import ActionEvent, Condensation, ObservationEvent, SystemPromptEvent
from trajkit.shapes import ShapeRef, resolve_inputs, shape_refs
from trajkit.validate.verdict import conversation_errors


@needs_formats
@pytest.mark.parametrize("name", fx.ATIF_FILES)
def test_every_atif_file_reads_as_a_valid_conversation(name: str) -> None:
    path = fx.FORMATS / name
    refs = list(shape_refs(path) or [])
    assert [r.shape for r in refs] == ["atif"]
    conv = refs[0].open_conversation()
    events = list(conv.iter_events())
    steps = json.loads(path.read_text())["steps"]
    assert len(events) >= len(steps) - 1  # a system step with results is one ATIFData event
    assert conversation_errors(refs[0]) == []


@needs_formats
def test_openhands_golden_maps_calls_results_and_metrics() -> None:
    ref = ShapeRef("atif", str(fx.FORMATS / fx.ATIF_FILES[0]))
    conv = ref.open_conversation()
    events = list(conv.iter_events())
    assert isinstance(events[0], SystemPromptEvent)
    assert "str_replace_editor" in [t.title for t in events[0].tools]
    actions = [e for e in events if isinstance(e, ActionEvent)]
    assert [a.tool_name for a in actions] == ["str_replace_editor", "finish"]
    result = next(e for e in events if isinstance(e, ObservationEvent))
    assert result.tool_call_id == "call_fake_1" and result.action_id == actions[0].id
    state = conv.base_state()
    assert state is not None
    usage = state.stats.usage_to_metrics["agent"]  # type: ignore[union-attr]
    assert [u.prompt_tokens for u in usage.token_usages] == [100, 120]
    assert [u.response_id for u in usage.token_usages] == [a.llm_response_id for a in actions]
    assert usage.accumulated_cost == pytest.approx(0.00135)


@needs_formats
def test_compaction_marker_becomes_a_condensation(tmp_path: Path) -> None:
    alone = tmp_path / "trajectory.json"  # its continuation not beside it
    shutil.copy(fx.FORMATS / fx.ATIF_FILES[2], alone)
    ref = ShapeRef("atif", str(alone))
    events = list(ref.open_conversation().iter_events())
    at = next(i for i, e in enumerate(events) if isinstance(e, Condensation))
    condensation = events[at]
    assert isinstance(condensation, Condensation)
    before = [e.id for e in events[:at] if e.kind in ("MessageEvent", "ActionEvent")]
    assert before and condensation.forgotten_event_ids == before  # no system prompt here
    assert condensation.summary and condensation.summary_offset == 0
    notes = ref.open_conversation().notes
    assert any("continued in trajectory.cont-1.json" in n and "not beside it" in n for n in notes)


def _chat(path: object) -> list[tuple[str, str]]:
    return [(m["role"], _texts(m["content"])) for m in convert_conversation(path)["messages"]]


def _texts(content: object) -> str:
    return content if isinstance(content, str) else "".join(p["text"] for p in content)  # type: ignore[union-attr]


@needs_formats
def test_a_continuation_is_joined_to_its_trajectory_in_order() -> None:
    folder = fx.FORMATS / "atif/harbor-terminus2-linear-history-v17"
    first, cont = folder / "trajectory.json", folder / "trajectory.cont-1.json"
    refs = list(resolve_inputs([folder]))
    assert [str(r) for r in refs] == [str(first)]  # the continuation is not listed again
    conv = refs[0].open_conversation()  # type: ignore[union-attr]
    assert any("joined with its continuation(s)" in n and "trajectory.cont-1.json" in n
               for n in conv.notes)  # fmt: skip
    files = [str(f.path) for f in conv.event_files()]
    split = next(i for i, f in enumerate(files) if f.startswith(str(cont)))
    assert all(f.startswith(f"{first}/steps/") for f in files[:split])
    assert all(f.startswith(f"{cont}/steps/") for f in files[split:-1])  # errors name the file
    assert files[-1] == str(first)  # the root's data (each part's root in `continuations`)
    events = list(conv.iter_events())
    condensation = next(e for e in events if isinstance(e, Condensation))
    assert condensation.summary is None  # the model saw the copied context, not this text
    assert conversation_errors(refs[0]) == []  # type: ignore[arg-type]
    # what the model saw after the reset is the continuation's messages, in order
    cont_steps = json.loads(cont.read_text())["steps"]
    seen = _chat(refs[0])
    assert seen[-1] == ("user", _texts(cont_steps[-1]["observation"]["results"][0]["content"]))
    assert seen[0] == ("user", cont_steps[0]["message"] + cont_steps[1]["message"])
    alone = ShapeRef("atif", str(cont)).open_conversation()  # named alone: read alone
    assert len(list(alone.iter_events())) < len(events) and alone.id != conv.id
    assert any("continues an earlier trajectory" in n for n in alone.notes)


def _part(steps: list[str], follow: str | None = None) -> dict:
    doc = _trajectory([{"step_id": i + 1, "source": "user", "message": m}
                       for i, m in enumerate(steps)])  # fmt: skip
    return {**doc, "continued_trajectory_ref": follow} if follow else doc


def test_a_chain_of_continuations_is_joined_and_a_bad_ref_ends_it(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps(_part(["a"], "t.cont-1.json")))
    (tmp_path / "t.cont-1.json").write_text(json.dumps(_part(["b"], "t.cont-2.json")))
    (tmp_path / "t.cont-2.json").write_text(json.dumps(_part(["c"], "t.json")))  # a loop
    refs = list(resolve_inputs([tmp_path]))
    assert [str(r) for r in refs] == [str(tmp_path / "t.json")]
    conv = refs[0].open_conversation()  # type: ignore[union-attr]
    texts = [e.llm_message.content[0].text for e in conv.iter_events() if hasattr(e, "llm_message")]
    assert texts == ["a", "b", "c"]
    assert any("t.json (after a context reset): named twice" in n for n in conv.notes)
    (tmp_path / "t.cont-1.json").write_text(json.dumps(_part(["b"], "../t.cont-2.json")))
    conv = ShapeRef("atif", str(tmp_path / "t.json")).open_conversation()
    texts = [e.llm_message.content[0].text for e in conv.iter_events() if hasattr(e, "llm_message")]
    assert texts == ["a", "b"]
    assert any("not a file name beside it; not read" in n for n in conv.notes)
    assert [str(r) for r in resolve_inputs([tmp_path])] == [  # cont-2 is no longer named
        str(tmp_path / "t.cont-2.json"), str(tmp_path / "t.json")]  # fmt: skip


def _trajectory(steps: list[dict], **more: object) -> dict:
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
            "steps": steps, **more}  # fmt: skip


def test_embedded_subagents_are_conversations_of_their_own(tmp_path: Path) -> None:
    sub = _trajectory([{"step_id": 1, "source": "user", "message": "sub task"}],
                      trajectory_id="helper")  # fmt: skip
    doc = _trajectory([{"step_id": 1, "source": "user", "message": "main task"}],
                      subagent_trajectories=[sub])  # fmt: skip
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    refs = list(shape_refs(path) or [])
    assert [r.label for r in refs] == [str(path), f"{path}#helper"]
    texts = [e.llm_message.content[0].text for r in refs for e in r.open_conversation().iter_events()
             if hasattr(e, "llm_message")]  # fmt: skip
    assert texts == ["main task", "sub task"]
    from trajkit.convert.atif import conversation_to_atif

    back, _ = conversation_to_atif(refs[0].open_conversation())  # the parent embeds it again
    assert back["subagent_trajectories"] == [sub]


def test_bad_atif_names_file_and_pointer(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_trajectory([{"step_id": 1, "source": "user", "message": "x"}, 7])))
    with pytest.raises(InputError) as info:
        ShapeRef("atif", str(path)).open_conversation()
    assert info.value.pointer == "/steps/1"
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert f"{path}:/steps/1" in result.output + result.stderr
    assert "Traceback" not in result.stderr


def test_continuation_numbers_may_skip(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps(_part(["a"], "t.cont-1.json")))
    (tmp_path / "t.cont-1.json").write_text(json.dumps(_part(["b"], "t.cont-3.json")))
    (tmp_path / "t.cont-3.json").write_text(json.dumps(_part(["c"])))
    (tmp_path / "u.cont-2.json").write_text(json.dumps(_part(["d"])))  # continues nothing here
    refs = list(resolve_inputs([tmp_path]))
    assert [str(r) for r in refs] == [str(tmp_path / "t.json"), str(tmp_path / "u.cont-2.json")]
    conv = refs[0].open_conversation()  # type: ignore[union-attr]
    texts = [e.llm_message.content[0].text for e in conv.iter_events() if hasattr(e, "llm_message")]
    assert texts == ["a", "b", "c"]


def test_a_changed_continuation_changes_the_fingerprint(tmp_path: Path) -> None:
    """serve's cache and the site see a joined trajectory change when a continuation grows."""
    import os

    from trajkit.views.catalog import source_fingerprint

    (tmp_path / "t.json").write_text(json.dumps(_part(["a"], "t.cont-1.json")))
    ref = ShapeRef("atif", str(tmp_path / "t.json"))
    before = source_fingerprint(ref)
    cont = tmp_path / "t.cont-1.json"
    cont.write_text(json.dumps(_part(["b"])))  # the run went on after a context reset
    appeared = source_fingerprint(ref)
    cont.write_text(json.dumps(_part(["b", "c"])))
    os.utime(cont, ns=(1, 1))
    assert len({before, appeared, source_fingerprint(ref)}) == 3
