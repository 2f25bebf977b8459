"""Secret sources and the conversation's secret registry (`trajkit.sdk.secret.secrets`), at the
SDK's ``secret`` path.
"""

from trajkit.sdk.secret.secrets import (
    Cipher,
    LookupSecret,
    SecretRegistry,
    SecretSource,
    SecretValue,
    StaticSecret,
    UnavailableSecret,
)

__all__ = [
    "Cipher",
    "LookupSecret",
    "SecretRegistry",
    "SecretSource",
    "SecretValue",
    "StaticSecret",
    "UnavailableSecret",
]
