"""Shared pydantic configuration for the persisted format.

Events and payloads are frozen and strict (``extra="forbid"``), as the OpenHands SDK writes them:
an unknown field inside a known kind is a validation error, while an unknown ``kind`` is kept
opaque by the parser (see ``parse.py``). Field docstrings become JSON Schema descriptions.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """Frozen model that rejects unknown keys (events, payloads, content items)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
        populate_by_name=True,
    )


class OpenModel(BaseModel):
    """Model that keeps unknown keys (configuration objects written by newer SDKs)."""

    model_config = ConfigDict(
        extra="allow",
        use_attribute_docstrings=True,
        populate_by_name=True,
    )
