"""`--engine ray`: the same per-conversation function on a local Ray (`ray.init(num_cpus=2)`).

The Ray export of a corpus must equal the local export row for row, file for file (same shard
names, same manifest); `validate --engine ray` prints the same lines. A bad conversation is
reported and the rest completes (exit 1). The test marked `slow` (1,100 events read from S3
one GET each, through Ray) runs with `--runslow`; the others run in CI.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from tests.support.s3_server import free_port
from trajkit.cli import main

pytest.importorskip("ray")

BAD = ("truncated_base_state", "parent_cycle")


@pytest.fixture(scope="module")
def mixed_corpus(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SDK conversations plus two invalid ones (skipped with their reasons)."""
    root = tmp_path_factory.mktemp("ray") / "mixed"
    shutil.copytree(corpus_dir, root)
    for name in BAD:
        shutil.copytree(fx.BAD_FIXTURES / name, root / name)
    return root


def _invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def _without_timing(stderr: str) -> list[str]:
    return [re.sub(r" in \d+\.\ds;", " in Xs;", line) for line in stderr.strip().splitlines()]


def _tables(out: Path) -> dict[str, object]:
    return {t: pq.read_table(out / t) for t in ("conversations", "events")}


def test_ray_export_equals_local_export(mixed_corpus, tmp_path, ray_cluster):
    local = _invoke("export", mixed_corpus, "-o", tmp_path / "local")
    ray = _invoke("export", mixed_corpus, "-o", tmp_path / "ray", "--engine", "ray")
    assert ray[0] == local[0] == 1  # two conversations skipped, the rest exported
    lines = _without_timing(ray[2])
    assert lines == [
        line.replace(str(tmp_path / "local"), str(tmp_path / "ray"))
        for line in _without_timing(local[2])
    ]
    assert len(lines) == 3 and all(lines[i].startswith("Error: ") for i in (0, 1))
    assert "exported 8 conversation(s)" in lines[2] and "2 skipped" in lines[2]
    names = {p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*.parquet")}
    assert names == {p.relative_to(tmp_path / "ray") for p in (tmp_path / "ray").rglob("*.parquet")}
    expected, got = _tables(tmp_path / "local"), _tables(tmp_path / "ray")
    for table in expected:
        assert got[table].schema.equals(expected[table].schema, check_metadata=True)
        assert got[table].num_rows == expected[table].num_rows > 0
        assert got[table].to_pylist() == expected[table].to_pylist()  # row for row
    manifest = orjson.loads((tmp_path / "ray" / "manifest.json").read_bytes())
    assert manifest == orjson.loads((tmp_path / "local" / "manifest.json").read_bytes())


def test_ray_validate_same_report(mixed_corpus, ray_cluster):
    local = _invoke("validate", mixed_corpus)
    ray = _invoke("validate", "--engine", "ray", mixed_corpus)
    assert ray[0] == local[0] == 1
    assert ray[1] == local[1]
    assert ray[1].strip().splitlines()[-1].startswith("INVALID: ")
    as_json = _invoke("validate", "--engine", "ray", "--json", mixed_corpus)
    assert json.loads(as_json[1])["conversations"] == 10


def test_ray_export_from_s3_equals_local_export_from_disk(
    corpus_dir, s3_url, tmp_path, ray_cluster
):
    assert _invoke("export", corpus_dir, "-o", tmp_path / "local")[0] == 0
    code, _, err = _invoke("export", s3_url, "-o", tmp_path / "ray", "--engine", "ray")
    assert code == 0, err
    for table, expected in _tables(tmp_path / "local").items():
        got = pq.read_table(tmp_path / "ray" / table)
        if table == "conversations":
            got, expected = got.drop(["source_path"]), expected.drop(["source_path"])  # type: ignore[attr-defined]
        assert got.to_pylist() == expected.to_pylist()  # type: ignore[attr-defined]


def test_ray_validate_from_s3(s3_url, corpus_dir, ray_cluster):
    local = _invoke("validate", corpus_dir)
    ray = _invoke("validate", "--engine", "ray", s3_url)
    assert ray[0] == local[0] == 0 and ray[1] == local[1]


def test_unreachable_cluster_is_exit_2_before_any_work(tmp_path):
    out = tmp_path / "out"
    address = f"127.0.0.1:{free_port()}"
    for args in (
        ["export", str(fx.SDK_FIXTURES), "-o", str(out), "--engine", "ray", "--address", address],
        ["validate", str(fx.SDK_FIXTURES), "--engine", "ray", "--address", address],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "trajkit", *args], capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines() == [
            f"Error: cannot reach the Ray cluster at {address} (connection refused); start one "
            "with `ray start --head` and pass the address it prints"
        ]
        assert result.stdout == "" and not out.exists()


def test_address_needs_the_ray_engine():
    code, _, err = _invoke("validate", fx.SDK_FIXTURES, "--address", "127.0.0.1:6379")
    assert code == 2 and err.strip() == "Error: --address needs --engine ray"


@pytest.mark.slow
def test_ray_export_of_a_large_prefix_equals_local(big_dir, s3, tmp_path, ray_cluster):
    assert _invoke("export", big_dir, "-o", tmp_path / "local")[0] == 0
    code, _, err = _invoke("export", "s3://corpus/big", "-o", tmp_path / "ray", "--engine", "ray")
    assert code == 0, err
    got = pq.read_table(tmp_path / "ray" / "events")
    assert got.num_rows > 1000
    assert got.to_pylist() == pq.read_table(tmp_path / "local" / "events").to_pylist()


def test_ray_export_equals_local_with_many_chunks(tmp_path, ray_cluster):
    corpus = tmp_path / "corpus"
    cmd = [sys.executable, str(fx.REPO / "benchmarks" / "gen_corpus.py"), str(corpus)]
    subprocess.run(
        cmd + ["--conversations", "60", "--events", "12"], check=True, capture_output=True
    )
    assert _invoke("export", corpus, "-o", tmp_path / "local")[0] == 0
    assert _invoke("export", corpus, "-o", tmp_path / "ray", "--engine", "ray")[0] == 0
    local = orjson.loads((tmp_path / "local" / "manifest.json").read_bytes())
    ray = orjson.loads((tmp_path / "ray" / "manifest.json").read_bytes())
    assert len(local["shards"]["events"]) > 1  # the chunk sizer had results to adapt to
    assert ray == local
    for table, expected in _tables(tmp_path / "local").items():
        got = pq.read_table([tmp_path / "ray" / table / n for n in ray["shards"][table]])
        assert (
            got.to_pylist()
            == pq.read_table(
                [tmp_path / "local" / table / n for n in local["shards"][table]]
            ).to_pylist()
        )
        assert got.num_rows == expected.num_rows  # type: ignore[attr-defined]


def test_ray_export_into_a_bucket(corpus_dir, s3, tmp_path, ray_cluster):
    url = "s3://corpus/datasets/ray"
    assert _invoke("export", corpus_dir, "-o", tmp_path / "local")[0] == 0
    code, _, err = _invoke("export", corpus_dir, "-o", url, "--engine", "ray")
    assert code == 0, err
    from trajkit.store.remote import as_remote

    root = as_remote(url)
    assert root is not None
    remote = orjson.loads(root.fs.cat_file(f"{root.key}/manifest.json"))
    assert remote == orjson.loads((tmp_path / "local" / "manifest.json").read_bytes())


def test_ray_convert_same_lines(mixed_corpus, tmp_path, ray_cluster):
    local = _invoke("convert", mixed_corpus, "-o", tmp_path / "l.jsonl")
    ray = _invoke("convert", mixed_corpus, "-o", tmp_path / "r.jsonl", "--engine", "ray")
    assert ray[0] == local[0] == 1  # the two bad conversations are skipped
    assert ray[2] == local[2]  # same Error: lines (absolute paths here) and summary
    lines = (tmp_path / "r.jsonl").read_bytes().splitlines()
    assert len(lines) == 8 and lines == (tmp_path / "l.jsonl").read_bytes().splitlines()
