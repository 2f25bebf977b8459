"""Export into object storage: `export_dataset(paths, "s3://bucket/dataset")`.

The export itself is the local one, run into a temporary folder (the mirror), and the result
is then published to the bucket. Object stores have no rename and no folder fsync, but one PUT
is atomic (an object appears whole or not at all), so publishing keeps the guarantee of the
local export: at any instant, the `manifest.json` in the bucket lists only whole shards.

1. Before any work: the storage answers (`check_location`); a prefix holding objects but no
   `manifest.json` is refused without `--overwrite`, as a non-empty folder is.
2. Incremental runs: `manifest.json` and the shards it lists are copied into the mirror, so
   unchanged conversations are skipped and replaced ones are dropped from their old shards
   exactly as on disk (this costs one download of the earlier dataset; for very large
   datasets export to a shared folder instead).
3. The export runs into the mirror (any engine whose workers see this machine's disk: the
   local pool or a local Ray; `--address` needs a shared OUT_DIR).
4. Publish: every shard this run wrote is uploaded, then `manifest.json`, then the shards
   in the bucket that the new manifest does not list (replaced, or left by an interrupted
   run) are deleted. Objects that are not the export's (other keys under the prefix) are
   never touched. A failure before step 4 leaves the bucket as it was.

Temporary disk: the size of the dataset (the mirror is removed at the end).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.errors import OutputExists, TrajkitError, UsageError
from trajkit.store.atomic import make_folder
from trajkit.store.location import StorageError, StorageFolder, check_location

if TYPE_CHECKING:
    from trajkit.engine import Engine
    from trajkit.export.dataset import ExportReport

__all__ = ["export_to_storage"]

_MANIFEST = "manifest.json"
_TABLES = ("conversations", "events")


def export_to_storage(
    out: StorageFolder,
    run: Callable[[Path], ExportReport],
    *,
    overwrite: bool,
    engine: Engine,
) -> ExportReport:
    """Run `run(mirror)` (the local export) and publish the mirror to `out` (module docstring)."""
    from trajkit.export.shards import SHARD_RE

    if not engine.shares_local_disk:
        raise UsageError(
            f"{out}: with --address the workers run on other machines and cannot write into "
            "this machine's staging folder; export to a folder every node sees, then copy it"
        )
    started = time.perf_counter()
    check_location(out)
    existing = _list_objects(out)
    shards_before = {k for k in existing if _is_shard(k, SHARD_RE)}
    with tempfile.TemporaryDirectory(prefix="trajkit-export-") as tmp:
        mirror = Path(tmp) / "dataset"
        make_folder(mirror)
        kept: set[str] = set()  # shards of the earlier export, already in the bucket
        if not overwrite:
            if _MANIFEST in existing:
                kept = _download_export(out, mirror)
            elif existing:
                raise OutputExists(
                    out,
                    "the prefix holds objects but no trajkit export (manifest.json); choose an "
                    "empty prefix, or pass --overwrite to write the dataset there",
                )
        report = run(mirror)
        _publish(out, mirror, kept, shards_before)
    report.out_dir = out  # type: ignore[assignment]
    report.seconds = time.perf_counter() - started  # with the downloads and uploads
    return report


def _list_objects(out: StorageFolder) -> dict[str, int]:
    """Relative key -> size of every object below `out` (all pages)."""
    try:
        return out.list_files()
    except OSError as exc:
        raise StorageError(f"{out}: cannot list the output prefix ({exc})") from None


def _is_shard(key: str, pattern: Any) -> bool:
    table, _, name = key.partition("/")
    return table in _TABLES and "/" not in name and pattern.match(name) is not None


def _download_export(out: StorageFolder, mirror: Path) -> set[str]:
    """Copy `manifest.json` and the shards it lists into the mirror; returns their keys."""
    import orjson

    manifest_path = mirror / _MANIFEST
    out.download(_MANIFEST, manifest_path)
    try:
        shards = orjson.loads(manifest_path.read_bytes()).get("shards", {})
    except (orjson.JSONDecodeError, AttributeError):
        return set()  # the local export reports the damaged manifest
    keys: set[str] = set()
    for table in _TABLES:
        make_folder(mirror / table)
        for name in shards.get(table, []):
            try:
                out.download(f"{table}/{name}", mirror / table / name)
            except FileNotFoundError:
                raise TrajkitError(
                    f"{out}/{table}/{name}: listed in manifest.json but missing from the "
                    "bucket; pass --overwrite to export again from scratch"
                ) from None
            keys.add(f"{table}/{name}")
    return keys


def _publish(out: StorageFolder, mirror: Path, kept: set[str], shards_before: set[str]) -> None:
    """Upload the shards this run wrote, then the manifest; then delete shards not listed.

    `kept`: shards of the earlier export that are unchanged in the bucket; every other listed
    shard is uploaded, even over an object of the same name (a leftover of an interrupted run,
    or a shard of the export `--overwrite` replaces).
    """
    import orjson

    manifest = orjson.loads((mirror / _MANIFEST).read_bytes())
    listed = {f"{t}/{n}" for t in _TABLES for n in manifest.get("shards", {}).get(t, [])}
    for key in sorted(listed - kept):
        out.upload(mirror / key, key)
    out.upload(mirror / _MANIFEST, _MANIFEST)
    out.delete(sorted(shards_before - listed))
