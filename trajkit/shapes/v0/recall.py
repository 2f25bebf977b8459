"""Render a V0 `recall` observation as the text V0 added to the user's turn.

V0 rendered workspace context with its `additional_info.j2` template and microagent knowledge
with `microagent_info.j2` (v0-format §6.3). V1 has no recall event: a migrated conversation
carries this text as `extended_content` of the user `MessageEvent` the recall answered, and the
microagent names as its `activated_skills`. The text below follows the V0 templates' structure
and tags; whitespace is not byte-identical (the templates are not available to trajkit), which is
the one convention trajkit documents for migrated recalls.
"""

from __future__ import annotations

from typing import Any

__all__ = ["recall_skills", "recall_text"]


def recall_text(extras: dict[str, Any], *, shown_skills: set[str]) -> str:
    """The text V0 showed the LLM for a recall observation ("" when it added nothing)."""
    blocks: list[str] = []
    if extras.get("recall_type") == "workspace_context":
        blocks.extend(_workspace_blocks(extras))
    for item in _knowledge(extras):
        name = item.get("name")
        if (
            isinstance(name, str)
            and name in shown_skills
            and extras.get("recall_type") == "knowledge"
        ):
            continue  # V0 skipped microagents already shown earlier
        blocks.append(
            "<EXTRA_INFO>\n"
            f"The following information has been included based on a keyword match for "
            f'"{item.get("trigger") or ""}".\n'
            "It may or may not be relevant to the user's request.\n\n"
            f"{item.get('content') or ''}\n"
            "</EXTRA_INFO>"
        )
    return "\n\n".join(blocks)


def recall_skills(extras: dict[str, Any]) -> list[str]:
    """Names of the microagents a recall observation activated."""
    return [str(item["name"]) for item in _knowledge(extras) if item.get("name")]


def _knowledge(extras: dict[str, Any]) -> list[dict[str, Any]]:
    items = extras.get("microagent_knowledge")
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


def _workspace_blocks(extras: dict[str, Any]) -> list[str]:
    blocks: list[str] = []
    repo, directory = extras.get("repo_name"), extras.get("repo_directory")
    if repo:
        text = (
            f"At the user's request, repository {repo} has been cloned to {directory} in the "
            "current working directory."
        )
        if extras.get("repo_branch"):
            text += f'\nThe repository has been checked out to branch "{extras["repo_branch"]}".'
        blocks.append(f"<REPOSITORY_INFO>\n{text}\n</REPOSITORY_INFO>")
    if extras.get("repo_instructions"):
        blocks.append(
            f"<REPOSITORY_INSTRUCTIONS>\n{extras['repo_instructions']}\n</REPOSITORY_INSTRUCTIONS>"
        )
    runtime = _runtime_lines(extras)
    if runtime:
        blocks.append("<RUNTIME_INFORMATION>\n" + "\n".join(runtime) + "\n</RUNTIME_INFORMATION>")
    if extras.get("conversation_instructions"):
        blocks.append(
            "<CONVERSATION_INSTRUCTIONS>\n"
            f"{extras['conversation_instructions']}\n"
            "</CONVERSATION_INSTRUCTIONS>"
        )
    return blocks


def _runtime_lines(extras: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if extras.get("working_dir"):
        lines.append(f"The current working directory is {extras['working_dir']}")
    hosts = extras.get("runtime_hosts")
    if isinstance(hosts, dict) and hosts:
        lines.append(
            "The user has access to the following hosts for accessing a web application,\n"
            "each of which has a corresponding port:"
        )
        lines.extend(f"* {host} (port {port})" for host, port in hosts.items())
    if extras.get("additional_agent_instructions"):
        lines.append(str(extras["additional_agent_instructions"]))
    secrets = extras.get("custom_secrets_descriptions")
    if isinstance(secrets, dict) and secrets:
        lines.append("<CUSTOM_SECRETS>")
        lines.append("You have access to the following environment variables")
        lines.extend(f"* $**{name}**: {desc}" for name, desc in secrets.items())
        lines.append("</CUSTOM_SECRETS>")
    if extras.get("date"):
        lines.append(f"Today's date is {extras['date']} (UTC).")
    return lines
