"""Export masks a key in the forms issue 30 found in clear (medium 4), one test per form.

Each test writes the form into a real conversation (the repo's `b_terminal` fixture), exports
it through the real pipeline and reads every string of both Parquet tables back.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from tests.export.conftest import FAKE_KEY, edit_event
from trajkit import redact
from trajkit.engine import LocalEngine
from trajkit.export import export_dataset

REPO = Path(__file__).resolve().parents[2]
# A JSON Web Token built here (HS256 over an invented payload, no real key signed it).
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiJ0cmFqa2l0LXRlc3QiLCJuYW1lIjoiSW52ZW50ZWQgVXNlciIsImlhdCI6MTcwMDAwMDAwMH0"
    ".Zm9yZ2VkLXNpZ25hdHVyZS1mb3ItdGVzdHMtb25seS0xMjM0NTY3OA"
)
B64_KEY = base64.b64encode(f"OPENAI_API_KEY={FAKE_KEY}\n".encode()).decode()
HEAD, TAIL = FAKE_KEY[:14], FAKE_KEY[14:]  # "sk-proj-Zq8xT2" | "mN4vB6…": neither is a key


@pytest.fixture
def conv(tmp_path: Path) -> Path:
    src = next((REPO / "fixtures" / "sdk" / "b_terminal").glob("[0-9a-f]" * 32))
    return Path(shutil.copytree(src, tmp_path / "corpus" / src.name))


def _exported_text(conv: Path, out: Path) -> tuple[str, int]:
    report = export_dataset([str(conv)], out, engine=LocalEngine(1))
    parts = [
        orjson.dumps(pq.read_table(out / table).to_pylist(), default=str).decode()
        for table in ("conversations", "events")
    ]
    return "".join(parts), report.redactions


def test_a_json_web_token_is_masked(conv: Path, tmp_path: Path) -> None:
    def user(data: dict) -> None:  # type: ignore[type-arg]
        data["llm_message"]["content"][0]["text"] += f" Use Authorization: Bearer {JWT}"

    edit_event(conv, 1, user)
    text, redactions = _exported_text(conv, tmp_path / "out")
    assert JWT.split(".")[1] not in text and JWT.split(".")[2] not in text
    assert "Bearer **********" in text and redactions >= 1


def test_base64_of_a_key_in_tool_output_is_masked(conv: Path, tmp_path: Path) -> None:
    def output(data: dict) -> None:  # type: ignore[type-arg]
        data["observation"]["content"][0]["text"] += f"\n$ base64 .env\n{B64_KEY}\n"

    edit_event(conv, 3, output)
    text, redactions = _exported_text(conv, tmp_path / "out")
    assert B64_KEY[8:40] not in text and FAKE_KEY not in text
    assert redactions >= 1


def test_a_key_split_across_two_text_parts_of_one_message_is_masked(
    conv: Path, tmp_path: Path
) -> None:
    def user(data: dict) -> None:  # type: ignore[type-arg]
        content = data["llm_message"]["content"]
        content[0]["text"] += f" My key is {HEAD}"
        content.insert(1, {**content[0], "text": f"{TAIL} (keep it safe)"})

    edit_event(conv, 1, user)
    text, redactions = _exported_text(conv, tmp_path / "out")
    assert HEAD not in text and TAIL not in text
    assert "(keep it safe)" in text and redactions >= 1


def test_the_forms_do_not_mask_lookalikes() -> None:
    """What the new forms must leave alone: a short base64 word, two JSON objects' base64
    without a dot structure, a prefix of a key followed by ordinary text on the next line."""
    masker = redact.SecretMasker((), api_keys=True)
    plain = [
        "c2stcHJvai1 is not long enough",
        "eyJhIjoxfQ and eyJiIjoyfQ",  # base64 of {"a":1} and {"b":2}, no JWT shape
        base64.b64encode(b"sk-short and nothing else").decode(),
        "the model sk-learn\nis fine",
        "desk-" + "x" * 30,
    ]
    assert [masker.text(t) for t in plain] == plain and masker.count == 0
