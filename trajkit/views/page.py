"""What every trajkit page shares: its assets (package data), the CSP and its nonce.

Light on purpose (no pygments, no event model): `trajkit serve` draws its index with it
before anything heavier is imported.
"""

from __future__ import annotations

import secrets
from functools import lru_cache
from importlib import resources

__all__ = ["asset", "content_security_policy", "new_nonce"]


def new_nonce() -> str:
    """A fresh CSP nonce (128 random bits)."""
    return secrets.token_urlsafe(16)


def content_security_policy(nonce: str, *, connect: bool = False) -> str:
    """The pages' policy: nothing but the page's own nonce-bearing script and styles."""
    return (
        f"default-src 'none'; img-src data:; style-src 'nonce-{nonce}'; "
        f"script-src 'nonce-{nonce}'; connect-src {_SELF if connect else _NONE}; "
        "base-uri 'none'; form-action 'none'"
    )


_SELF, _NONE = "'self'", "'none'"


@lru_cache(maxsize=8)
def asset(name: str) -> str:
    """The text of a stylesheet or script shipped in `trajkit/views/assets/`."""
    return resources.files("trajkit.views").joinpath("assets", name).read_text(encoding="utf-8")
