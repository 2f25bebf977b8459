"""Optional dependencies: say which extra to install when one is missing.

`pip install trajkit` is the toolkit (validate, convert, migrate, export, views);
`pip install "trajkit[runtime]"` adds what `trajkit.sdk` and `trajkit.tools` need (litellm,
mcp, cryptography, pyyaml). `require()` only looks modules up (`importlib.util.find_spec`), so
checking costs nothing and imports nothing.
"""

from __future__ import annotations

import importlib.util

__all__ = ["RUNTIME_MODULES", "MissingExtra", "require"]

RUNTIME_MODULES = ("litellm", "mcp", "cryptography", "yaml", "jinja2", "ptyprocess")
"""Import names of the `runtime` extra's packages (pyyaml imports as `yaml`; jinja2 renders the
system prompt, ptyprocess runs the terminal)."""


class MissingExtra(ModuleNotFoundError):
    """An optional dependency is not installed; the message names the extra to install."""


def require(extra: str, *modules: str, feature: str) -> None:
    """Raise `MissingExtra` naming `pip install "trajkit[<extra>]"` if a module is missing."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtra(
            f"{feature} needs the '{extra}' extra, which is not installed "
            f'(missing: {", ".join(missing)}); install it with: pip install "trajkit[{extra}]"',
            name=missing[0],
        )
