"""`trajkit.redact`: masking, encryption as the SDK does it, and detection of keys in clear."""

from __future__ import annotations

import base64
import hashlib

import pytest

from trajkit import redact


def test_mask_and_protected_values() -> None:
    assert redact.is_masked("**********")
    for value in (None, "", "   ", redact.MASK, redact.encrypt("x", "k")):
        assert redact.is_protected(value), value
    for value in ("sk-abc", "gAAAAAshort", "password"):
        assert not redact.is_protected(value), value


def test_encrypt_uses_the_sdk_key_derivation_and_round_trips() -> None:
    from cryptography.fernet import Fernet

    token = redact.encrypt("s3cret-value", "server secret")
    assert token.startswith("gAAAAA") and redact.is_encrypted(token)
    key = base64.urlsafe_b64encode(hashlib.sha256(b"server secret").digest())
    assert Fernet(key).decrypt(token.encode()) == b"s3cret-value"
    assert redact.decrypt(token, "server secret") == "s3cret-value"
    assert redact.decrypt(token, "wrong key") is None
    assert redact.encrypt(token, "server secret") == token  # never encrypted twice


def test_find_clear_secrets_covers_llm_static_and_headers() -> None:
    state = {
        "agent": {
            "llm": {"api_key": "sk-live", "aws_secret_access_key": redact.MASK, "model": "gpt"},
            "condenser": {"llm": {"api_key": "other-key", "kind": "LLM"}},
        },
        "secret_registry": {
            "secret_sources": {
                "TOKEN": {"value": "tok-123", "kind": "StaticSecret"},
                "LOOKUP": {
                    "url": "https://x",
                    "headers": {"Authorization": "Bearer abc", "Accept": "json"},
                    "kind": "LookupSecret",
                },
            }
        },
        "stats": {"prompt_tokens": 12, "model": "not a secret"},
    }
    assert sorted(redact.find_clear_secrets(state)) == [
        ("/agent/condenser/llm/api_key", "api_key"),
        ("/agent/llm/api_key", "api_key"),
        ("/secret_registry/secret_sources/LOOKUP/headers/Accept", "Accept"),
        ("/secret_registry/secret_sources/LOOKUP/headers/Authorization", "Authorization"),
        ("/secret_registry/secret_sources/TOKEN/value", "value"),
    ]  # every header of a LookupSecret is a secret, whatever its name
    masked = redact.mask_secret_fields(state)
    assert list(redact.find_clear_secrets(masked)) == []
    assert masked["agent"]["llm"]["model"] == "gpt"
    assert masked["secret_registry"]["secret_sources"]["LOOKUP"]["headers"]["Accept"] == redact.MASK
    assert masked["secret_registry"]["secret_sources"]["LOOKUP"]["url"] == "https://x"
    assert redact.registered_secret_values(state) == {"TOKEN": "tok-123"}


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("key=sk-proj-" + "a1" * 12, "OpenAI/Anthropic-style key"),
        ("sk-ant-api03-" + "Zx" * 15, "OpenAI/Anthropic-style key"),
        ("AKIA" + "ABCDEFGHIJKLMNOP", "AWS access key id"),
        ("ghp_" + "a" * 36, "GitHub token"),
        ("AIza" + "b" * 35, "Google API key"),
        ("hf_" + "c" * 34, "Hugging Face token"),
    ],
)
def test_api_key_detection(text: str, label: str) -> None:
    assert [d for _, d in redact.find_api_keys(text)] == [label]
    assert redact.contains_api_key(text.encode()) == label
    assert redact.MASK in redact.mask_api_keys(text)


@pytest.mark.parametrize(
    "text", ["task-list-of-things", "risk-assessment", "sk-short", "AKIAlower0000000000"]
)
def test_ordinary_text_is_not_a_key(text: str) -> None:
    assert list(redact.find_api_keys(text)) == []
    assert redact.contains_api_key(text.encode()) is None


def test_mask_values_longest_first() -> None:
    text = "abc abcdef"
    assert redact.mask_values(text, ["abc", "abcdef"]) == f"{redact.HIDDEN} {redact.HIDDEN}"


def test_every_value_of_a_secrets_map_is_a_secret() -> None:
    data = {"agent_context": {"secrets": {"MY_DB": "postgres://u:p@h/db", "OTHER": redact.MASK}}}
    assert list(redact.find_clear_secrets(data)) == [("/agent_context/secrets/MY_DB", "MY_DB")]
    masked = redact.mask_secret_fields(data)
    assert masked["agent_context"]["secrets"] == {"MY_DB": redact.MASK, "OTHER": redact.MASK}
