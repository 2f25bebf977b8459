"""The SDK's ``security.confirmation_policy`` path."""

from trajkit.sdk.confirmation import AlwaysConfirm, ConfirmationPolicy, ConfirmRisky, NeverConfirm

__all__ = ["AlwaysConfirm", "ConfirmRisky", "ConfirmationPolicy", "NeverConfirm"]
