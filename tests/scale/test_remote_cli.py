"""Every reading command gives the same answer from the S3 server as from disk.

`validate`, `convert`, `export`, `ls` and `stats` run through the CLI on `s3://corpus/data`
and on the same conversations on disk; outputs must be equal once the location itself (a path
or a URL) is taken out. Bad storage input (no bucket, no credentials, no endpoint) is one
`Error:` line and exit 2, checked in a fresh process so the environment is the user's.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq

from tests.support.cli import invoke, run_trajkit
from tests.support.s3_server import free_port


def _invoke(*args: str | Path) -> tuple[int, str, str]:
    result = invoke(*args)
    return result.exit_code, result.stdout, result.stderr


def _drop(text: str, *locations: str) -> str:
    for location in locations:
        text = text.replace(location, "<ROOT>")
    return text


def test_validate_same_report(corpus_dir, s3_url):
    local = _invoke("validate", "--json", corpus_dir)
    remote = _invoke("validate", "--json", s3_url)
    assert remote[0] == local[0] == 0
    assert json.loads(remote[1]) == json.loads(local[1])


def test_validate_reads_every_page_of_a_large_prefix(big_dir, s3):
    local = _invoke("validate", "--json", big_dir)
    remote = _invoke("validate", "--json", "s3://corpus/big")
    assert remote[0] == local[0]
    report = json.loads(remote[1])
    assert report == json.loads(local[1])
    assert report["events"] > 1000 and report["conversations"] == 1


def test_ls_and_stats_same_rows(corpus_dir, s3_url):
    code_l, out_l, _ = _invoke("ls", "--json", corpus_dir)
    code_r, out_r, _ = _invoke("ls", "--json", s3_url)
    assert code_l == code_r == 0
    rows_l, rows_r = json.loads(out_l)["conversations"], json.loads(out_r)["conversations"]
    assert len(rows_r) == 8
    assert [r.pop("path").replace(s3_url, "") for r in rows_r] == [
        r.pop("path").replace(str(corpus_dir), "") for r in rows_l
    ]
    assert rows_r == rows_l
    stats_l = _invoke("stats", "--json", corpus_dir)
    stats_r = _invoke("stats", "--json", s3_url)
    assert stats_r[0] == stats_l[0] == 0
    assert json.loads(stats_r[1]) == json.loads(stats_l[1])


def test_convert_same_documents(corpus_dir, s3_url, tmp_path):
    assert _invoke("convert", corpus_dir, "-o", tmp_path / "l.jsonl")[0] == 0
    assert _invoke("convert", s3_url, "-o", tmp_path / "r.jsonl")[0] == 0
    local = (tmp_path / "l.jsonl").read_bytes().splitlines()
    remote = (tmp_path / "r.jsonl").read_bytes().splitlines()
    assert len(remote) == 8 and remote == local


def test_export_same_rows(corpus_dir, s3_url, tmp_path):
    assert _invoke("export", corpus_dir, "-o", tmp_path / "l")[0] == 0
    code, _, err = _invoke("export", s3_url, "-o", tmp_path / "r")
    assert code == 0, err
    for table in ("conversations", "events"):
        local = pq.read_table(tmp_path / "l" / table)
        remote = pq.read_table(tmp_path / "r" / table)
        if table == "conversations":
            sources = remote.column("source_path").to_pylist()
            assert all(s.startswith(s3_url + "/") for s in sources)
            local = local.drop(["source_path"])
            remote = remote.drop(["source_path"])
        assert remote.num_rows == local.num_rows > 0
        assert remote.equals(local)
    # incremental: nothing changed in the bucket, so nothing is exported again
    code, _, err = _invoke("export", s3_url, "-o", tmp_path / "r")
    assert code == 0 and "exported 0 conversation(s)" in err and "8 unchanged" in err


def _run_fresh(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    base.update(
        AWS_CONFIG_FILE="/nonexistent",
        AWS_SHARED_CREDENTIALS_FILE="/nonexistent",
        AWS_EC2_METADATA_DISABLED="true",
    )
    base.update(env)
    return run_trajkit(*args, env=base)


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


def test_missing_bucket_is_exit_2_before_any_work(s3, tmp_path):
    out = tmp_path / "out"
    result = _run_fresh(["export", "s3://no-such-bucket/x", "-o", str(out)], s3.env())
    assert _one_error_line(result) == (
        "Error: s3://no-such-bucket: bucket 'no-such-bucket' does not exist"
    )
    assert not out.exists()  # nothing written
    for command in ("validate", "ls", "stats", "convert"):
        result = _run_fresh([command, "s3://no-such-bucket/x"], s3.env())
        assert "bucket 'no-such-bucket' does not exist" in _one_error_line(result)


def test_missing_credentials_is_exit_2(s3, s3_url):
    env = {k: v for k, v in s3.env().items() if "KEY" not in k}
    line = _one_error_line(_run_fresh(["validate", s3_url], env))
    assert line.startswith("Error: s3://corpus: no credentials found;")


def test_unreachable_endpoint_is_exit_2(s3, s3_url):
    env = {**s3.env(), "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}
    line = _one_error_line(_run_fresh(["ls", s3_url], env))
    assert line.startswith(
        "Error: s3://corpus: cannot reach the storage endpoint http://127.0.0.1:"
    )


def test_storage_option_sets_the_endpoint(s3, s3_url):
    env = {k: v for k, v in s3.env().items() if k != "AWS_ENDPOINT_URL"}
    env["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{free_port()}"  # wrong; the option wins
    result = _run_fresh(
        ["validate", "--storage-option", f"endpoint_url={s3.endpoint}", s3_url], env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1].startswith("valid: 8 conversations")


def _read_remote_table(url: str, table: str, names: list[str]):
    import pyarrow as pa

    from trajkit.store.remote import as_remote

    root = as_remote(url)
    assert root is not None
    tables = []
    for name in names:
        with root.fs.open(f"{root.key}/{table}/{name}", "rb") as f:
            tables.append(pq.read_table(f))
    return pa.concat_tables(tables)


def _remote_manifest(url: str) -> dict:
    from trajkit.store.remote import as_remote

    root = as_remote(url)
    assert root is not None
    return json.loads(root.fs.cat_file(f"{root.key}/manifest.json"))


def test_export_into_a_bucket_equals_export_to_disk(corpus_dir, s3, tmp_path):
    url = "s3://corpus/datasets/one"
    assert _invoke("export", corpus_dir, "-o", tmp_path / "l")[0] == 0
    code, _, err = _invoke("export", corpus_dir, "-o", url)
    assert code == 0, err
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith(f"exported 8 conversation(s), 70 event(s) to {url} ")
    )
    local = json.loads((tmp_path / "l" / "manifest.json").read_text())
    remote = _remote_manifest(url)
    assert remote["shards"] == local["shards"]
    for table in ("conversations", "events"):
        got = _read_remote_table(url, table, remote["shards"][table])
        assert got.to_pylist() == pq.read_table(tmp_path / "l" / table).to_pylist()
    # incremental: nothing changed, nothing uploaded again
    code, _, err = _invoke("export", corpus_dir, "-o", url)
    assert code == 0 and "exported 0 conversation(s)" in err and "8 unchanged" in err
    assert _remote_manifest(url)["shards"] == remote["shards"]


def test_export_into_a_bucket_replaces_changed_conversations(corpus_dir, s3, tmp_path):
    import shutil

    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    url = "s3://corpus/datasets/two"
    assert _invoke("export", corpus, "-o", url)[0] == 0
    first = _remote_manifest(url)
    changed = sorted(corpus.iterdir())[0]
    event = sorted((changed / "events").glob("event-*.json"))[0]
    event.write_bytes(event.read_bytes().replace(b"}", b" }", 1))  # same JSON, new size
    code, _, err = _invoke("export", corpus, "-o", url)
    assert code == 0, err
    assert "exported 1 conversation(s)" in err and "7 unchanged" in err
    second = _remote_manifest(url)
    assert second["shards"] != first["shards"]
    # the bucket holds exactly the shards the manifest lists, with one row per conversation
    root = url.removeprefix("s3://")
    from trajkit.store.remote import as_remote

    fs = as_remote(url).fs  # type: ignore[union-attr]
    stored = sorted(p.removeprefix(root + "/") for p in fs.find(root) if p.endswith(".parquet"))
    assert stored == sorted(f"{t}/{n}" for t in second["shards"] for n in second["shards"][t])
    rows = _read_remote_table(url, "conversations", second["shards"]["conversations"])
    assert sorted(rows.column("conversation_id").to_pylist()) == sorted(second["conversations"])


def test_export_into_a_non_empty_prefix_is_refused(corpus_dir, s3):
    s3.client().put_object(Bucket="corpus", Key="datasets/busy/notes.txt", Body=b"mine")
    code, _, err = _invoke("export", corpus_dir, "-o", "s3://corpus/datasets/busy")
    assert code == 1
    assert err.strip() == (
        "Error: s3://corpus/datasets/busy: already exists; the prefix holds objects but no "
        "trajkit export (manifest.json); choose an empty prefix, or pass --overwrite to write "
        "the dataset there"
    )
    assert _invoke("export", corpus_dir, "-o", "s3://corpus/datasets/busy", "--overwrite")[0] == 0
    body = s3.client().get_object(Bucket="corpus", Key="datasets/busy/notes.txt")["Body"].read()
    assert body == b"mine"  # not the export's: left alone


def test_an_invalid_conversation_in_a_bucket_gets_the_shared_verdict(s3, tmp_path):
    # fixtures/bad/index_gap: validate rejects it; export and convert skip it with that reason,
    # or keep it with --keep-invalid and its errors recorded, as for the same folder on disk
    from tests.support import fixtures as fx

    s3.upload_tree(fx.FIXTURES / "bad", "corpus", "bad")
    url = "s3://corpus/bad/index_gap"
    code, out, err = _invoke("validate", url)
    assert code == 1 and "index" in out + err
    code, _, err = _invoke("export", url, "-o", tmp_path / "ds")
    assert code == 1
    assert "; invalid, skipped (--keep-invalid keeps it)" in err
    code, _, err = _invoke("export", url, "-o", tmp_path / "kept", "--keep-invalid")
    assert code == 0, err
    (row,) = pq.read_table(tmp_path / "kept" / "conversations").to_pylist()
    assert row["source_path"] == url and row["problems"]
    local = _invoke(
        "export", fx.FIXTURES / "bad" / "index_gap", "-o", tmp_path / "l", "--keep-invalid"
    )
    assert local[0] == 0
    (local_row,) = pq.read_table(tmp_path / "l" / "conversations").to_pylist()
    assert [_drop(p, url, str(fx.FIXTURES / "bad" / "index_gap")) for p in row["problems"]] == [
        _drop(p, url, str(fx.FIXTURES / "bad" / "index_gap")) for p in local_row["problems"]
    ]
    code, _, err = _invoke("convert", url, "-o", tmp_path / "c.jsonl")
    assert code == 1 and "; invalid, skipped (--keep-invalid keeps it)" in err
