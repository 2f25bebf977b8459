"""Tools of the trajkit runtime: ``terminal``, ``file_editor``, ``task_tracker``, and ``preset``
(the SDK's default agent). Tools are found by name through ``trajkit.sdk.tool.registry``.
"""

from trajkit._extras import RUNTIME_MODULES, require

require("runtime", *RUNTIME_MODULES, feature="trajkit.tools (the runtime's tools)")
