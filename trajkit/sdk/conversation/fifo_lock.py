"""The SDK's ``conversation.fifo_lock`` path."""

from trajkit.sdk.fifo_lock import FIFOLock

__all__ = ["FIFOLock"]
