"""litellm, imported on first use: it takes seconds to import, so `import trajkit.sdk` does not
pay for it (and the toolkit never does). Its price map is read from the installed package, never
fetched (``LITELLM_LOCAL_MODEL_COST_MAP``).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["import_litellm"]


def import_litellm() -> Any:
    """The litellm module, imported now if it was not yet, with its debug banner off."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm  # heavy: imported on the first model call

    litellm.suppress_debug_info = True
    return litellm
