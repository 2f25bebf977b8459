"""Issue 18, "Missing: import paths": the SDK examples' imports resolve under ``trajkit``, each
to a working object, and trajkit's earlier names keep working."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

# (module, names) as openhands-sdk 1.58.2's examples import them, renamed
SDK_IMPORTS = [
    ("trajkit.sdk", ["LLM", "Agent", "Conversation", "Tool", "Event", "LLMConvertibleEvent",
                     "get_logger", "Message", "TextContent", "ImageContent", "LLMRegistry",
                     "AgentContext", "ConversationExecutionStatus", "ConversationCallbackType",
                     "LocalConversation", "ConversationStats", "MessageEvent", "LocalWorkspace",
                     "TokenUsage", "ThinkingBlock", "RedactedThinkingBlock", "RegistryEvent"]),
    ("trajkit.sdk.conversation", ["Conversation", "ConversationState", "LocalConversation",
                                  "ConversationExecutionStatus", "ConversationCallbackType"]),
    ("trajkit.sdk.conversation.state", ["ConversationState", "ConversationExecutionStatus"]),
    ("trajkit.sdk.conversation.types", ["ConversationCallbackType", "ConversationID"]),
    ("trajkit.sdk.conversation.exceptions", ["ConversationRunError"]),
    ("trajkit.sdk.security.confirmation_policy", ["AlwaysConfirm", "NeverConfirm", "ConfirmRisky"]),
    ("trajkit.sdk.security.llm_analyzer", ["LLMSecurityAnalyzer"]),
    ("trajkit.sdk.context", ["Skill", "KeywordTrigger", "AgentContext", "load_skills_from_dir"]),
    ("trajkit.sdk.utils.async_utils", ["AsyncCallbackWrapper"]),
    ("trajkit.sdk.llm", ["LLM", "LLMRegistry", "Message", "TextContent", "ImageContent"]),
    ("trajkit.sdk.llm.exceptions", ["LLMError", "LLMBadRequestError", "LLMAuthenticationError",
                                    "LLMServiceUnavailableError", "LLMRateLimitError",
                                    "LLMTimeoutError", "LLMContextWindowExceedError"]),
    ("trajkit.sdk.event", ["Event", "ActionEvent", "ObservationEvent", "MessageEvent",
                           "SystemPromptEvent", "Condensation", "CondensationRequest"]),
    ("trajkit.sdk.tool", ["Tool", "ToolDefinition", "ToolExecutor", "ToolAnnotations", "Action",
                          "Observation", "register_tool", "resolve_tool", "FinishTool",
                          "ThinkTool", "BUILT_IN_TOOLS"]),
    ("trajkit.sdk.tool.spec", ["Tool"]),
    ("trajkit.sdk.tool.tool", ["ToolDefinition", "ToolExecutor", "ToolAnnotations"]),
    ("trajkit.sdk.tool.schema", ["Action", "Observation"]),
    ("trajkit.sdk.tool.registry", ["register_tool", "resolve_tool"]),
    ("trajkit.sdk.tool.builtins", ["FinishTool", "ThinkTool", "BUILT_IN_TOOLS"]),
    ("trajkit.sdk.tool.builtins.finish", ["FinishTool"]),
    ("trajkit.sdk.tool.builtins.think", ["ThinkTool"]),
]  # fmt: skip


@pytest.mark.parametrize(("module", "names"), SDK_IMPORTS, ids=[m for m, _ in SDK_IMPORTS])
def test_sdk_import_paths_resolve(module: str, names: list[str]) -> None:
    mod = importlib.import_module(module)
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, f"{module} lacks {missing}"
    for name in names:
        assert getattr(mod, name) is not None


def test_paths_are_the_same_objects() -> None:
    from trajkit.sdk.confirmation import AlwaysConfirm as Old

    from trajkit.sdk import Conversation, ConversationState, LocalConversation
    from trajkit.sdk.conversation.local import Conversation as Impl
    from trajkit.sdk.conversation.state import ConversationState as StateFromPath
    from trajkit.sdk.security.confirmation_policy import AlwaysConfirm

    assert Conversation is LocalConversation is Impl
    assert ConversationState is StateFromPath
    assert AlwaysConfirm is Old


def test_load_skills_from_dir_splits_as_the_sdk(tmp_path) -> None:
    from trajkit.sdk.context import load_skills_from_dir

    (tmp_path / "always.md").write_text("Always be kind.\n")
    (tmp_path / "git.md").write_text("---\ntriggers: [git]\n---\nUse git well.\n")
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "SKILL.md").write_text("---\nname: pdf\n---\nRead PDFs.\n")
    repo, knowledge, agent = load_skills_from_dir(tmp_path)
    assert sorted(repo) == ["always"] and repo["always"].trigger is None
    assert sorted(knowledge) == ["git"] and knowledge["git"].trigger is not None
    assert sorted(agent) == ["pdf"]


def test_runtime_import_stays_cheap() -> None:
    # the new paths must not pull litellm in at import time (it loads on the first call)
    code = (
        "import sys, trajkit.sdk, trajkit.sdk.llm, trajkit.sdk.conversation, trajkit.sdk.context;"
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_moved_modules_import_as_the_module_at_the_sdk_path() -> None:
    # issue 26: the code lives at the SDK's paths; trajkit's earlier flat paths still import,
    # and give that very module (no second copy, no alias file)
    from trajkit.sdk import MOVED_MODULES

    for old, new in MOVED_MODULES.items():
        assert importlib.import_module(old) is importlib.import_module(new), old
    from trajkit.sdk.state import ConversationState

    assert ConversationState.__module__ == "trajkit.sdk.conversation.state"
