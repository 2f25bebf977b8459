"""`trajkit.views` declares its API once, and importing it loads neither rich nor pygments."""

from __future__ import annotations

import subprocess
import sys

import trajkit.views


def test_exported_names() -> None:
    assert sorted(trajkit.views.__all__) == [
        "Broken",
        "ConversationRow",
        "ConversationStats",
        "CorpusStats",
        "LoadedConversation",
        "conversation_stats",
        "iter_rows",
        "load_conversation",
    ]
    for name in trajkit.views.__all__:
        assert getattr(trajkit.views, name).__module__.startswith("trajkit.views.")


def test_import_and_ls_stay_light() -> None:
    code = (
        "import sys\n"
        "import trajkit.views\n"
        "from trajkit.views.summary import iter_rows\n"
        "from trajkit.views.tables import format_rows\n"
        "print([m for m in ('rich', 'pygments', 'litellm', 'trajkit.sdk', 'pyarrow') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr
