"""Ctrl-C: a real SIGINT to a real `trajkit export` / `trajkit migrate` / `trajkit view` process.

The signal goes to the command's process group, as a terminal's Ctrl-C does (the workers get
it too), or to the parent alone (the parent must then stop the workers itself). Checked: the
"stopping" message, exit 130, a dataset whose every shard is listed in its manifest, and a
re-run that continues instead of starting over or failing.

Only what can be known is asserted, so the tests pass on a busy machine: how long the stop
takes is not (a bound failed under load); `HANG_SECONDS` only catches a command that never
stops. Which chunks finished before the signal is not known either (the workers' shards appear
before the parent has folded their results), so the tests check that whatever is on disk is
listed and that the re-run exports exactly the rest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support import fixtures as fx

N_CONVERSATIONS = 600
HANG_SECONDS = 300  # not a speed claim: a stop takes ~1 s here, and seconds at load 14


def _corpus(root: Path, n: int) -> Path:
    import shutil

    sources = fx.sdk_conversations()
    for i in range(n):
        cid = uuid.UUID(int=i + 1)
        folder = shutil.copytree(sources[i % len(sources)], root / cid.hex)
        state = json.loads((folder / "base_state.json").read_text())
        state["id"] = str(cid)
        (folder / "base_state.json").write_text(json.dumps(state))
    return root


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _corpus(tmp_path_factory.mktemp("corpus"), N_CONVERSATIONS)


def _start(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(fx.REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "trajkit", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, like a job on a terminal
    )


def _interrupt_when(
    proc: subprocess.Popen[str],
    ready: Path,
    pattern: str,
    *,
    group: bool,
    count: int = 1,
    settle: float = 0.5,
) -> None:
    """SIGINT once `count` files match `pattern` in `ready`, then `settle` seconds more."""
    deadline = time.monotonic() + HANG_SECONDS
    while len(list(ready.glob(pattern))) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the command never started writing"
        time.sleep(0.02)
    time.sleep(settle)  # with workers: work is in flight in both
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, signal.SIGINT)


def _listed_shards(ds: Path) -> dict[str, list[str]]:
    manifest = json.loads((ds / "manifest.json").read_text())
    return {table: sorted(names) for table, names in manifest["shards"].items()}


@pytest.mark.timeout(4 * HANG_SECONDS)  # slow on a busy machine, which is not a failure
@pytest.mark.parametrize("group", [True, False], ids=["terminal-ctrl-c", "parent-only"])
def test_ctrl_c_during_export_stops_keeps_what_finished_and_a_rerun_continues(
    corpus: Path, tmp_path: Path, group: bool
) -> None:
    ds = tmp_path / "ds"
    proc = _start("export", str(corpus), "-o", str(ds), "--workers", "2")
    _interrupt_when(proc, ds, "*/part-*.parquet", group=group)
    _, err = proc.communicate(timeout=HANG_SECONDS)
    assert proc.returncode == 130, err
    assert err.splitlines()[0] == "stopping the export...", err
    assert "Traceback" not in err and "Aborted" not in err
    assert "run the same command again to continue" in err.splitlines()[-1]

    if (ds / "manifest.json").exists():
        # Every shard a `*.parquet` glob finds is listed, and lists exactly the kept conversations.
        listed = _listed_shards(ds)
        for table in ("conversations", "events"):
            assert sorted(p.name for p in (ds / table).glob("*.parquet")) == listed[table]
        assert not (ds / ".staging").exists()
        manifest = json.loads((ds / "manifest.json").read_text())
        kept = len(manifest["conversations"])
        assert 0 < kept < N_CONVERSATIONS
        rows = pq.ParquetDataset(ds / "conversations").read(columns=["conversation_id"])
        assert sorted(rows.column("conversation_id").to_pylist()) == sorted(
            manifest["conversations"]
        )
    else:  # stopped before the parent had folded any chunk in: nothing is published
        assert not ds.exists(), sorted(ds.rglob("*"))
        kept = 0

    again = subprocess.run(
        [sys.executable, "-m", "trajkit", "export", str(corpus), "-o", str(ds), "--json"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(fx.REPO)},
        timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["unchanged"] == kept
    assert report["exported"] == N_CONVERSATIONS - kept
    rows = pq.ParquetDataset(ds / "conversations").read(columns=["conversation_id"])
    assert rows.num_rows == N_CONVERSATIONS == len(set(rows.column("conversation_id").to_pylist()))


@pytest.mark.timeout(4 * HANG_SECONDS)
def test_ctrl_c_during_migrate_then_rerun_finishes_the_job(tmp_path: Path) -> None:
    lines = (fx.FIXTURES / "v0-synthetic" / "eval_output.jsonl").read_text().splitlines()
    records = []
    for i in range(400):
        record = json.loads(lines[i % len(lines)])
        record["instance_id"] = f"inst-{i:05d}"
        records.append(json.dumps(record))
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "output.jsonl").write_text("\n".join(records) + "\n")
    out = tmp_path / "out"
    proc = _start("migrate", str(tmp_path / "in"), "-o", str(out), "--jobs", "2")
    _interrupt_when(proc, out, "[0-9a-f]*", group=True)
    _, err = proc.communicate(timeout=HANG_SECONDS)
    assert proc.returncode == 130, err
    assert "stopping the migration..." in err.splitlines()
    first = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert 0 < len(first) < 400  # a folder appears whole: the one seen before the signal stays

    again = subprocess.run(
        [sys.executable, "-m", "trajkit", "migrate", str(tmp_path / "in"), "-o", str(out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(fx.REPO)},
        timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    summary = again.stdout.splitlines()[-1]
    assert f"migrated {400 - len(first)} conversation(s)" in summary
    assert f"{len(first)} already migrated" in summary
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 400 and not [n for n in names if n.startswith(".")]  # no temp folders
    valid = subprocess.run(
        [sys.executable, "-m", "trajkit", "validate", str(out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(fx.REPO)},
        timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    assert valid.stdout.splitlines()[-1].startswith("valid"), valid.stdout[-2000:]


def _index_keys(site: Path) -> list[str]:
    index = (site / "index.html").read_text()
    data = json.loads(index.split('id="trajkit-index">', 1)[1].split("</script>", 1)[0])
    return sorted(row["key"] for row in data["rows"])


@pytest.mark.timeout(4 * HANG_SECONDS)
def test_ctrl_c_during_a_site_publishes_the_pages_written_and_a_rerun_continues(
    corpus: Path, tmp_path: Path
) -> None:
    """`view BIG -o site/`: stopped, the site lists every page on disk; run again, it goes on."""
    site = tmp_path / "site"
    proc = _start("view", str(corpus), "-o", str(site))
    # The pages are written one after the other in this process: once the second is on disk,
    # the first is listed, so at least one page is kept, whatever the machine's load.
    _interrupt_when(proc, site / "c", "*.html", group=True, count=2, settle=0)
    _, err = proc.communicate(timeout=HANG_SECONDS)
    assert proc.returncode == 130, err
    assert err.splitlines()[0] == "stopping the site...", err
    assert "Traceback" not in err and "run the same command again to continue" in err
    pages = sorted(p.stem for p in (site / "c").glob("*.html"))
    assert _index_keys(site) == pages  # every page on disk is listed, and only those
    # the second page may be cut before it is listed (then removed): at least the first stays
    assert 1 <= len(pages) < N_CONVERSATIONS
    written = {p: (site / "c" / f"{p}.html").stat().st_mtime_ns for p in pages}

    again = subprocess.run(
        [sys.executable, "-m", "trajkit", "view", str(corpus), "-o", str(site), "--json"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(fx.REPO)},
        timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert (report["unchanged"], report["pages"]) == (len(pages), N_CONVERSATIONS - len(pages))
    assert len(_index_keys(site)) == N_CONVERSATIONS
    assert sorted(p.stem for p in (site / "c").glob("*.html")) == _index_keys(site)
    assert {p: (site / "c" / f"{p}.html").stat().st_mtime_ns for p in written} == written
