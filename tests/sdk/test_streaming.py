"""``LLM(stream=True)`` with ``token_callbacks`` (issue 27, SDK example 29): litellm's stream from
the loopback server (server-sent events), each chunk to the callbacks, and the same events as
a plain call."""

from __future__ import annotations

import json

from tests.sdk.helpers import make_agent


def _run(llm_server, tmp_path, *, stream, callbacks, store="c"):
    from trajkit.sdk import Conversation

    llm_server.enqueue_tool_call("terminal", {"command": "echo streamed"})
    llm_server.enqueue_text("All done here.")
    conv = Conversation(
        agent=make_agent(llm_server, stream=stream), workspace=tmp_path / "ws",
        persistence_dir=tmp_path / store, token_callbacks=callbacks, visualizer=None,
    )  # fmt: skip
    conv.send_message("go")
    conv.run()
    events = [
        json.loads(e.model_dump_json(exclude={"id", "timestamp", "parent_id"}))
        for e in conv.state.events
    ]
    conv.close()
    return events


def test_streamed_tokens_reach_the_callbacks_and_events_match(llm_server, tmp_path):
    from trajkit.sdk.llm.streaming import ModelResponseStream

    chunks = []
    streamed = _run(llm_server, tmp_path, stream=True, callbacks=[chunks.append], store="a")
    assert [b.get("stream") for b in llm_server.bodies("chat")] == [True, True]
    assert all(isinstance(c, ModelResponseStream) for c in chunks)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    text = "".join(d.content or "" for d in deltas)
    names = [tc.function.name for d in deltas for tc in d.tool_calls or [] if tc.function.name]
    args = "".join(tc.function.arguments or "" for d in deltas for tc in d.tool_calls or [])
    assert (
        text == "All done here."
        and names == ["terminal"]
        and json.loads(args) == {"command": "echo streamed"}
    )
    plain = _run(llm_server, tmp_path, stream=False, callbacks=[], store="b")
    assert "stream" not in llm_server.bodies("chat")[-1]

    def comparable(events):
        for e in events:
            e.pop("llm_response_id", None)
            if e["kind"] == "ActionEvent":
                e["tool_call_id"] = e["tool_call"]["id"] = "<call>"
            if e["kind"] == "ObservationEvent":
                e["tool_call_id"] = e["action_id"] = "<call>"
                e["observation"]["metadata"]["pid"] = e["observation"]["full_output_save_dir"] = (
                    None
                )
        return events

    assert comparable(streamed) == comparable(plain)


def test_stream_without_callbacks_is_a_plain_call(llm_server, tmp_path):
    _run(llm_server, tmp_path, stream=True, callbacks=[])
    assert all("stream" not in b for b in llm_server.bodies("chat"))
