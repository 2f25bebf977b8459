"""The SDK's ``secret`` path: secret sources (`trajkit.sdk.secrets`)."""

from trajkit.sdk.secrets import (
    LookupSecret,
    SecretSource,
    SecretValue,
    StaticSecret,
    UnavailableSecret,
)

__all__ = ["LookupSecret", "SecretSource", "SecretValue", "StaticSecret", "UnavailableSecret"]
