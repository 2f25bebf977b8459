"""A real S3-compatible server on 127.0.0.1 for tests: `moto` in server mode, in a subprocess.

`S3Server.start()` picks a free port, runs `python -m moto.server -H 127.0.0.1 -p PORT`, and
waits until it answers. `env()` gives the variables a client (trajkit, its worker processes,
Ray workers) needs to reach it: the endpoint through the standard `AWS_ENDPOINT_URL` and dummy
credentials (moto accepts any). `upload_tree()` copies a local folder under a key prefix, one
object per file, with a thread pool (thousands of small files).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

__all__ = ["S3Server", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class S3Server:
    """A moto S3 server subprocess (see the module docstring)."""

    def __init__(self) -> None:
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """Environment for clients: endpoint, region and (dummy) credentials."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
        }

    def start(self, timeout: float = 30.0) -> S3Server:
        self.port = free_port()
        cmd = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)]
        self.process = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"moto server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(self.endpoint + "/moto-api/", timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("moto server did not answer in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def client(self) -> Any:
        """A boto3 S3 client for setting up buckets (tests only)."""
        import boto3

        env = self.env()
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
            region_name=env["AWS_DEFAULT_REGION"],
        )

    def create_bucket(self, name: str) -> None:
        self.client().create_bucket(Bucket=name)

    def upload_tree(self, local: Path, bucket: str, prefix: str) -> int:
        """Upload every file under `local` to `bucket/prefix/<relative path>`; returns the count."""
        client = self.client()
        files = sorted(p for p in local.rglob("*") if p.is_file())
        prefix = prefix.strip("/")

        def put(path: Path) -> None:
            key = "/".join(filter(None, [prefix, path.relative_to(local).as_posix()]))
            client.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())

        with ThreadPoolExecutor(max_workers=16) as pool:
            list(pool.map(put, files))
        return len(files)

    def __enter__(self) -> S3Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":  # manual use: python -m tests.support.s3_server
    with S3Server() as server:
        print(" ".join(f"{k}={v}" for k, v in server.env().items()), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    os._exit(0)
