"""`trajkit serve PATH...`: browse conversations in a local web app."""

from __future__ import annotations

import ipaddress
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from trajkit.cli._options import examples, jobs_option, paths_argument, redact_option


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@click.command(
    "serve",
    epilog=examples(
        "trajkit serve runs/",
        "trajkit serve runs/ other/ --port 0      # any free port",
    ),
)
@paths_argument()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="0: any free."
)
@click.option(
    "--cache",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Index cache file (default: ~/.cache/trajkit/serve-<digest of the PATHs>.sqlite3).",
)
@click.option("--rescan", default=2.0, show_default=True, help="Seconds between index rescans.")
@jobs_option
@redact_option
def serve_command(
    paths: tuple[Path, ...],
    host: str,
    port: int,
    cache: Path | None,
    rescan: float,
    jobs: int | None,
    masker: Any,
) -> None:
    """Serve an index of the conversations under PATH..., their reports (followed live while
    they are written) and side-by-side comparisons.

    Listens on 127.0.0.1 unless --host says otherwise; then an access token is required and
    printed with the URL. Needs the serve extra: pip install 'trajkit[serve]'.
    """
    from trajkit.errors import UsageError

    try:
        import uvicorn

        from trajkit.serve.app import create_app
        from trajkit.serve.catalog import Catalog, default_cache_path
        from trajkit.serve.limits import uvicorn_options
    except ImportError as exc:
        raise UsageError(
            f"trajkit serve needs the serve extra ({exc.name} is missing): "
            "pip install 'trajkit[serve]'"
        ) from None

    from trajkit.errors import InputError

    names = [str(p) for p in paths]
    for name in names:
        if "://" not in name and not Path(name).exists():
            raise InputError(name, "", "no such file or folder")
    from trajkit.corpus import DEFAULT_WORKERS

    catalog = Catalog(names, cache or default_cache_path(names), workers=jobs or DEFAULT_WORKERS,
                      redact=masker is not None)  # fmt: skip
    loopback = _is_loopback(host)
    token = None if loopback else secrets.token_urlsafe(24)
    try:
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
    url = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    threading.Thread(target=_keep_scanning, args=(catalog, rescan), daemon=True).start()
    click.echo(f"trajkit serve: indexing {', '.join(names)} (cache {catalog.db_path})")
    click.echo(f"open {url}", err=False)
    if token:
        click.echo("(not loopback: the access token above is required; keep it private)")
    config = uvicorn.Config(
        create_app(catalog, token=token, loopback=loopback),
        log_level="warning",
        timeout_graceful_shutdown=1,
        lifespan="off",
        **uvicorn_options(),  # request and idle timeouts, a connection limit
    )
    uvicorn.Server(config).run(sockets=[sock])


def _keep_scanning(catalog: object, every: float) -> None:
    from trajkit.serve.catalog import Catalog

    assert isinstance(catalog, Catalog)
    if catalog.query(size=1)["all"]:
        time.sleep(every)  # a warm cache: let the first pages be served before the rescan
    while True:
        started = time.monotonic()
        if catalog.scans == 0:
            _first_scan(catalog)
        else:
            catalog.scan()
        if catalog.scans == 1:
            click.echo(
                f"indexed {catalog.scanned:,} conversations in {time.monotonic() - started:.1f}s"
                + (f" ({len(catalog.problems)} skipped)" if catalog.problems else "")
            )
        time.sleep(max(every, 3 * catalog.last_scan_s))


def _first_scan(catalog: Any) -> None:
    """The first scan, with the progress display (on a terminal) of the conversations read."""
    from trajkit.cli._output import progress
    from trajkit.views.summary import Skipped, iter_sources

    def total() -> Iterator[object]:  # what the catalog reads: the skipped parts are not rows
        return (s for s in iter_sources(catalog.paths) if not isinstance(s, Skipped))

    with progress("indexing", total=total) as bar:
        done = threading.Event()
        shown = 0

        def follow() -> None:
            nonlocal shown
            while not done.wait(0.2):
                now = catalog.scanned
                bar.advance(now - shown)
                shown = now

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        try:
            catalog.scan()
        finally:
            done.set()
            follower.join()
            bar.advance(catalog.scanned - shown)
