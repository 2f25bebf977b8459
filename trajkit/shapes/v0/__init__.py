"""OpenHands V0 (0.x) trajectories, read as V1 conversations: pure mapping, nothing written.

- `containers`: the V0 shapes of the registry (session folder, evaluation `output.jsonl`,
  trajectory JSON): which paths they take, their conversations, `load_v0` of one.
- `history`: the V0 event dict and its shapes (flat, pairs, resolver records), legacy keys.
- `mapping`: V0 events -> V1 events for one conversation (`v0_to_v1`); `toolcalls`: the
  tool-call actions of one LLM response and their results; `ledger`: ids, sidecar and counts;
  `payloads`, `recall`: per-type payloads and the recall text; `state`: the base state;
  `report`: the loss report (`migration_report.json`) and the sidecar V1 cannot hold.
- `reader`: `read_v0` (what `trajkit migrate` writes) and `open_v0` (the same in memory).

The face is the registry's part only (`containers`): the mapping loads the event model, which
`ls` and `serve` do not need until a V0 trajectory is opened.
"""

from trajkit.shapes.v0.containers import V0_KINDS, V0Source, load_v0

__all__ = ["V0_KINDS", "V0Source", "load_v0"]
