"""Secrets: sources, the registry a conversation keeps, and how they reach disk.

``conversation.update_secrets({"GITHUB_TOKEN": "ghp_…"})`` stores each value as a
`StaticSecret`; a `LookupSecret` fetches its value from a URL (with headers) when first needed.
The terminal exports a secret as an environment variable only for a command that names it
(`SecretRegistry.env_for_command`, case-insensitive like the SDK), and every registered value is
replaced by ``<secret-hidden>`` in what tools return (`SecretRegistry.mask`, `mask_data`).

On disk (v1-format §1.8) a secret field is written *encrypted* as a Fernet token (``gAAAAA…``,
key ``base64(sha256(secret_key))``) when a `Cipher` is configured, and *masked* as ``**********``
otherwise, in which case it is lost on restore. `dump_secret`/`load_secret` implement that rule
for one value (the LLM's ``api_key`` uses them too); `SecretRegistry.to_json`/`from_json` for the
``secret_registry`` field. A value in memory is never written in clear.
"""

from __future__ import annotations

import logging
import urllib.request
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    SerializationInfo,
    ValidationInfo,
    model_serializer,
    model_validator,
)

from trajkit import redact
from trajkit.errors import TrajkitError

__all__ = [
    "Cipher",
    "LookupSecret",
    "SecretError",
    "SecretRegistry",
    "SecretSource",
    "StaticSecret",
    "dump_secret",
    "load_secret",
    "mask_data",
    "secrets_prompt",
]

logger = logging.getLogger(__name__)
HIDDEN = redact.HIDDEN
MASK = redact.MASK


class SecretError(TrajkitError):
    """A secret could not be read (lookup failed)."""


class Cipher:
    """Encrypts secret fields for ``base_state.json`` (the SDK's ``Cipher(secret_key)``)."""

    def __init__(self, secret_key: str | bytes) -> None:
        if not secret_key:
            raise ValueError("Cipher needs a non-empty secret key")
        self._key = secret_key

    def encrypt(self, value: str) -> str:
        """A Fernet token for ``value``; a value that already is a token is kept."""
        return redact.encrypt(value, self._key)

    def decrypt(self, token: str) -> str | None:
        """The clear value, or None (with a warning) when the key does not fit."""
        value = redact.decrypt(token, self._key)
        if value is None:
            logger.warning("could not decrypt a secret (wrong key or damaged token); it is dropped")
        return value

    def __repr__(self) -> str:
        return "Cipher(<hidden>)"


def dump_secret(value: str | SecretStr | None, cipher: Cipher | None) -> str | None:
    """How a secret field is written: encrypted with a cipher, ``**********`` without."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if value is None:
        return None
    if cipher is None:
        return MASK
    return cipher.encrypt(value)


def load_secret(text: str | None, cipher: Cipher | None) -> str | None:
    """A secret field read back: masked/empty -> None; a token is decrypted when possible.

    Without a cipher a token stays as it is (the SDK keeps the ciphertext as the value).
    """
    if text is None or not text.strip() or redact.is_masked(text):
        return None
    if redact.is_encrypted(text) and cipher is not None:
        return cipher.decrypt(text)
    return text


class StaticSecret(BaseModel):
    """A secret whose value is given."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    description: str | None = None
    """What the secret is for (may be shown to the LLM)."""
    value: SecretStr | None = None
    """The value; absent after a restore without a cipher."""
    kind: Literal["StaticSecret"] = "StaticSecret"
    """Source class name."""

    def get_value(self) -> str | None:
        return None if self.value is None else self.value.get_secret_value()


class LookupSecret(BaseModel):
    """A secret fetched with an HTTP GET from ``url`` (response body = value)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    description: str | None = None
    """What the secret is for."""
    url: str
    """Where the value is fetched from."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Request headers; values of secret-looking names are masked or encrypted on disk."""
    kind: Literal["LookupSecret"] = "LookupSecret"
    """Source class name."""

    def get_value(self, *, timeout: float = 10.0) -> str:
        request = urllib.request.Request(self.url, headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
                return str(response.read().decode())
        except OSError as exc:
            raise SecretError(f"secret lookup at {self.url} failed: {exc}") from None


SecretSource = Annotated[StaticSecret | LookupSecret, Field(discriminator="kind")]


def mask_data(data: Any, values: Iterable[str]) -> Any:
    """A copy of a JSON-like value with every secret value in its strings hidden."""
    found = [v for v in values if v]
    if not found:
        return data
    if isinstance(data, str):
        return redact.mask_values(data, found)
    if isinstance(data, dict):
        return {k: mask_data(v, found) for k, v in data.items()}
    if isinstance(data, list):
        return [mask_data(v, found) for v in data]
    return data


class SecretRegistry(BaseModel):
    """The conversation's secrets by name (``state.secret_registry``)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    secret_sources: dict[str, SecretSource] = Field(default_factory=dict)
    """Secret sources by name (the environment variable name)."""

    _looked_up: dict[str, str] = PrivateAttr(default_factory=dict)

    def update_secrets(
        self, secrets: Mapping[str, str | SecretStr | StaticSecret | LookupSecret]
    ) -> None:
        """Add or replace secrets; plain strings become `StaticSecret`s."""
        for name, value in secrets.items():
            if isinstance(value, StaticSecret | LookupSecret):
                source: StaticSecret | LookupSecret = value
            else:
                text = value.get_secret_value() if isinstance(value, SecretStr) else str(value)
                source = StaticSecret(value=SecretStr(text))
            self.secret_sources[name] = source
            self._looked_up.pop(name, None)

    def get_value(self, name: str) -> str | None:
        """The secret's value (a lookup is fetched once and kept in memory)."""
        source = self.secret_sources.get(name)
        if source is None:
            return None
        if isinstance(source, LookupSecret):
            if name not in self._looked_up:
                self._looked_up[name] = source.get_value()
            return self._looked_up[name]
        return source.get_value()

    def find_secrets_in_text(self, text: str) -> set[str]:
        """Names of secrets that ``text`` mentions (case-insensitive, as the SDK)."""
        lowered = text.lower()
        return {name for name in self.secret_sources if name.lower() in lowered}

    def env_for_command(self, command: str) -> dict[str, str]:
        """Environment variables for a command: the secrets it names that have a value."""
        env: dict[str, str] = {}
        for name in sorted(self.find_secrets_in_text(command)):
            try:
                value = self.get_value(name)
            except SecretError as exc:
                logger.warning("%s", exc)
                continue
            if value is not None:
                env[name] = value
        return env

    def known_values(self) -> list[str]:
        """Every value known in memory (static values and fetched lookups)."""
        values = [
            s.get_value() for s in self.secret_sources.values() if isinstance(s, StaticSecret)
        ]
        values.extend(self._looked_up.values())
        return [v for v in values if v]

    def mask(self, text: str) -> str:
        """``text`` with every known value replaced by ``<secret-hidden>``."""
        return redact.mask_values(text, self.known_values())

    def to_json(self, cipher: Cipher | None) -> dict[str, Any]:
        """The ``secret_registry`` object as written to ``base_state.json``."""
        if self.secret_sources and cipher is None:
            logger.warning(
                "no cipher configured: secret values are masked on disk and lost on restore"
            )
        sources: dict[str, Any] = {}
        for name, source in self.secret_sources.items():
            item: dict[str, Any] = {}
            if source.description is not None:
                item["description"] = source.description
            if isinstance(source, StaticSecret):
                dumped = dump_secret(source.value, cipher)
                if dumped is not None:
                    item["value"] = dumped
            else:
                # A token in the URL's query string, and every header (whatever its name: a
                # lookup's headers exist to authenticate it), are secrets.
                url = source.url
                if redact.has_secret_query(url):
                    url = (
                        cipher.encrypt(url) if cipher is not None else redact.mask_secret_query(url)
                    )
                item["url"] = url
                item["headers"] = {k: dump_secret(v, cipher) for k, v in source.headers.items()}
            item["kind"] = source.kind
            sources[name] = item
        return {"secret_sources": sources}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None, cipher: Cipher | None) -> SecretRegistry:
        """Read ``secret_registry``: masked values come back absent, tokens are decrypted."""
        return cls.model_validate(dict(data or {}), context={"cipher": cipher})

    @model_validator(mode="before")
    @classmethod
    def _decode(cls, data: Any, info: ValidationInfo) -> Any:
        # On disk values are masked or encrypted (v1-format §1.8); decode with the context cipher.
        if not isinstance(data, Mapping) or not isinstance(data.get("secret_sources"), Mapping):
            return data
        cipher = (info.context or {}).get("cipher")
        sources: dict[str, Any] = {}
        for name, item in data["secret_sources"].items():
            if not isinstance(item, Mapping):
                sources[name] = item
            elif item.get("kind") == "LookupSecret":
                headers = {
                    k: (load_secret(v, cipher) or "") if isinstance(v, str) else v
                    for k, v in dict(item.get("headers") or {}).items()
                }
                url = item.get("url")
                if redact.is_encrypted(url):
                    url = load_secret(url, cipher) or ""
                sources[name] = {**item, "headers": headers, "url": url}
            else:
                value = item.get("value")
                text = value.get_secret_value() if isinstance(value, SecretStr) else value
                loaded = load_secret(text, cipher)
                clean = {k: v for k, v in item.items() if k != "value"}
                sources[name] = clean if loaded is None else {**clean, "value": loaded}
        return {**data, "secret_sources": sources}

    @model_serializer(mode="plain")
    def _encode(self, info: SerializationInfo) -> dict[str, Any]:
        context = info.context or {}
        return self.to_json(context.get("cipher"))


def secrets_prompt(registry: SecretRegistry) -> str | None:
    """The system prompt's dynamic block telling the LLM which secrets it may use (names and
    descriptions only, never values); None when there are none."""
    if not registry.secret_sources:
        return None
    lines = [
        "<CUSTOM_SECRETS>",
        "### Credential Access",
        "* Automatic secret injection: when a terminal command mentions a registered secret "
        "name, its value is exported as an environment variable of that name first.",
        '* Use them by name, e.g. `curl -H "Authorization: Bearer $GITHUB_TOKEN" ...`; '
        "matching is case-insensitive.",
        "* Secret values are masked as <secret-hidden> in command output.",
        "",
        "You have access to the following environment variables:",
    ]
    for name, source in registry.secret_sources.items():
        note = f": {source.description}" if source.description else ""
        lines.append(f"* **${name}**{note}")
    lines.append("</CUSTOM_SECRETS>")
    return "\n".join(lines)
