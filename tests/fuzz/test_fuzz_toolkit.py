"""Property tests: hostile and mutated inputs give a result or a clear error, never a crash.

CI runs a small budget; `TRAJKIT_FUZZ_EXAMPLES=5000 pytest tests/fuzz` runs a long one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import FIXTURES, FUZZ, hostile_bytes, mutated_events
from trajkit.cli import main
from trajkit.errors import InputError, TrajkitError
from trajkit.events import Event
from trajkit.store.reader import parse_event_bytes

TEMPLATE = next((FIXTURES / "d_parallel").glob("[0-9a-f]" * 32))


def _fresh_copy(tmp_root: Path) -> Path:
    dst = tmp_root / TEMPLATE.name
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(TEMPLATE, dst)
    return dst


@FUZZ
@given(data=hostile_bytes)
def test_event_loader_on_hostile_bytes(data: bytes):
    try:
        event = parse_event_bytes(Path("event-00000-aaaaaaaa.json"), data)
    except InputError as exc:
        assert exc.path == "event-00000-aaaaaaaa.json"
        assert str(exc).startswith("event-00000-aaaaaaaa.json:")
    else:
        assert isinstance(event, Event)


@FUZZ
@given(obj=mutated_events())
def test_event_loader_on_mutated_fixtures(obj):
    raw = json.dumps(obj).encode()
    try:
        event = parse_event_bytes(Path("e.json"), raw)
    except InputError as exc:
        assert exc.message  # says what was expected
        assert exc.pointer == "" or exc.pointer.startswith("/")
    else:
        # Whatever loads dumps back to JSON that loads again to the same event.
        assert parse_event_bytes(Path("e.json"), event.to_json().encode()) == event


@FUZZ
@given(obj=mutated_events(), data=st.data())
def test_validate_convert_cli_on_mutated_conversation(tmp_path_factory, obj, data):
    conv = _fresh_copy(tmp_path_factory.mktemp("fz"))
    files = sorted((conv / "events").glob("event-*.json"))
    target = data.draw(st.sampled_from(files))
    target.write_text(json.dumps(obj))
    runner = CliRunner()
    for args in (
        ["validate", str(conv)],
        ["validate", "--strict", "--json", str(conv)],
        ["convert", str(conv), "--to", "chat"],
        ["convert", str(conv), "--to", "responses", "--view", "full"],
        ["repair", "--dry-run", str(conv)],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code in (0, 1), (args, result.output, result.exception)
        if result.exception is not None:
            assert isinstance(result.exception, SystemExit), (args, repr(result.exception))
        assert "Traceback" not in result.output


@FUZZ
@given(obj=mutated_events())
def test_library_convert_raises_only_trajkit_errors(tmp_path_factory, obj):
    from trajkit.convert import convert_conversation

    conv = _fresh_copy(tmp_path_factory.mktemp("fl"))
    last = sorted((conv / "events").glob("event-*.json"))[-1]
    last.write_text(json.dumps(obj))
    for to in ("chat", "responses"):
        try:
            out = convert_conversation(conv, to=to)
        except TrajkitError:
            continue
        json.dumps(out)  # always serializable


def test_lone_surrogate_in_input_is_printed_not_crashed(tmp_path):
    # Found by the fuzzer: "\udcff" is valid JSON but cannot be encoded as UTF-8 on output.
    conv = _fresh_copy(tmp_path)
    first = sorted((conv / "events").glob("event-*.json"))[0]
    obj = json.loads(first.read_text())
    obj["source"] = "\udcff"
    first.write_text(json.dumps(obj))
    result = CliRunner().invoke(main, ["validate", str(conv)])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "\\udcff" in result.output
