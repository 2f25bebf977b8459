"""Memory measurement shared by the benchmarks: a fresh process per corpus size, its own peak.

The peak is the process's own high-water mark (``VmHWM``); ``getrusage``'s ``ru_maxrss`` would
also carry the resident size of the process it was forked from, across ``exec``.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def peak_rss_kib() -> int:
    """This process's peak resident memory in KiB."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            match = re.search(r"^VmHWM:\s+(\d+)\s+kB", f.read(), re.MULTILINE)
        if match:
            return int(match.group(1))
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child_memory_rows(script: str, corpus: Path, n_folders: int) -> Iterator[dict[str, Any]]:
    """Run ``script CORPUS --child-memory N`` for a quarter, half and all of the corpus.

    Yields the JSON object each child prints on its last line.
    """
    for limit in sorted({max(1, n_folders // 4), max(1, n_folders // 2), n_folders}):
        out = subprocess.run(
            [sys.executable, script, str(corpus), "--child-memory", str(limit)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        yield json.loads(out.strip().splitlines()[-1])
