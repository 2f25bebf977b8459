"""The error family: message shape, and errors surviving a trip from a worker process."""

from __future__ import annotations

import pickle

import pytest

from trajkit.errors import (
    InputError,
    LockTimeout,
    OutputError,
    OutputExists,
    StoreConflict,
    TrajkitError,
    UnsafePath,
    UsageError,
    json_pointer,
)


def test_input_error_names_file_pointer_and_message():
    err = InputError("conv/events/event-00001-ab.json", "/action/command", "expected a string")
    assert str(err) == "conv/events/event-00001-ab.json:/action/command: expected a string"
    assert (err.path, err.pointer, err.message) == (
        "conv/events/event-00001-ab.json",
        "/action/command",
        "expected a string",
    )


def test_output_exists_gives_the_next_step():
    assert str(OutputExists("out.parquet")) == (
        "out.parquet: already exists; pass --overwrite to replace it"
    )


@pytest.mark.parametrize(
    "err",
    [
        InputError("f.json", "/a/0", "bad"),
        UnsafePath("events", "/id", "escapes"),
        OutputExists("out", "use another name"),
        OutputError("out.json", "No space left on device (ENOSPC)"),
        UsageError("--json and --quiet"),
        StoreConflict("duplicate"),
        LockTimeout("held"),
    ],
)
def test_errors_pickle_round_trip(err):
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and str(back) == str(err)
    assert isinstance(back, TrajkitError)


def test_whole_file_input_error_has_no_empty_pointer():
    assert str(InputError("conv/base_state.json", "", "not valid JSON")) == (
        "conv/base_state.json: not valid JSON"
    )


def test_output_error_names_the_output_not_the_temp_file():
    exc = OSError(28, "No space left on device", "out/.c.json.x1y2.tmp")
    err = OutputError.from_os("out/c.json", exc)
    assert str(err) == "out/c.json: cannot write: No space left on device (ENOSPC)"
    other = OSError(13, "Permission denied", "out/sub")
    assert str(OutputError.from_os("out/c.json", other)) == (
        "out/c.json: cannot write: Permission denied (EACCES) at out/sub"
    )
    assert isinstance(OutputExists("x"), OutputError)


def test_json_pointer_escapes_rfc6901():
    assert json_pointer(["a/b", 0, "m~n"]) == "/a~1b/0/m~0n"
    assert json_pointer([]) == ""
