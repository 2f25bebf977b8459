"""Secrets: sources, the registry a conversation keeps, and how they reach disk.

``conversation.update_secrets({"GITHUB_TOKEN": "ghp_…"})`` stores each value as a
`StaticSecret`; a `LookupSecret` fetches its value from a URL (with headers), and a subclass
of `SecretSource` with its own ``get_value`` (the SDK's custom-secrets pattern) computes it,
each time a command names the secret, as in the SDK (``trajkit.sdk.secret`` is its path). A
`LookupSecret` read back from ``base_state.json`` (a resumed folder, perhaps someone else's) is
not fetched unless ``TRAJKIT_FETCH_RESTORED_LOOKUPS=1`` is set or the secret is registered
again; only http(s) URLs are ever fetched.
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
import os
import urllib.parse
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, Literal

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
    "FETCH_RESTORED_LOOKUPS",
    "LookupSecret",
    "SecretError",
    "SecretRegistry",
    "SecretSource",
    "SecretValue",
    "StaticSecret",
    "UnavailableSecret",
    "dump_secret",
    "load_secret",
    "mask_data",
    "secrets_prompt",
]

logger = logging.getLogger(__name__)
HIDDEN = redact.HIDDEN
MASK = redact.MASK


FETCH_RESTORED_LOOKUPS = "TRAJKIT_FETCH_RESTORED_LOOKUPS"
"""The environment variable that, set to 1, lets a `LookupSecret` read back from a
``base_state.json`` fetch its URL (a folder from someone else names the URLs)."""


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


class SecretSource(BaseModel, ABC):
    """Where a named secret's value comes from (the SDK's ``SecretSource``): subclass it and
    write ``get_value`` for a value computed when a command needs it (a vault, a keyring).

    A custom source is asked each time a terminal command names its secret (as in the SDK),
    and every value it gave is hidden in what tools return. On disk it is written as its
    class name (``kind``), its description and its own fields (``SecretStr`` ones encrypted
    or masked like every secret); restored where its class is not defined, it comes back as
    an `UnavailableSecret` (no value).
    """

    model_config = ConfigDict(use_attribute_docstrings=True)

    description: str | None = None
    """What the secret is for (may be shown to the LLM)."""

    @abstractmethod
    def get_value(self) -> str | None:
        """The value in clear, or None when there is none."""


class StaticSecret(SecretSource):
    """A secret whose value is given."""

    value: SecretStr | None = None
    """The value; absent after a restore without a cipher."""
    kind: Literal["StaticSecret"] = "StaticSecret"
    """Source class name."""

    def get_value(self) -> str | None:
        return None if self.value is None else self.value.get_secret_value()


class LookupSecret(SecretSource):
    """A secret fetched with an HTTP GET from ``url`` (response body = value)."""

    url: str
    """Where the value is fetched from."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Request headers; values of secret-looking names are masked or encrypted on disk."""
    kind: Literal["LookupSecret"] = "LookupSecret"
    """Source class name."""

    _restored: bool = PrivateAttr(default=False)
    """Read back from ``base_state.json``: fetched only when the user opts in."""

    def get_value(self, *, timeout: float = 10.0) -> str:
        if urllib.parse.urlsplit(self.url).scheme.lower() not in ("http", "https"):
            # a folder from someone else must not make its reader open `file:///…` (issue 30)
            raise SecretError(f"secret lookup at {self.url} refused: only http(s) is fetched")
        if self._restored and os.environ.get(FETCH_RESTORED_LOOKUPS) != "1":
            # nor make its reader send requests to the URLs it names (issue 30)
            raise SecretError(
                f"secret lookup at {self.url} not fetched: it was read back from a conversation "
                f"folder; set {FETCH_RESTORED_LOOKUPS}=1 to fetch such lookups, or register "
                "the secret again (update_secrets)"
            )
        request = urllib.request.Request(self.url, headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
                return str(response.read().decode())
        except OSError as exc:
            raise SecretError(f"secret lookup at {self.url} failed: {exc}") from None


class UnavailableSecret(SecretSource):
    """A custom source read back where its class is not defined: its name and fields are
    kept (and written back as they were), it has no value.
    """

    model_config = ConfigDict(extra="allow")

    kind: str
    """The custom source's class name."""

    def get_value(self) -> str | None:
        return None


SecretValue = str | SecretStr | SecretSource
"""What ``update_secrets`` takes for one name (a string becomes a `StaticSecret`)."""


def source_kind(source: SecretSource) -> str:
    """The ``kind`` written for ``source``: its class name (or the one it was read with)."""
    kind = getattr(source, "kind", None)
    return kind if isinstance(kind, str) else type(source).__name__


def _source_classes() -> dict[str, type[SecretSource]]:
    found: dict[str, type[SecretSource]] = {}
    todo = list(SecretSource.__subclasses__())
    while todo:
        cls = todo.pop()
        if not getattr(cls, "__abstractmethods__", None):
            found.setdefault(cls.__name__, cls)
        todo.extend(cls.__subclasses__())
    return found


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

    _given: dict[str, str] = PrivateAttr(default_factory=dict)
    """The last value each lookup or custom source gave, by name (hidden in output)."""

    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """Add or replace secrets; plain strings become `StaticSecret`s."""
        for name, value in secrets.items():
            if isinstance(value, SecretSource):
                source: SecretSource = value
            else:
                text = value.get_secret_value() if isinstance(value, SecretStr) else str(value)
                source = StaticSecret(value=SecretStr(text))
            self.secret_sources[name] = source
            self._given.pop(name, None)

    def get_value(self, name: str) -> str | None:
        """The secret's value now (lookups and custom sources are asked each time)."""
        source = self.secret_sources.get(name)
        if source is None:
            return None
        if isinstance(source, StaticSecret | UnavailableSecret):
            return source.get_value()
        try:  # a lookup or a custom source: asked every time, as in the SDK
            value = source.get_value()
        except SecretError:
            raise
        except Exception as exc:  # noqa: BLE001 (user code; the command runs without it)
            raise SecretError(f"secret source {source_kind(source)} failed: {exc}") from exc
        if value:
            self._given[name] = value  # hidden in output from now on
        return value

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
        values.extend(self._given.values())
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
            elif not isinstance(source, LookupSecret):
                item.update(_custom_fields(source, cipher))
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
            item["kind"] = source_kind(source)
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
            elif item.get("kind") not in (None, "StaticSecret", "LookupSecret"):
                sources[name] = _custom_source(item, cipher)
            elif item.get("kind") == "LookupSecret":
                headers = {
                    k: (load_secret(v, cipher) or "") if isinstance(v, str) else v
                    for k, v in dict(item.get("headers") or {}).items()
                }
                url = item.get("url")
                if redact.is_encrypted(url):
                    url = load_secret(url, cipher) or ""
                lookup = LookupSecret.model_validate({**item, "headers": headers, "url": url})
                lookup._restored = True  # a folder's URLs are fetched only on opt-in
                sources[name] = lookup
            else:
                value = item.get("value")
                text = value.get_secret_value() if isinstance(value, SecretStr) else value
                loaded = load_secret(text, cipher)
                clean = {k: v for k, v in item.items() if k != "value"}
                sources[name] = StaticSecret.model_validate(
                    clean if loaded is None else {**clean, "value": loaded}
                )
        return {**data, "secret_sources": sources}

    @model_serializer(mode="plain")
    def _encode(self, info: SerializationInfo) -> dict[str, Any]:
        context = info.context or {}
        return self.to_json(context.get("cipher"))


def _custom_fields(source: SecretSource, cipher: Cipher | None) -> dict[str, Any]:
    """A custom source's own fields as written: ``SecretStr`` ones through `dump_secret`."""
    out: dict[str, Any] = {}
    names = [*type(source).model_fields, *(source.model_extra or {})]
    for name in names:
        if name in ("description", "kind"):
            continue
        value = getattr(source, name)
        if isinstance(value, SecretStr):
            out[name] = dump_secret(value, cipher)
        elif isinstance(value, BaseModel):
            out[name] = value.model_dump(mode="json")
        else:
            out[name] = value
    return out


def _custom_source(item: Mapping[str, Any], cipher: Cipher | None) -> SecretSource:
    """A custom source read back: its class when this process defines it, else unavailable."""
    cls = _source_classes().get(str(item.get("kind")))
    if cls is not None and cls is not UnavailableSecret:
        fields = {k: v for k, v in item.items() if k != "kind"}
        for name, info in cls.model_fields.items():
            if info.annotation in (SecretStr, SecretStr | None) and isinstance(
                fields.get(name), str
            ):
                fields[name] = load_secret(fields[name], cipher)
        try:
            return cls.model_validate(fields)
        except ValueError:
            logger.warning("secret source %s could not be restored; it has no value", cls.__name__)
    return UnavailableSecret.model_validate(dict(item))


def secrets_prompt(registry: SecretRegistry) -> str | None:
    """The system prompt's dynamic block telling the LLM which secrets it may use (names and
    descriptions only, never values); None when there are none.
    """
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
