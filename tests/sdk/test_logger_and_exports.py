"""Logging from the environment and setup_logging; the public names of trajkit.sdk."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import trajkit.sdk
from trajkit.sdk.logger import get_logger, setup_logging


def test_sdk_exports() -> None:
    assert set(trajkit.sdk.__all__) >= {
        "LLM", "Agent", "Conversation", "Event", "LLMConvertibleEvent", "Tool", "get_logger",
    }  # fmt: skip
    from trajkit.events import Event, LLMConvertibleEvent
    from trajkit.sdk.tool import Tool

    assert trajkit.sdk.Event is Event and trajkit.sdk.LLMConvertibleEvent is LLMConvertibleEvent
    assert trajkit.sdk.Tool is Tool
    for name in trajkit.sdk.__all__:
        assert getattr(trajkit.sdk, name) is not None


def test_setup_logging_json_to_file(tmp_path: Path) -> None:
    try:
        setup_logging(log_to_file=True, log_dir=str(tmp_path / "logs"), json_format=True)
        get_logger("trajkit.test").info("hello %s", "world")
        for h in logging.getLogger("trajkit").handlers:
            h.flush()
        lines = (tmp_path / "logs" / "app.log").read_text().splitlines()
        record = json.loads(lines[-1])
        assert record["message"] == "hello world" and record["level"] == "INFO"
        assert record["logger"] == "trajkit.test"
    finally:
        setup_logging(log_to_file=False, json_format=False)


def test_environment_configures_logging(tmp_path: Path) -> None:
    code = (
        "from trajkit.sdk.logger import get_logger\n"
        "log = get_logger('__main__')\n"
        "log.debug('debug line')\n"
        "log.warning('warn line')\n"
    )
    env = {
        "LOG_JSON": "true",
        "LOG_TO_FILE": "1",
        "LOG_DIR": str(tmp_path / "d"),
        "LOG_LEVEL": "DEBUG",
        "PATH": "/usr/bin:/bin",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert out.stdout == ""  # logs go to stderr and the file, never stdout
    file_lines = [json.loads(x) for x in (tmp_path / "d" / "app.log").read_text().splitlines()]
    assert [r["message"] for r in file_lines] == ["debug line", "warn line"]
    assert "warn line" in out.stderr
