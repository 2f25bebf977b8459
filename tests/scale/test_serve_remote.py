"""`trajkit serve`'s index and pages over an `s3://` prefix (moto on 127.0.0.1): the same rows
as over the local copy, and the same report data."""

from __future__ import annotations

from pathlib import Path

from trajkit.serve.app import load_source
from trajkit.serve.catalog import Catalog
from trajkit.views.html import report_data


def test_rows_and_pages_over_s3_match_the_local_copy(
    corpus_dir: Path, s3_url: str, tmp_path: Path
) -> None:
    local = Catalog([str(corpus_dir)], tmp_path / "local.sqlite3")
    remote = Catalog([s3_url], tmp_path / "remote.sqlite3")
    assert local.scan() == remote.scan() > 0
    assert remote.scan() == 0  # read once per cache

    def rows(catalog: Catalog) -> dict[str, dict]:
        found = catalog.query(size=100)["rows"]
        return {r["id"]: {k: v for k, v in r.items() if k not in ("key", "path")} for r in found}

    assert rows(remote) == rows(local)
    first = remote.query(sort="events", size=1)["rows"][0]
    twin = local.query(sort="events", size=1)["rows"][0]
    source = remote.source(first["key"])
    assert source is not None and source.path.startswith("s3://")
    served = report_data(load_source(remote, source))
    here = local.source(twin["key"])
    assert here is not None
    assert served["entries"] == report_data(load_source(local, here))["entries"]
