"""`trajkit export`: exit codes and the exact lines it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.export.conftest import FAKE_KEY, add_secrets
from tests.support import fixtures as fx
from trajkit.cli import main

N_CONVERSATIONS = len(fx.sdk_conversations())


def _run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["export", *map(str, args), "--workers", "1"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def _summary(stderr: str) -> str:
    # The timing varies; everything else is exact.
    return re.sub(r" in \d+\.\ds;", " in Xs;", stderr.strip().splitlines()[-1])


def test_export_prints_one_summary_line(tmp_path: Path) -> None:
    code, err = _run(fx.SDK_FIXTURES, "-o", tmp_path / "out")
    assert code == 0
    assert _summary(err) == (
        f"exported {N_CONVERSATIONS} conversation(s), 70 event(s) to {tmp_path / 'out'} in Xs; "
        "0 unchanged, 0 filtered out, 0 skipped; 0 secret(s) redacted"
    )
    code, err = _run(fx.SDK_FIXTURES, "-o", tmp_path / "out")
    assert code == 0 and f"; {N_CONVERSATIONS} unchanged, 0 filtered" in err


def test_bad_conversations_are_listed_and_exit_1(tmp_path: Path) -> None:
    code, err = _run(
        fx.sdk_conversation("a_text"),
        fx.BAD_FIXTURES / "truncated_base_state",
        "-o",
        tmp_path / "o",
    )
    assert code == 1
    lines = err.strip().splitlines()
    assert lines[0] == (
        f"Error: {fx.BAD_FIXTURES / 'truncated_base_state' / 'base_state.json'}: truncated JSON: "
        "the text ends inside a value (unterminated string starting at line 1 column 985); "
        "invalid, skipped"
    )  # validate's message: export skips what validate rejects (issue 16); an unreadable
    # file is not offered --keep-invalid, which cannot read it either (issue 25)
    assert "exported 1 conversation(s)" in lines[-1] and "1 skipped" in lines[-1]
    assert "Traceback" not in err
    assert pq.read_table(tmp_path / "o" / "conversations").num_rows == 1


def test_non_empty_out_dir_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("x")
    code, err = _run(fx.SDK_FIXTURES, "-o", out)
    assert code == 1
    assert err == (
        f"Error: {out}: already exists; the folder is not empty and holds no trajkit export "
        "(manifest.json); choose an empty folder, or pass --overwrite to write the dataset into it\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]


def test_changed_options_need_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _run(fx.SDK_FIXTURES, "-o", out)[0] == 0
    code, err = _run(fx.SDK_FIXTURES, "-o", out, "--no-redact")
    assert code == 2
    assert "made with --view condensed, not --view condensed --no-redact" in err
    assert _run(fx.SDK_FIXTURES, "-o", out, "--no-redact", "--overwrite")[0] == 0


def test_filters_and_dates(tmp_path: Path) -> None:
    code, err = _run(fx.SDK_FIXTURES, "-o", tmp_path / "a", "--status", "finished",
                     "--model", "gpt-4o", "--tool", "file_editor", "--until", "2030-01-01")  # fmt: skip
    assert code == 0
    exported = int(err.split("exported ")[1].split(" ")[0])
    assert 1 <= exported < N_CONVERSATIONS
    assert f"{N_CONVERSATIONS - exported} filtered out" in err
    code, err = _run(fx.SDK_FIXTURES, "-o", tmp_path / "b", "--since", "someday")
    assert code == 2 and "'someday' is not a date" in err


def test_redaction_count_is_reported(corpus: Path, tmp_path: Path) -> None:
    conv = corpus / fx.sdk_conversation("b_terminal").name
    add_secrets(conv)
    code, err = _run(conv, "-o", tmp_path / "out")
    assert code == 0
    match = re.search(r"; (\d+) secret\(s\) redacted", err)
    assert match is not None
    count = int(match.group(1))
    assert count >= 6
    code, err = _run(conv, "-o", tmp_path / "raw", "--no-redact")
    assert code == 0 and err.rstrip().endswith("; secrets not redacted")
    events = pq.read_table(tmp_path / "raw" / "events").to_pylist()
    assert any(FAKE_KEY in r["event_json"] for r in events)


@pytest.mark.parametrize("args", [["--help"]])
def test_help_names_every_option(args: list[str]) -> None:
    result = CliRunner().invoke(main, ["export", *args])
    for option in ("--view", "--overwrite", "--no-redact", "--from-v0", "--status", "--model",
                   "--since", "--until", "--tool", "--jobs", "-o"):  # fmt: skip
        assert option in result.output
