"""Issue 18, "Missing": SDK features trajkit lacked, each run as the SDK script and compared
with openhands-sdk 1.58.2's recording (or, where nothing is recorded, checked directly)."""

from __future__ import annotations

from tests.sdk.parity.conftest import Compare


def test_visualizers_default_none_and_custom(compare: Compare) -> None:
    got, _ = compare("visualizers")
    result = got["result"]
    assert result["default_shows_answer"] and result["default_shows_thought"]
    assert not result["none_prints"]
    assert result["custom_kinds"] == [
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "MessageEvent",
    ]


def test_stats_tags_iteration_limit_stuck_detector_sender(compare: Compare) -> None:
    got, want = compare("stats_and_tags")
    assert got["result"]["tags"] == {"team": "parity", "run1": "x"}
    assert got["conversations"][0]["base_state"]["tags"] == want["conversations"][0][
        "base_state"
    ]["tags"]
    assert got["conversations"][0]["base_state"]["max_iterations"] == 7
