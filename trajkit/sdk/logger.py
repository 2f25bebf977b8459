"""Logging for the runtime: ``get_logger(name)`` and ``setup_logging(...)``.

Configured from the environment on first use, as the SDK's examples expect:

- ``LOG_LEVEL`` (default ``INFO``): level of trajkit's loggers (and of ``__main__``'s);
- ``LOG_JSON`` (``true``/``1``): one JSON object per line instead of plain text;
- ``LOG_TO_FILE`` (``true``/``1``): also write ``<LOG_DIR>/trajkit.log``;
- ``LOG_DIR`` (default ``logs``): folder for the log file.

Console output goes to stderr, so a program's own stdout stays clean. `setup_logging` can be
called again with explicit values; it replaces the handlers it installed before.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["JsonFormatter", "get_logger", "setup_logging"]

_HANDLER_FLAG = "_trajkit_handler"
_configured = False
_ROOT_NAMES = ("trajkit",)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message (+ exception)."""

    def format(self, record: logging.LogRecord) -> str:
        data = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def setup_logging(
    *,
    level: str | int | None = None,
    log_to_file: bool | None = None,
    log_dir: str | os.PathLike[str] | None = None,
    json_format: bool | None = None,
) -> None:
    """Install trajkit's handlers; unset arguments come from LOG_LEVEL/LOG_TO_FILE/LOG_DIR/LOG_JSON."""
    global _configured
    level = level if level is not None else os.environ.get("LOG_LEVEL", "INFO")
    if isinstance(level, str):
        level = logging.getLevelName(level.strip().upper())
        if not isinstance(level, int):
            level = logging.INFO
    to_file = _truthy(os.environ.get("LOG_TO_FILE")) if log_to_file is None else log_to_file
    folder = Path(log_dir if log_dir is not None else os.environ.get("LOG_DIR", "logs"))
    as_json = _truthy(os.environ.get("LOG_JSON")) if json_format is None else json_format
    formatter: logging.Formatter = (
        JsonFormatter()
        if as_json
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if to_file:
        folder.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(folder / "trajkit.log", encoding="utf-8"))
    for name in (*_ROOT_NAMES, "__main__"):
        lg = logging.getLogger(name)
        for h in [h for h in lg.handlers if getattr(h, _HANDLER_FLAG, False)]:
            lg.removeHandler(h)
            h.close()
        for h in handlers:
            h.setFormatter(formatter)
            setattr(h, _HANDLER_FLAG, True)
            lg.addHandler(h)
        lg.setLevel(level)
        lg.propagate = False
    _configured = True


def get_logger(name: str) -> logging.Logger:
    """A logger; the first call configures trajkit's logging from the environment."""
    if not _configured:
        setup_logging()
    logger = logging.getLogger(name)
    if not name.startswith(_ROOT_NAMES) and name != "__main__":
        parent = logging.getLogger("trajkit")
        logger.setLevel(parent.level)
        if not logger.handlers:
            for h in parent.handlers:
                logger.addHandler(h)
            logger.propagate = False
    return logger
