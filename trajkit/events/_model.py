"""Shared pydantic configuration for the persisted format.

Events and payloads are frozen and strict (``extra="forbid"``), as the OpenHands SDK writes them:
an unknown field inside a known kind is a validation error, while an unknown ``kind`` is kept
opaque by the parser (see ``parse.py``). Field docstrings become JSON Schema descriptions.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)


class StrictModel(BaseModel):
    """Frozen model that rejects unknown keys (events, payloads, content items)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
        populate_by_name=True,
    )


class KeepNullExtras(BaseModel):
    """Keeps unknown keys whose value is null when dumping with ``exclude_none``.

    ``exclude_none`` stands for the SDK's "absent means None" on the fields a model declares;
    an unknown key is data we only carry, so its null must survive a round trip.
    """

    @model_serializer(mode="wrap")
    def _keep_null_extras(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        extra = self.__pydantic_extra__
        if info.exclude_none and extra and isinstance(data, dict):
            for key, value in extra.items():
                if value is None and key not in data:
                    data[key] = None
        return data


class OpenModel(KeepNullExtras):
    """Model that keeps unknown keys (configuration objects written by newer SDKs)."""

    model_config = ConfigDict(
        extra="allow",
        use_attribute_docstrings=True,
        populate_by_name=True,
    )
