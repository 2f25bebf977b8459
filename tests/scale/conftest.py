"""Fixtures for the scale-out tests: a real S3 server (moto) holding a corpus, and local Ray.

- `corpus_dir`: the bundled SDK conversations; `big_dir`: one synthetic conversation with more
  than 1,000 event files (made by `benchmarks/gen_corpus.py`), so listing needs several pages.
- `s3`: a moto S3 server on 127.0.0.1 (a subprocess on a free port) while this folder's tests
  run, its endpoint and dummy credentials in this process's environment (Ray workers and
  worker processes inherit them), `corpus_dir` uploaded to `s3://corpus/data/` and `big_dir` to
  `s3://corpus/big/` (kept apart: each of its 1,100 files is one GET, about 10 ms on moto).
- `ray_cluster`: `ray.init(num_cpus=2)` once for this folder (after `s3`, so workers see the
  endpoint); trajkit's Ray engine reuses it. Package-scoped: server and Ray stop when the
  folder's last test is done, so the rest of the suite runs without them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from tests.support.s3_server import S3Server

BUCKET = "corpus"
PREFIX = "data"
BIG_EVENTS = 1100
"""Events of the synthetic conversation: more than S3's 1,000 keys per listing page."""


@pytest.fixture(scope="package")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scale") / "corpus"
    root.mkdir()
    for conv in fx.sdk_conversations():
        shutil.copytree(conv, root / conv.name)
    return root


@pytest.fixture(scope="package")
def big_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding one conversation of more than 1,000 event files."""
    big = tmp_path_factory.mktemp("scale") / "big"
    cmd = [sys.executable, str(fx.REPO / "benchmarks" / "gen_corpus.py"), str(big)]
    cmd += ["--conversations", "1", "--events", str(BIG_EVENTS), "--big-fraction", "0"]
    subprocess.run(cmd, check=True, capture_output=True)
    return big


@pytest.fixture(scope="package")
def s3(corpus_dir: Path, big_dir: Path) -> Iterator[S3Server]:
    server = S3Server().start()
    saved = {k: os.environ.get(k) for k in server.env()}
    os.environ.update(server.env())
    try:
        server.create_bucket(BUCKET)
        server.upload_tree(corpus_dir, BUCKET, PREFIX)
        server.upload_tree(big_dir, BUCKET, "big")
        yield server
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        server.stop()


@pytest.fixture(scope="package")
def s3_url(s3: S3Server) -> str:
    """`s3://corpus/data`: the same conversations as `corpus_dir`."""
    return f"s3://{BUCKET}/{PREFIX}"


@pytest.fixture(scope="package")
def ray_cluster(s3: S3Server) -> Iterator[None]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield
    finally:
        ray.shutdown()
