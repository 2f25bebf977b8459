"""Logging for the runtime: ``get_logger(name)`` and ``setup_logging(...)``.

Configured from the environment on first use, as the SDK's examples expect:

- ``LOG_LEVEL`` (default ``INFO``): level of trajkit's loggers (and of ``__main__``'s);
- ``LOG_JSON`` (``true``/``1``): one JSON object per line instead of plain text;
- ``LOG_TO_FILE`` (``true``/``1``): also write ``<LOG_DIR>/app.log`` (the SDK's name);
- ``LOG_DIR`` (default ``logs``): folder for the log file.

Console output goes to stderr, so a program's own stdout stays clean. `setup_logging` can be
called again with explicit values; it replaces the handlers it installed before.

Every record goes through one masking filter on each handler before it is written: the secret
values a running conversation knows (registered secrets, the LLM's configured credentials,
added with `register_log_secrets`) and provider-key-looking strings are hidden in the message
and in the exception text, in every form `trajkit.redact.SecretMasker` finds.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from trajkit.redact import SecretMasker

__all__ = ["JsonFormatter", "MaskingFilter", "get_logger", "register_log_secrets", "setup_logging"]

_HANDLER_FLAG = "_trajkit_handler"
_configured = False
_ROOT_NAMES = ("trajkit",)
_log_secrets: set[str] = set()
_log_masker: SecretMasker = SecretMasker((), api_keys=True)
_masker_lock = threading.Lock()


def register_log_secrets(values: Iterable[str]) -> None:
    """Add secret values that no log record may show (kept for the life of the process)."""
    global _log_masker
    new = {v for v in values if isinstance(v, str) and v} - _log_secrets
    if not new:
        return
    with _masker_lock:
        _log_secrets.update(new)
        _log_masker = SecretMasker(_log_secrets, api_keys=True)


class MaskingFilter(logging.Filter):
    """Rewrites each record with its message and exception text masked (see the module doc)."""

    def filter(self, record: logging.LogRecord) -> bool:
        masker = _log_masker
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: let logging report it as usual
            return True
        record.msg, record.args = masker.text(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = masker.text(record.exc_text)
            record.exc_info = None
        if record.stack_info:
            record.stack_info = masker.text(record.stack_info)
        return True


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
        handlers.append(logging.FileHandler(folder / "app.log", encoding="utf-8"))
    for name in (*_ROOT_NAMES, "__main__"):
        lg = logging.getLogger(name)
        for h in [h for h in lg.handlers if getattr(h, _HANDLER_FLAG, False)]:
            lg.removeHandler(h)
            h.close()
        for h in handlers:
            h.setFormatter(formatter)
            if not any(isinstance(f, MaskingFilter) for f in h.filters):
                h.addFilter(MaskingFilter())
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
    if not any(isinstance(f, MaskingFilter) for f in logger.filters):
        logger.addFilter(MaskingFilter())  # masked before any handler (ours or not) sees it
    if not name.startswith(_ROOT_NAMES) and name != "__main__":
        parent = logging.getLogger("trajkit")
        logger.setLevel(parent.level)
        if not logger.handlers:
            for h in parent.handlers:
                logger.addHandler(h)
            logger.propagate = False
    return logger
