"""View benchmark: `inspect`, `view`, `ls` and `stats` on a long conversation and a corpus.

Usage:
    python benchmarks/bench_view.py [--events 5000] [--conversations 200] [--keep DIR]

Builds (with `benchmarks/gen_corpus.py`, realistic 1-10 KB outputs, 5% at 100 KB) one
conversation of `--events` events and a corpus of `--conversations` x 100 events in a temporary
folder, then prints:
- long conversation: load (read + parse), the terminal transcript rendered off a terminal,
  the HTML report built, its size, and, when Chromium is installed, the time from navigation
  to the first page of entries drawn in headless Chromium;
- corpus: `ls` rows (header only) and `stats` (every event parsed), per conversation.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rich.console import Console  # noqa: E402

from trajkit.engine import LocalEngine  # noqa: E402
from trajkit.shapes import resolve_inputs  # noqa: E402
from trajkit.views.html import conversation_to_html  # noqa: E402
from trajkit.views.load import load_conversation  # noqa: E402
from trajkit.views.summary import (  # noqa: E402
    ConversationStats,
    CorpusStats,
    iter_rows,
    iter_stats,
)
from trajkit.views.terminal import print_conversation  # noqa: E402


def _gen(out: Path, conversations: int, events: int) -> Path:
    subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "gen_corpus.py"), str(out),
         "--conversations", str(conversations), "--events", str(events)],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return out


def _timed(label: str, func, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = func(*args)
    elapsed = time.perf_counter() - start
    print(f"  {label:<38} {elapsed * 1000:9.1f} ms")
    return result, elapsed


def bench_long(folder: Path, workdir: Path) -> None:
    conv = next(p for p in folder.iterdir() if p.is_dir())
    n = len(list((conv / "events").glob("event-*.json")))
    mb = sum(p.stat().st_size for p in (conv / "events").iterdir()) / 1e6
    print(f"long conversation: {n:,} events, {mb:.1f} MB on disk")
    loaded, t_load = _timed("load (read + parse every event)", load_conversation, conv)
    print(f"  {'':<38} {t_load / n * 1e6:9.1f} µs/event")
    console = Console(file=io.StringIO(), width=120)
    _timed("inspect: transcript, folded", print_conversation, loaded, console)
    page, _ = _timed("view: HTML report built", conversation_to_html, loaded)
    print(f"  {'report size':<38} {len(page.encode()) / 1e6:9.1f} MB")
    ranged, _ = _timed(
        "inspect --from/--to: load 11 events",
        lambda: load_conversation(conv, event_range=(n - 11, n - 1)),
    )
    assert len(ranged.items) == 11
    _browser_time(page, workdir)


def _browser_time(page: str, workdir: Path) -> None:
    try:
        from tests.views._browser import Browser, find_chromium
    except ImportError:
        return
    binary = find_chromium()
    if binary is None:
        print("  (chromium not installed: browser timing skipped)")
        return
    report = workdir / "long.html"
    report.write_text(page)
    browser = Browser(binary, workdir / "profile")
    try:
        tab = browser.new_page()
        start = time.perf_counter()
        tab.open(report.as_uri())
        tab.wait_for("document.querySelectorAll('article.entry').length > 0")
        first = time.perf_counter() - start
        print(f"  {'chromium: navigate -> first page drawn':<38} {first * 1000:9.1f} ms")
        took = tab.evaluate(
            "(() => { const t = performance.now(); window.trajkitReport.search('error');"
            " return performance.now() - t; })()"
        )
        print(f"  {'chromium: search all events + redraw':<38} {took:9.1f} ms")
        tab.close()
    finally:
        browser.close()


def bench_corpus(folder: Path) -> None:
    folders = [f for f in resolve_inputs([folder]) if isinstance(f, Path)]
    print(f"corpus: {len(folders)} conversations")
    rows, t_ls = _timed("ls: rows", lambda: list(iter_rows([folder])))
    print(f"  {'':<38} {t_ls / len(rows) * 1000:9.2f} ms/conversation")

    for workers in (1, 2):

        def stats(workers: int = workers) -> CorpusStats:
            corpus = CorpusStats()
            for item in iter_stats([folder], engine=LocalEngine(workers)):
                assert isinstance(item, ConversationStats)
                corpus.add(item)
            return corpus

        corpus, t_stats = _timed(f"stats: every event parsed, {workers} process(es)", stats)
        events = sum(corpus.kinds.values())
        print(f"  {'':<38} {t_stats / events * 1e6:9.1f} µs/event ({events:,} events)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--keep", type=Path, default=None, help="build the data here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        long_dir = base / "long"
        corpus_dir = base / "corpus"
        if not long_dir.exists():
            _gen(long_dir, 1, args.events)
        if not corpus_dir.exists():
            _gen(corpus_dir, args.conversations, 100)
        bench_long(long_dir, Path(tmp))
        bench_corpus(corpus_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
