"""Secrets: registry, environment for commands, masking, and how they are written to disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.support.value_server import value_server
from trajkit.sdk.secret.secrets import (
    HIDDEN,
    MASK,
    Cipher,
    LookupSecret,
    SecretRegistry,
    SecretSource,
    StaticSecret,
    UnavailableSecret,
    dump_secret,
    load_secret,
    mask_data,
)

TOKEN = "ghp_s3cr3tValue1234567890abcdefABCDEF0000"


def test_env_only_for_commands_that_name_the_secret():
    reg = SecretRegistry()
    reg.update_secrets({"GITHUB_TOKEN": TOKEN, "OTHER_KEY": SecretStr("other-value-123")})
    assert reg.env_for_command('curl -H "Authorization: $GITHUB_TOKEN" x') == {
        "GITHUB_TOKEN": TOKEN
    }
    assert reg.env_for_command("echo $github_token") == {"GITHUB_TOKEN": TOKEN}
    assert reg.env_for_command("ls -la") == {}


def test_mask_hides_every_value():
    reg = SecretRegistry()
    reg.update_secrets({"A": "alpha-secret", "B": "alpha-secret-longer"})
    assert reg.mask("x alpha-secret-longer y alpha-secret") == f"x {HIDDEN} y {HIDDEN}"
    data = {"content": [{"text": "got alpha-secret"}], "n": 3}
    assert mask_data(data, reg.known_values()) == {"content": [{"text": f"got {HIDDEN}"}], "n": 3}


def test_without_cipher_values_are_masked_and_lost_on_restore():
    reg = SecretRegistry()
    reg.update_secrets({"GITHUB_TOKEN": TOKEN})
    dumped = reg.model_dump_json()
    assert TOKEN not in dumped
    data = json.loads(dumped)
    assert data == {"secret_sources": {"GITHUB_TOKEN": {"value": MASK, "kind": "StaticSecret"}}}
    back = SecretRegistry.model_validate(data)
    assert back.get_value("GITHUB_TOKEN") is None
    assert "GITHUB_TOKEN" in back.secret_sources


def test_with_cipher_values_are_encrypted_and_restored():
    cipher = Cipher("my-secret-key")
    reg = SecretRegistry()
    reg.update_secrets({"GITHUB_TOKEN": StaticSecret(value=SecretStr(TOKEN), description="gh")})
    data = json.loads(reg.model_dump_json(context={"cipher": cipher}))
    stored = data["secret_sources"]["GITHUB_TOKEN"]
    assert stored["value"].startswith("gAAAAA")
    assert stored["description"] == "gh"
    assert TOKEN not in json.dumps(data)
    back = SecretRegistry.model_validate(data, context={"cipher": cipher})
    assert back.get_value("GITHUB_TOKEN") == TOKEN
    # a wrong key drops the value (warning), no exception
    wrong = SecretRegistry.model_validate(data, context={"cipher": Cipher("other")})
    assert wrong.get_value("GITHUB_TOKEN") is None
    # no cipher: the ciphertext is kept as the value (SDK behaviour)
    assert SecretRegistry.from_json(data, None).get_value("GITHUB_TOKEN") == stored["value"]
    # saving again does not encrypt twice
    again = json.loads(
        SecretRegistry.from_json(data, None).model_dump_json(context={"cipher": cipher})
    )
    assert again["secret_sources"]["GITHUB_TOKEN"]["value"] == stored["value"]


def test_fernet_key_is_the_sdk_derivation():
    import base64
    import hashlib

    from cryptography.fernet import Fernet

    token = Cipher("k").encrypt("v")
    key = base64.urlsafe_b64encode(hashlib.sha256(b"k").digest())
    assert Fernet(key).decrypt(token.encode()) == b"v"


def test_dump_and_load_one_secret_field():
    cipher = Cipher("abc")
    assert dump_secret(SecretStr("sk-123"), None) == MASK
    assert dump_secret(None, cipher) is None
    token = dump_secret("sk-123", cipher)
    assert token is not None and token.startswith("gAAAAA")
    assert load_secret(token, cipher) == "sk-123"
    assert load_secret(MASK, cipher) is None
    assert load_secret("  ", None) is None


@pytest.fixture
def secret_http():
    with value_server(b"looked-up-value-42") as served:
        yield served


def test_lookup_secret_fetches_and_protects_headers(secret_http):
    url, seen = secret_http
    reg = SecretRegistry()
    lookup = LookupSecret(url=url, headers={"Authorization": "Bearer hdr-token-777", "X-Team": "a"})
    reg.update_secrets({"API_TOKEN": lookup})
    assert reg.env_for_command("echo $API_TOKEN") == {"API_TOKEN": "looked-up-value-42"}
    assert seen[0]["Authorization"] == "Bearer hdr-token-777"
    reg.env_for_command("echo $API_TOKEN again")
    assert len(seen) == 2  # fetched for each command that names it, as the SDK does
    assert reg.mask("v=looked-up-value-42") == f"v={HIDDEN}"
    masked = json.loads(reg.model_dump_json())
    # every header of a lookup is a secret, whatever its name (issue 14: odd names leaked)
    assert masked["secret_sources"]["API_TOKEN"]["headers"] == {
        "Authorization": MASK,
        "X-Team": MASK,
    }
    cipher = Cipher("k2")
    data = json.loads(reg.model_dump_json(context={"cipher": cipher}))
    assert "hdr-token-777" not in json.dumps(data)
    back = SecretRegistry.model_validate(data, context={"cipher": cipher})
    source = back.secret_sources["API_TOKEN"]
    assert isinstance(source, LookupSecret)
    assert source.headers["Authorization"] == "Bearer hdr-token-777"
    assert source.headers["X-Team"] == "a"


# -- in a conversation ---------------------------------------------------------------------


def _all_bytes(root):
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("with_cipher", [False, True])
def test_conversation_secret_never_reaches_disk(llm_server, tmp_path, with_cipher):
    import hashlib
    import uuid

    from tests.sdk.helpers import make_agent
    from trajkit.events import ObservationEvent
    from trajkit.sdk import Conversation

    api_key = "sk-test-secret-value"  # what tests/sdk/helpers.make_llm uses
    llm_server.enqueue_tool_call("terminal", {"command": "echo token=$GITHUB_TOKEN"})
    llm_server.enqueue_tool_call(
        "terminal", {"command": 'for i in $(seq 3000); do echo "$GITHUB_TOKEN"; done'}
    )
    llm_server.enqueue_text("done")
    cipher = Cipher("conversation-key") if with_cipher else None
    cid = uuid.uuid4()
    root = tmp_path / "convs"

    def open_conv():
        return Conversation(
            agent=make_agent(llm_server),
            workspace=tmp_path / "ws",
            persistence_dir=root,
            conversation_id=cid,
            cipher=cipher,
        )

    conv = open_conv()
    conv.update_secrets({"GITHUB_TOKEN": TOKEN})
    conv.send_message("use the token")
    conv.run()
    assert conv.state.execution_status == "finished"
    obs = [e for e in conv.state.events if isinstance(e, ObservationEvent)]
    assert obs[0].observation.text == f"token={HIDDEN}"
    assert obs[1].observation.full_output_save_dir  # the long output was saved in full...
    folder = Path(conv.state.persistence_dir)
    assert list((folder / "observations").iterdir())
    conv.close()
    del conv

    files = _all_bytes(root)  # ...and no file under the persistence folder holds a secret
    assert files
    for path, data in files.items():
        assert TOKEN.encode() not in data, path
        assert api_key.encode() not in data, path
    assert TOKEN not in json.dumps(llm_server.bodies())  # nor did any LLM request

    state = json.loads((folder / "base_state.json").read_text())
    stored = state["secret_registry"]["secret_sources"]["GITHUB_TOKEN"]["value"]
    stored_key = state["agent"]["llm"]["api_key"]
    if with_cipher:
        assert stored.startswith("gAAAAA") and stored_key.startswith("gAAAAA")
    else:
        assert stored == MASK and stored_key == MASK

    # restore: with the cipher the secret still reaches commands; without it, it is gone
    restored = open_conv()
    llm_server.enqueue_tool_call("terminal", {"command": 'printf %s "$GITHUB_TOKEN" | sha256sum'})
    llm_server.enqueue_text("checked")
    restored.send_message("check the token")
    restored.run()
    last = [e for e in restored.state.events if isinstance(e, ObservationEvent)][-1]
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    empty = hashlib.sha256(b"").hexdigest()
    assert (digest if with_cipher else empty) in last.observation.text
    restored.close()
    for path, data in _all_bytes(root).items():
        assert TOKEN.encode() not in data, path

    from tests.sdk.test_state_restore import strict_validate

    strict_validate(folder)


def test_secret_names_reach_the_system_prompt_not_values(llm_server, tmp_path):
    from tests.sdk.helpers import make_agent
    from trajkit.convert import convert_conversation
    from trajkit.events import SystemPromptEvent
    from trajkit.sdk import Conversation

    llm_server.enqueue_text("noted")
    conv = Conversation(
        agent=make_agent(llm_server),
        workspace=tmp_path / "ws",
        persistence_dir=tmp_path / "convs",
        secrets={"GITHUB_TOKEN": StaticSecret(value=SecretStr(TOKEN), description="GitHub access")},
    )
    conv.send_message("hi")
    conv.run()
    system = next(e for e in conv.state.events if isinstance(e, SystemPromptEvent))
    assert system.dynamic_context is not None
    assert "**$GITHUB_TOKEN**: GitHub access" in system.dynamic_context.text
    sent = llm_server.bodies()[0]
    assert TOKEN not in json.dumps(sent)
    assert "$GITHUB_TOKEN" in json.dumps(sent["messages"][0])
    converted = convert_conversation(Path(conv.state.persistence_dir), to="chat")
    assert converted["messages"][: len(sent["messages"])] == sent["messages"]
    conv.close()


class RotatingSecret(SecretSource):
    """A custom source: a new value each time it is asked (a vault handing out tokens)."""

    prefix: str = "rot"
    api_secret: SecretStr | None = None
    calls: int = 0

    def get_value(self) -> str:
        object.__setattr__(self, "calls", self.calls + 1)
        return f"{self.prefix}-value-{self.calls:04d}"


def test_a_custom_source_is_asked_each_time_and_every_value_is_hidden(llm_server, tmp_path):
    from tests.sdk.helpers import make_agent
    from trajkit.events import ObservationEvent
    from trajkit.sdk import Conversation

    source = RotatingSecret(description="rotating", api_secret=SecretStr("inner-key-999"))
    llm_server.enqueue_tool_call("terminal", {"command": "echo first=$ROT_TOKEN"})
    llm_server.enqueue_tool_call("terminal", {"command": "echo second=$ROT_TOKEN"})
    llm_server.enqueue_text("done")
    conv = Conversation(
        agent=make_agent(llm_server),
        workspace=tmp_path / "ws",
        persistence_dir=tmp_path / "c",
        visualizer=None,
    )
    conv.update_secrets({"ROT_TOKEN": source})
    conv.send_message("use it twice")
    conv.run()
    assert source.calls == 2  # asked for each command that names it, as the SDK does
    outputs = [e.observation.text for e in conv.state.events if isinstance(e, ObservationEvent)]
    assert outputs == [f"first={HIDDEN}", f"second={HIDDEN}"]
    folder = Path(conv.state.persistence_dir)
    conv.close()
    for path, data in _all_bytes(folder).items():
        for secret in (b"rot-value-0001", b"rot-value-0002", b"inner-key-999"):
            assert secret not in data, path
    stored = json.loads((folder / "base_state.json").read_text())["secret_registry"]
    assert stored["secret_sources"]["ROT_TOKEN"] == {
        "description": "rotating",
        "prefix": "rot",
        "api_secret": MASK,
        "calls": 2,
        "kind": "RotatingSecret",
    }


def test_custom_sources_read_back_with_or_without_their_class():
    cipher = Cipher("k")
    reg = SecretRegistry()
    reg.update_secrets({"R": RotatingSecret(prefix="p", api_secret=SecretStr("inner-1"))})
    data = reg.to_json(cipher)
    assert data["secret_sources"]["R"]["api_secret"].startswith("gAAAAA")
    back = SecretRegistry.from_json(data, cipher)
    restored = back.secret_sources["R"]
    assert isinstance(restored, RotatingSecret)  # this process defines the class
    assert restored.api_secret is not None
    assert restored.api_secret.get_secret_value() == "inner-1"
    assert back.get_value("R") == "p-value-0001"

    foreign = {"secret_sources": {"V": {"description": "d", "vault": "x", "kind": "NoSuchSecret"}}}
    unknown = SecretRegistry.from_json(foreign, None)
    assert isinstance(unknown.secret_sources["V"], UnavailableSecret)
    assert unknown.get_value("V") is None
    assert unknown.env_for_command("echo $V") == {}
    assert unknown.to_json(None) == foreign  # written back as it was read


def test_a_failing_custom_source_leaves_the_command_without_it():
    class Broken(SecretSource):
        def get_value(self) -> str:
            raise RuntimeError("vault down")

    reg = SecretRegistry()
    reg.update_secrets({"B": Broken(), "S": "static-value-1"})
    assert reg.env_for_command("echo $B $S") == {"S": "static-value-1"}
