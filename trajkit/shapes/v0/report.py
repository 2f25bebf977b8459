"""What a migration did to one conversation: `migration_report.json`, and its sidecar.

`MigrationReport` counts V0 events per source type (`action:run`, `observation:null`, ...) and
says, for every one of them, whether it was *mapped* to a V1 event (or folded into one, like a
recall into its user message), *kept opaque* (an unknown type without a tool call, as an `UnknownEvent`
of kind `V0Event`), or *dropped* (nothing in V1 holds it; the reason is counted). V1 events made without a
V0 source (finish observations, results for dangling calls) are counted as *synthesized*.
Warnings are aggregated (`text (xN)`) so a large trajectory gives a short report.

The sidecar (`v0_sidecar.json`) keeps what V1 events have no field for: V0 ids and the V1 ids
made from them, the original `timestamp`, `source` and `cause`, per-event `llm_metrics`, the
unused `args`/`extras` keys, original tool-call ids that had to be renamed, the response
metadata (`model`, `usage`, ...), the whole dicts of dropped events and of delegate sub-agent
events, and the container's metadata (session `metadata.json`, eval record fields). V0's
`message` display text is derived from the other fields and is kept only in the dropped
events' whole dicts. With the sidecar a migration can be audited.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["REPORT_FILE", "SIDECAR_FILE", "MigrationReport"]

REPORT_FILE = "migration_report.json"
SIDECAR_FILE = "v0_sidecar.json"


@dataclass
class MigrationReport:
    """Counts and warnings for one migrated conversation."""

    source: str
    """Input file or folder (`path:line` for a jsonl line)."""
    container: str
    """Container the input was found in."""
    shape: str
    """History shape: `flat`, `pairs` or `resolver`."""
    name: str
    """Conversation name (file stem, session id or eval `instance_id`)."""
    conversation_id: str = ""
    """V1 conversation id (dashed uuid)."""
    source_types: dict[str, int] = field(default_factory=dict)
    """V0 events per `action:<type>` / `observation:<type>`."""
    mapped: int = 0
    """V0 events that became (or were folded into) V1 events."""
    opaque: int = 0
    """V0 events of unknown or legacy types kept as opaque V1 events."""
    dropped: int = 0
    """V0 events with no V1 counterpart (whole dicts kept in the sidecar)."""
    dropped_by_reason: dict[str, int] = field(default_factory=dict)
    """Why events were dropped."""
    synthesized: int = 0
    """V1 events made with no V0 event behind them."""
    synthesized_by_kind: dict[str, int] = field(default_factory=dict)
    """What was synthesized."""
    v1_kinds: dict[str, int] = field(default_factory=dict)
    """V1 events written, per kind."""
    _warnings: dict[str, int] = field(default_factory=dict)

    def count_source(self, v0_type: str) -> None:
        """Count one V0 event of `v0_type`."""
        _inc(self.source_types, v0_type)

    def drop(self, reason: str) -> None:
        """Count one dropped V0 event."""
        self.dropped += 1
        _inc(self.dropped_by_reason, reason)

    def synthesize(self, what: str) -> None:
        """Count one synthesized V1 event."""
        self.synthesized += 1
        _inc(self.synthesized_by_kind, what)

    def warn(self, message: str) -> None:
        """Record a warning (repeats are counted, not repeated)."""
        _inc(self._warnings, message)

    @property
    def warnings(self) -> list[str]:
        """Distinct warnings, with `(xN)` when repeated."""
        return [m if n == 1 else f"{m} (x{n})" for m, n in self._warnings.items()]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to `migration_report.json`."""
        return {
            "source": self.source,
            "container": self.container,
            "shape": self.shape,
            "name": self.name,
            "conversation_id": self.conversation_id,
            "source_types": dict(sorted(self.source_types.items())),
            "v0_events": sum(self.source_types.values()),
            "mapped": self.mapped,
            "opaque": self.opaque,
            "dropped": self.dropped,
            "dropped_by_reason": dict(sorted(self.dropped_by_reason.items())),
            "synthesized": self.synthesized,
            "synthesized_by_kind": dict(sorted(self.synthesized_by_kind.items())),
            "v1_events": sum(self.v1_kinds.values()),
            "v1_kinds": dict(sorted(self.v1_kinds.items())),
            "warnings": self.warnings,
        }


def _inc(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1
