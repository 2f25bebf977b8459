"""Tools of the trajkit runtime: ``terminal``, ``file_editor``, ``task_tracker``, and ``preset``
(the SDK's default agent). Tools are found by name through ``trajkit.sdk.tool``'s registry."""
