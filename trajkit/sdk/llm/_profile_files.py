"""Where LLM profiles are kept and how one is read: the file rules `LLMProfileStore` and
`FallbackStrategy` share, with no LLM class involved (so the LLM, which holds a fallback
strategy, and the store, which makes LLMs, do not import each other).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["list_profiles", "profile_path", "read_profile", "resolve_base"]


def resolve_base(base_dir: str | Path | None) -> Path:
    """The profile folder: ``base_dir``, by default ``~/.openhands/profiles``."""
    return Path(base_dir) if base_dir else Path.home() / ".openhands" / "profiles"


def profile_path(base_dir: Path, name: str) -> Path:
    """``<base_dir>/<name>.json``; a name with a separator or a leading dot is refused."""
    stem = name.removesuffix(".json")
    if not stem or "/" in stem or "\\" in stem or stem.startswith("."):
        raise ValueError(f"profile name {name!r}: expected a plain name like 'backup'")
    return base_dir / f"{stem}.json"


def list_profiles(base_dir: Path) -> list[str]:
    """Saved profile file names (``backup.json``...)."""
    if not base_dir.is_dir():
        return []
    return sorted(p.name for p in base_dir.glob("*.json"))


def read_profile(base_dir: Path, name: str) -> str:
    """The JSON text of profile ``name``.

    Raises:
        FileNotFoundError: no such profile (the message lists the saved ones).
    """
    path = profile_path(base_dir, name)
    if not path.is_file():
        raise FileNotFoundError(
            f"no LLM profile {name!r} in {base_dir} (saved: {', '.join(list_profiles(base_dir))})"
        )
    return path.read_text()
