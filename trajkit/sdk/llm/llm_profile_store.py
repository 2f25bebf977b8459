"""``LLMProfileStore``: LLM configurations saved by name (the SDK's class of that name).

One ``<name>.json`` per profile (default ``~/.openhands/profiles``), written atomically with
mode 0600; secrets are masked unless ``include_secrets=True`` (then in clear in that private
file, as the SDK does). Saves and deletes hold ``<base>/.profiles.lock`` (``flock``), the SDK's
lock file, so two processes never interleave on one store. Names are plain file names: no separators, no leading dot. The file
rules are `trajkit.sdk.llm._profile_files`, which `FallbackStrategy` reads through too.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path

from trajkit.sdk.llm._profile_files import profile_path, read_profile, resolve_base
from trajkit.sdk.llm.llm import LLM
from trajkit.store.atomic import atomic_write

__all__ = ["LLMProfileStore"]


class LLMProfileStore:
    """LLM configurations saved by name as JSON files."""

    def __init__(self, base_dir: str | Path | None = None) -> None:
        self.base_dir = resolve_base(base_dir)

    def save(self, name: str, llm: LLM, include_secrets: bool = False) -> None:
        """Write ``llm`` as profile ``name`` (replacing one of that name)."""
        data = llm.model_dump(mode="json", context={"expose_secrets": include_secrets})
        path = profile_path(self.base_dir, name)
        with self._locked():
            atomic_write(path, json.dumps(data, indent=2) + "\n", mode=0o600)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.base_dir.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.base_dir / ".profiles.lock", flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def load(self, name: str) -> LLM:
        """The LLM saved as ``name``.

        Raises:
            FileNotFoundError: no such profile (the message lists the saved ones).
        """
        return LLM.model_validate_json(read_profile(self.base_dir, name))

    def list(self) -> list[str]:
        """Saved profile file names (``backup.json``...), in directory order as the SDK's."""
        if not self.base_dir.is_dir():
            return []
        with self._locked():
            return [p.name for p in self.base_dir.glob("*.json")]

    def delete(self, name: str) -> None:
        """Remove profile ``name`` (no error when absent)."""
        path = profile_path(self.base_dir, name)
        with self._locked():
            path.unlink(missing_ok=True)
