"""`contains_api_key`'s one-pass literal scan finds exactly what six regex passes find."""

from __future__ import annotations

import base64
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import fixtures as fx
from trajkit import redact


def _six_passes(data: bytes) -> str | None:
    """The reference: every pattern's regex over the whole text, in table order."""
    for label, pattern in redact._API_KEY_BYTES_RES:
        for match in pattern.finditer(data):
            if redact._standalone(data, match.start(), match.end()):
                return label
    return None


KEYS = [
    "sk-" + "a1B2" * 6,
    "sk-ant-" + "x" * 30,
    "AKIA" + "ABCDEFGHIJKLMNOP",
    "ASIA" + "0123456789ABCDEF",
    "ghp_" + "a" * 36,
    "github_pat_" + "b" * 22,
    "AIza" + "c" * 35,
    "xoxb-" + "1234567890",
    "hf_" + "d" * 30,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


def test_every_match_of_a_pattern_starts_with_one_of_its_literals():
    assert len(redact._API_KEY_PREFIXES) == len(redact._API_KEY_PATTERNS)
    for (label, pattern), literals in zip(
        redact._API_KEY_BYTES_RES, redact._API_KEY_PREFIXES, strict=True
    ):
        matched = 0
        for key in KEYS:
            for m in pattern.finditer(key.encode()):
                assert m.group().startswith(literals), (label, key)
                matched += 1
        assert matched, label


def test_no_literal_hides_another_in_a_non_overlapping_scan():
    literals = [lit for lits in redact._API_KEY_PREFIXES for lit in lits]
    for a in literals:
        for b in literals:
            if a != b:
                assert b not in a, (a, b)
            for cut in range(1, len(a)):  # a proper suffix of a is never a start of b
                assert not b.startswith(a[cut:]) and not a[cut:].startswith(b), (a, b)


def test_keys_next_to_each_other_and_inside_literals_are_found():
    for key in KEYS:
        for text in (key, f"x {key} y", f'"{key}"', f"AKIA{key}", f"sk-{key}", f"AKI {key}"):
            data = text.encode()
            assert redact.contains_api_key(data) == _six_passes(data), text
    # An "AKIA" right before an "AIza" key: the scan must still see the Google key.
    data = b"AKIAIza" + b"c" * 40
    assert redact.contains_api_key(data) == _six_passes(data)


def test_sdk_fixture_files_agree():
    for path in fx.sdk_event_files():
        data = path.read_bytes()
        assert redact.contains_api_key(data) == _six_passes(data), path


_ALPHABET = "skAKIASIAghpousr_itbatIzaxoxbhf-0123456789 \"'abcXYZ"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(KEYS), st.text(alphabet=_ALPHABET, max_size=30)), max_size=8)
)
def test_random_texts_agree(parts):
    data = "".join(parts).encode()
    assert redact.contains_api_key(data) == _six_passes(data)


def test_scan_is_one_pass_over_the_literals():
    # The literals are the regexes' own fixed starts: a kind whose literal is absent is skipped.
    data = b"plain output with task-list and risk-assessment, " * 200
    assert redact._key_kinds_present(data) == {0}  # "sk-" of "task-" and "risk-"
    assert redact.contains_api_key(data) is None
    assert re.search(rb"sk-", data)


def test_the_gate_holds_a_part_of_every_literal_of_both_rules():
    # Finding none of the gate's literals must prove that neither rule's literals occur.
    gate = redact.KEY_GATE_LITERALS
    assert len(gate) <= 64  # ahocorasick_rs's SIMD search; above it one scan costs 55 us
    for literal in redact.API_KEY_LITERALS + redact.BASE64_KEY_LITERALS:
        assert any(part in literal for part in gate), literal


def test_base64_of_every_key_passes_the_gate_at_every_alignment():
    found = 0
    for key in KEYS:
        for pad in (b"", b"x", b"xy"):
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                data = b'{"blob":"' + encode(pad + key.encode() + b" tail") + b'"}'
                ungated = redact._plain_key_kind(data) or (
                    redact._BASE64_LABEL if redact._base64_key_spans(data) else None
                )
                assert redact.contains_api_key(data) == ungated, (key, pad)
                found += ungated is not None
    assert found >= len(KEYS)  # the gate lets through what the rules find
