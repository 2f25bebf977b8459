"""Reading ATIF: every real file, embedded subagents, and bad input named by file and pointer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.formats._shared import needs_formats
from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.errors import InputError
from trajkit.events import ActionEvent, Condensation, ObservationEvent, SystemPromptEvent
from trajkit.shapes import ShapeRef, shape_refs
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
def test_compaction_marker_becomes_a_condensation() -> None:
    ref = ShapeRef("atif", str(fx.FORMATS / fx.ATIF_FILES[2]))
    events = list(ref.open_conversation().iter_events())
    at = next(i for i, e in enumerate(events) if isinstance(e, Condensation))
    condensation = events[at]
    assert isinstance(condensation, Condensation)
    before = [e.id for e in events[:at] if e.kind in ("MessageEvent", "ActionEvent")]
    assert before and condensation.forgotten_event_ids == before  # no system prompt here
    assert condensation.summary and condensation.summary_offset == 0
    assert any("continued in trajectory.cont-1.json" in n for n in ref.open_conversation().notes)


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
