"""Real conversations validate clean, through the CLI and the library, in any way they are named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.engine import LocalEngine
from trajkit.validate import Summary, validate_conversation, validate_file, validate_paths


def test_every_sdk_conversation_is_valid(sdk_conversation_dir: Path) -> None:
    report = validate_conversation(sdk_conversation_dir, strict=True)
    assert report.problems == []
    assert report.events == len(list((sdk_conversation_dir / "events").glob("event-*.json")))


def test_every_sdk_event_file_is_valid_alone() -> None:
    files = fx.sdk_event_files()
    assert len(files) == 70
    for path in files:
        assert validate_file(path, strict=True).problems == [], path


def test_cli_over_the_fixture_tree() -> None:
    result = CliRunner().invoke(main, ["validate", str(fx.SDK_FIXTURES)])
    assert result.exit_code == 0, result.output
    assert result.output == "valid: 8 conversations (70 events)\n"


def test_cli_json_report() -> None:
    conv = fx.sdk_conversation("b_terminal")
    result = CliRunner().invoke(
        main, ["validate", "--json", str(conv), str(fx.BAD_FIXTURES / "wrong_field_types")]
    )
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["valid"] is False
    assert (report["conversations"], report["events"], report["errors"], report["warnings"]) == (
        2,
        12,
        2,
        0,
    )
    pointers = {(p["pointer"], p["severity"], p["code"]) for p in report["problems"]}
    assert pointers == {
        ("/observation/exit_code", "error", "schema"),
        ("/observation/is_error", "error", "schema"),
    }
    assert all(
        p["path"].endswith("event-00003-1a039bec-6c39-423d-8cf2-16682be44291.json")
        for p in report["problems"]
    )


def test_two_workers_give_the_same_reports_in_order() -> None:
    paths = [fx.SDK_FIXTURES, fx.BAD_FIXTURES]
    one = [(r.path, r.events, r.problems) for r in validate_paths(paths, engine=LocalEngine(1))]
    two = [(r.path, r.events, r.problems) for r in validate_paths(paths, engine=LocalEngine(2))]
    assert one == two
    assert len(one) == 8 + len([p for p in fx.BAD_FIXTURES.iterdir() if p.is_dir()])
    summary = Summary()
    for report in validate_paths(paths, engine=LocalEngine(2)):
        summary.add(report)
    assert summary.conversations == len(one) and not summary.valid


def test_events_folder_and_single_files(tmp_path: Path) -> None:
    conv = fx.sdk_conversation("d_parallel")
    files = sorted((conv / "events").glob("event-*.json"))[:3]
    result = CliRunner().invoke(
        main, ["validate", str(conv / "events"), *map(str, files), str(conv / "base_state.json")]
    )
    assert result.exit_code == 0, result.output
    assert result.output == "valid: 1 conversation, 4 files (15 events)\n"


def test_validate_leaves_the_runtime_unloaded() -> None:
    code = (
        "import sys\n"
        "from trajkit.cli import main\n"
        "try:\n"
        f"    main(['validate', {str(fx.SDK_FIXTURES)!r}, {str(fx.BAD_FIXTURES)!r}, '--jobs', '1'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in sys.modules if m == 'litellm' or m.startswith(('litellm.', 'trajkit.sdk', 'trajkit.tools')))\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
    assert "INVALID" in out.stdout  # it did run over the bad fixtures


def test_thorough_mode_agrees_with_the_fast_path() -> None:
    """`--thorough` runs jsonschema on every file; on real and bad data it finds the same."""
    paths = [fx.SDK_FIXTURES, fx.BAD_FIXTURES]
    fast = [(r.path, r.problems) for r in validate_paths(paths, engine=LocalEngine(1))]
    thorough = [
        (r.path, r.problems) for r in validate_paths(paths, engine=LocalEngine(1), thorough=True)
    ]
    assert fast == thorough
    result = CliRunner().invoke(main, ["validate", "--thorough", str(fx.SDK_FIXTURES)])
    assert result.output == "valid: 8 conversations (70 events)\n"


def test_lax_coercion_is_not_accepted() -> None:
    """pydantic's lax mode would read "0" as 0; the format (and its schema) says integer."""
    from pydantic import ValidationError

    from trajkit.events import ObservationEvent

    bad = next((fx.BAD_FIXTURES / "wrong_field_types" / "events").glob("event-00003-*.json"))
    ObservationEvent.model_validate_json(bad.read_bytes())  # lax: accepted
    try:
        ObservationEvent.model_validate_json(bad.read_bytes(), strict=True)
    except ValidationError:
        pass
    else:
        raise AssertionError("strict validation accepted a string exit_code")
    report = validate_file(bad)
    assert [p.pointer for p in report.problems] == [
        "/observation/is_error",
        "/observation/exit_code",
    ]
