"""The input registry: every shape OpenHands data comes in, read as conversations.

- `inputs`: `resolve_inputs(paths, v0=...)`, what each PATH holds, for every command.
- `detect`: the registry of shapes (`SHAPES`: evaluation output with V1 history, JSON/JSONL
  events, baseState documents, bare event folders, archives, V0 trajectories).
- `memory`: `ShapeRef` (a picklable address such as `out.jsonl#instance_id`) and
  `MemoryConversation`, a `StoredConversation` served from memory.
- `eval_output`, `archive`, `v0/`: the shapes that need more than a few lines.
"""

from trajkit.shapes.atif import embedding_ref
from trajkit.shapes.detect import (
    SHAPES,
    embedded_refs,
    open_apart,
    open_shape,
    shape_at,
    shape_of,
    shape_refs,
)
from trajkit.shapes.inputs import Input, SkippedInput, V0Policy, resolve_inputs
from trajkit.shapes.memory import BareFolderConversation, MemoryConversation, ShapeRef

__all__ = [
    "SHAPES",
    "BareFolderConversation",
    "Input",
    "MemoryConversation",
    "ShapeRef",
    "SkippedInput",
    "V0Policy",
    "embedded_refs",
    "embedding_ref",
    "open_apart",
    "open_shape",
    "resolve_inputs",
    "shape_at",
    "shape_of",
    "shape_refs",
]
