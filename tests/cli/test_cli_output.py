"""`cli/_output.py`: progress only on a terminal, JSON documents, paths as the user reads them."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.cli import _output


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_progress_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    with _output.progress("validating") as bar:
        bar.advance(note="x")
    assert stream.getvalue() == ""


def test_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.delenv("CI", raising=False)
    with _output.progress("validating", total=3) as bar:
        for name in ("a", "b", "c"):
            bar.advance(note=name)
    assert "validating" in stream.getvalue()


def test_progress_disabled_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.delenv("CI", raising=False)
    with _output.progress("validating", enabled=False) as bar:
        bar.advance()
    assert stream.getvalue() == ""


def test_validate_on_a_pipe_does_not_load_rich() -> None:
    code = (
        "import sys\n"
        "from trajkit.cli import main\n"
        f"try: main(['validate', {str(fx.SDK_FIXTURES)!r}])\n"
        "except SystemExit: pass\n"
        "print('RICH', 'rich' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "RICH False" in out.stdout, out.stdout + out.stderr


def test_echo_json(capsys: pytest.CaptureFixture[str]) -> None:
    _output.echo_json({"path": Path("a/b"), "n": 1, "text": "é"})
    assert json.loads(capsys.readouterr().out) == {"path": "a/b", "n": 1, "text": "é"}


def test_display_path() -> None:
    here = Path.cwd()
    assert _output.display_path(here / "x" / "y.json") == os.path.join("x", "y.json")
    assert _output.display_path("rel/path") == "rel/path"
    outside = here.parent / "elsewhere"
    assert _output.display_path(outside) == str(outside)
