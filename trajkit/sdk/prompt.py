"""The agent's system prompt, rendered from Jinja templates shipped in ``trajkit/sdk/prompts``.

The knobs are the SDK's ``Agent`` fields:

- ``system_prompt``: used verbatim (nothing is rendered).
- ``system_prompt_filename``: ``system_prompt.j2`` (the default) is trajkit's bundled prompt; any
  other relative name is looked up in the bundled folder, an absolute path is a template of
  your own. Every template gets the same variables (below).
- ``system_prompt_kwargs``: extra template variables. ``cli_mode`` (default true: running on
  the user's machine rather than in a sandbox) changes the environment note and the risk tiers;
  ``llm_security_analyzer`` (set to true by default, as the SDK does) adds the instructions for
  rating each action's ``security_risk``.
- ``security_policy_filename``: ``security_policy.j2`` (the default) is the bundled policy; a
  relative name is read from the bundled folder, an absolute path from disk; either is inserted
  as written (not rendered, as in the SDK); ``""`` leaves the policy out.

Variables: ``working_dir``, ``cli_mode``, ``llm_security_analyzer``, ``tool_names`` (names offered
to the model), ``security_policy`` (text or None), then ``system_prompt_kwargs`` as given.
Jinja is imported when a prompt is rendered, so the toolkit never loads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_SECURITY_POLICY", "DEFAULT_TEMPLATE", "PROMPT_DIR", "render_system_prompt"]

PROMPT_DIR = Path(__file__).with_name("prompts")
DEFAULT_TEMPLATE = "system_prompt.j2"
DEFAULT_SECURITY_POLICY = "security_policy.j2"


def _read_policy(filename: str) -> str | None:
    if not filename:
        return None
    path = Path(filename)
    if not path.is_absolute():
        path = PROMPT_DIR / filename
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as e:
        raise ValueError(f"security_policy_filename {filename!r}: cannot read {path}: {e}") from e


def render_system_prompt(
    *,
    working_dir: str,
    tool_names: Iterable[str],
    system_prompt_filename: str = DEFAULT_TEMPLATE,
    security_policy_filename: str = DEFAULT_SECURITY_POLICY,
    system_prompt_kwargs: Mapping[str, Any] | None = None,
) -> str:
    """The rendered system prompt (leading and trailing whitespace removed)."""
    import jinja2

    kwargs: dict[str, Any] = {
        "working_dir": working_dir,
        "cli_mode": True,
        "llm_security_analyzer": True,
        "tool_names": list(tool_names),
        "security_policy": _read_policy(security_policy_filename),
    }
    kwargs.update(system_prompt_kwargs or {})
    template_path = Path(system_prompt_filename)
    folders = [str(PROMPT_DIR)]
    if template_path.is_absolute():
        folders.insert(0, str(template_path.parent))
        name = template_path.name
    else:
        name = system_prompt_filename
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folders),
        autoescape=False,  # noqa: S701 (plain text for an LLM, not HTML)
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        undefined=jinja2.ChainableUndefined,
    )
    try:
        template = env.get_template(name)
    except jinja2.TemplateNotFound:
        raise ValueError(
            f"system_prompt_filename {system_prompt_filename!r}: no such template (relative "
            f"names are looked up in {PROMPT_DIR}; give an absolute path for your own)"
        ) from None
    return template.render(**kwargs).strip()
