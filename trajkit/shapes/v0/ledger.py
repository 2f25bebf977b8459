"""The books of one migration: V1 event dicts in log order, the V0 -> V1 id table, the sidecar.

`mapping` decides what each V0 event becomes; the `Ledger` records it. Every V1 event goes
through `emit` (which gives it a deterministic id, uuid5 of the conversation id and the V0 id
plus a tag for the second event made from one V0 event, and the V0 timestamp), and every V0
event ends in exactly one of `mapped`, `folded`, `opaque` or `drop`, which writes its sidecar
entry and counts it in the report. `validate` turns the dicts into event models at the end; a
dict the model refuses becomes an opaque `V0Event` and a warning, never a failed conversation.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from trajkit.events import Event, parse_event
from trajkit.shapes.v0.history import ToolCallInfo, event_type, tool_call_info
from trajkit.shapes.v0.payloads import Fields
from trajkit.shapes.v0.report import MigrationReport

__all__ = ["Ledger"]


class Ledger:
    """V1 events being built for one conversation, and what the sidecar and report say."""

    def __init__(self, conversation_id: str, report: MigrationReport, *, synth_ts: bool) -> None:
        self.conv_uuid = uuid.UUID(conversation_id)
        self.report = report
        self.out: list[dict[str, Any]] = []
        self.v1_ids: dict[int, list[str]] = {}
        self.side: dict[int, dict[str, Any]] = {}
        self.responses: dict[str, dict[str, Any]] = {}
        self.delegate_events: list[dict[str, Any]] = []
        self._synth_ts_warned = synth_ts

    # -- V1 events ------------------------------------------------------------------------

    def emit(self, ev: dict[str, Any], d: dict[str, Any], *, tag: str = "") -> dict[str, Any]:
        """Append the V1 event `d` (with `kind`) made from V0 event `ev`; returns the stored dict."""
        vid = ev["id"]
        kind = d.pop("kind")
        d = {"id": self.event_id(vid, tag), "timestamp": self.timestamp(ev), **d, "kind": kind}
        self.out.append(d)
        self.v1_ids.setdefault(vid, []).append(d["id"])
        return d

    def event_id(self, vid: int, tag: str = "") -> str:
        """Deterministic V1 id for V0 id `vid` (and `tag` for a further event made from it)."""
        return str(uuid.uuid5(self.conv_uuid, f"v0:{vid}" + (f":{tag}" if tag else "")))

    def timestamp(self, ev: dict[str, Any]) -> str:
        """The V0 timestamp, or 1970-01-01 plus the V0 id in seconds when it has none."""
        ts = ev.get("timestamp")
        if isinstance(ts, str) and ts:
            return ts
        if not self._synth_ts_warned:
            self._synth_ts_warned = True
            self.report.warn(
                "events without timestamps got synthesized ones (1970-01-01 + V0 id seconds)"
            )
        return (datetime(1970, 1, 1) + timedelta(seconds=int(ev["id"]))).isoformat()

    def validate(self) -> list[Event]:
        """The event models, in log order (a refused dict is kept as an opaque `V0Event`).

        A result answering a refused action is kept opaque too: an observation whose action is
        no `ActionEvent` (or an error answering no call) would break the log's pairing.
        """
        events: list[Event] = []
        refused_ids: set[Any] = set()
        refused_calls: set[Any] = set()
        for d in self.out:
            try:
                events.append(parse_event(d))
            except (ValidationError, ValueError) as exc:
                first = exc.errors()[0] if isinstance(exc, ValidationError) else {"msg": str(exc)}
                where = "/".join(str(p) for p in first.get("loc", ()))
                self.report.warn(
                    f"a built {d.get('kind')} did not validate ({where}: {first.get('msg')}); "
                    "kept as an opaque V0Event"
                )
                events.append(_opaque(d))
                if d.get("kind") == "ActionEvent":
                    refused_ids.add(d.get("id"))
                    refused_calls.add(d.get("tool_call_id"))
        if refused_ids:
            for i, d in enumerate(self.out):
                answers_refused = d.get("action_id") in refused_ids or (
                    d.get("kind") == "AgentErrorEvent" and d.get("tool_call_id") in refused_calls
                )
                if answers_refused and events[i].kind != "V0Event":
                    self.report.warn(
                        f"a {d.get('kind')} answering an action kept opaque is kept opaque too"
                    )
                    events[i] = _opaque(d)
        for e in events:
            self.report.v1_kinds[e.kind] = self.report.v1_kinds.get(e.kind, 0) + 1
        return events

    # -- the fate of each V0 event ----------------------------------------------------------

    def mapped(self, ev: dict[str, Any], *fields: Fields) -> None:
        """`ev` became V1 events; keys of `fields` no payload used go to the sidecar."""
        unmapped: dict[str, Any] = {}
        for f in fields:
            unmapped.update(f.unmapped())
        self._entry(ev, "mapped", unmapped=unmapped)
        self.report.mapped += 1

    def folded(self, ev: dict[str, Any], into: dict[str, Any], extras: dict[str, Any]) -> None:
        """`ev` was folded into the V1 event `into` (a recall into its user message)."""
        self.v1_ids.setdefault(ev["id"], []).append(into["id"])
        self._entry(ev, "folded", unmapped=extras)
        self.report.mapped += 1

    def opaque(self, ev: dict[str, Any], source: str) -> None:
        """Keep `ev`, of a type migrate does not know, whole as an `UnknownEvent` (`V0Event`)."""
        raw = {k: v for k, v in ev.items() if not k.startswith("_")}
        self.emit(ev, {"source": source, "v0": raw, "kind": "V0Event"})
        self.report.opaque += 1
        self.report.warn(f"unknown V0 type {event_type(ev)!r} kept as an opaque V0Event")
        self._entry(ev, "opaque")

    def drop(self, ev: dict[str, Any], reason: str) -> None:
        """`ev` has no V1 counterpart; its whole dict goes to the sidecar."""
        entry = self._entry(ev, "dropped")
        entry["reason"] = reason
        entry["v0"] = {k: v for k, v in ev.items() if not k.startswith("_")}
        self.report.drop(reason)

    def set_aside(self, ev: dict[str, Any]) -> None:
        """`ev` belongs to a delegate sub-agent: kept whole in the sidecar."""
        self.delegate_events.append({k: v for k, v in ev.items() if not k.startswith("_")})
        self.report.drop("delegate sub-agent event (kept whole in the sidecar)")

    def note(self, ev: dict[str, Any], key: str, value: Any) -> None:
        """Attach one extra fact to an event's sidecar entry."""
        self.side.setdefault(ev["id"], {"v0_id": ev.get("_v0_original_id", ev["id"])})[key] = value

    def remember_response(self, info: ToolCallInfo) -> None:
        """Keep an LLM response's metadata (model, usage, ...) once, by response id."""
        if info.response_id and info.response_id not in self.responses:
            extra = {
                k: v for k, v in info.message.items() if k not in ("content", "tool_calls", "role")
            }
            self.responses[info.response_id] = {**info.response, "message_extras": extra}

    def sidecar_events(self, order: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Sidecar entries in V0 order."""
        return [self.side[e["id"]] for e in order if e["id"] in self.side]

    def _entry(
        self, ev: dict[str, Any], status: str, *, unmapped: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        vid = ev["id"]
        entry = self.side.setdefault(vid, {"v0_id": ev.get("_v0_original_id", vid)})
        entry.update({"type": event_type(ev), "status": status, "v1_ids": self.v1_ids.get(vid, [])})
        for key in ("source", "timestamp", "cause", "timeout", "success", "llm_metrics"):
            if key in ev:
                entry[key] = ev[key]
        info = tool_call_info(ev)
        if info is not None:
            entry["tool_call"] = {
                "function_name": info.function_name,
                "tool_call_id": info.tool_call_id,
                "total_calls_in_response": info.total_calls,
                "response_id": info.response_id,
            }
        if unmapped:
            entry["unmapped"] = unmapped
        return entry


def _opaque(d: dict[str, Any]) -> Event:
    """An opaque `V0Event` keeping a built dict the model refused under `v1_attempt`."""
    raw = {
        "id": d["id"],
        "timestamp": d["timestamp"],
        "source": "environment",
        "v1_attempt": d,
        "kind": "V0Event",
    }
    return parse_event(raw)
