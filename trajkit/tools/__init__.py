"""Tools of the trajkit runtime: ``terminal`` and ``file_editor`` (import their packages)."""
