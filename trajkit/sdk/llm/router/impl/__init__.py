"""Router implementations."""

from trajkit.sdk.llm.router.impl.multimodal import MultimodalRouter

__all__ = ["MultimodalRouter"]
