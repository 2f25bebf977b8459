"""Read the other shapes OpenHands data comes in, as conversations (see `detect.py`).

- `detect`: the registry of shapes (evaluation output with V1 history, JSON/JSONL events,
  baseState documents, bare event folders, archives) and `find_locations()`, the walk that
  finds them beside V1 folders.
- `memory`: `ShapeRef` (a picklable address such as `out.jsonl#instance_id`) and
  `MemoryConversation`, a `StoredConversation` served from memory.
- `eval_output`, `archive`: the two shapes that need more than a few lines.
"""

from trajkit.shapes.detect import SHAPES, find_locations, open_shape, shape_of, shape_refs
from trajkit.shapes.memory import BareFolderConversation, MemoryConversation, ShapeRef

__all__ = [
    "SHAPES",
    "BareFolderConversation",
    "MemoryConversation",
    "ShapeRef",
    "find_locations",
    "open_shape",
    "shape_of",
    "shape_refs",
]
