"""The static site is published as an export is: Ctrl-C keeps a listed part, a re-run continues.

Ctrl-C is a real `KeyboardInterrupt` raised by the iterable of paths `write_site` reads (it
iterates PATH... lazily), so it lands between two conversations at a known place; the
subprocess version (a real SIGINT) is in `tests/cli/test_cli_interrupt.py`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.views.conftest import make_corpus
from trajkit.cli import main
from trajkit.errors import OutputExists
from trajkit.views.site import SITE_MANIFEST, SiteInterrupted, write_site


def _index_rows(out: Path) -> list[dict[str, object]]:
    index = (out / "index.html").read_text()
    rows: list[dict[str, object]] = json.loads(
        index.split('id="trajkit-index">', 1)[1].split("</script>", 1)[0]
    )["rows"]
    return rows


def _pages(out: Path) -> list[str]:
    return sorted(p.stem for p in (out / "c").glob("*.html"))


def _then_ctrl_c(paths: list[Path]) -> Iterator[Path]:
    yield from paths
    raise KeyboardInterrupt


@pytest.fixture
def corpus(tmp_path: Path) -> list[Path]:
    return sorted(make_corpus(tmp_path / "corpus").values())


def test_ctrl_c_publishes_the_pages_written_and_a_rerun_continues(
    corpus: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    with pytest.raises(SiteInterrupted) as stopped:
        write_site(_then_ctrl_c(corpus[:2]), out)
    assert stopped.value.report.pages == 2
    rows = _index_rows(out)
    assert sorted(str(r["key"]) for r in rows) == _pages(out) and len(rows) == 2
    kept = {p: (out / "c" / f"{p}.html").stat().st_mtime_ns for p in _pages(out)}

    again = write_site(corpus, out)
    assert (again.pages, again.unchanged) == (1, 2)
    assert len(_index_rows(out)) == 3 and sorted(str(r["key"]) for r in _index_rows(out)) == _pages(
        out
    )
    assert {p: (out / "c" / f"{p}.html").stat().st_mtime_ns for p in kept} == kept  # not rewritten


def test_a_rerun_rewrites_changed_pages_and_drops_pages_no_longer_given(
    corpus: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    write_site(corpus, out)
    (corpus[0] / "base_state.json").write_text(
        (corpus[0] / "base_state.json").read_text() + "\n"
    )  # changed: its page is written again
    report = write_site(corpus[:2], out)
    assert (report.pages, report.unchanged) == (1, 1)
    assert len(_pages(out)) == 2 == len(_index_rows(out))


def test_ctrl_c_before_any_page_leaves_no_site(corpus: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "new" / "site"
    with pytest.raises(SiteInterrupted):
        write_site(_then_ctrl_c([]), out)
    assert not out.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SiteInterrupted):
        write_site(_then_ctrl_c([]), empty)
    assert empty.is_dir() and not list(empty.iterdir())


def test_a_folder_holding_something_else_is_refused_and_kept(
    corpus: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(OutputExists, match="holds no trajkit site"):
        write_site(corpus, out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    report = write_site(corpus, out, overwrite=True)
    assert report.pages == 3 and (out / "notes.txt").read_text() == "mine"


def test_duplicate_ids_give_one_line_each_naming_both_places(
    corpus: list[Path], tmp_path: Path
) -> None:
    """Copied folders: one page per id, and one problem per id (not one per copy)."""
    root = tmp_path / "copies"
    for n in range(4):
        for folder in corpus:
            shutil.copytree(folder, root / f"copy{n}" / folder.name)
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["view", str(root), "-o", str(out)])
    assert result.exit_code == 1
    assert result.stdout.startswith("wrote ") and "3 conversation pages" in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 3, result.stderr
    for folder, line in zip(sorted(corpus, key=lambda f: f.name), sorted(lines), strict=True):
        assert line == (
            f"skipped: {root / 'copy1' / folder.name}: conversation id "
            f"{_id(folder)} is also at {root / 'copy0' / folder.name}, whose page the site "
            "shows; this copy and 2 more skipped"
        )
    assert len(_pages(out)) == 3 == len(_index_rows(out))
    again = CliRunner().invoke(main, ["view", str(root), "-o", str(out)])
    assert again.stderr == result.stderr and "(3 unchanged, kept)" in again.stdout


def _id(folder: Path) -> str:
    return str(json.loads((folder / "base_state.json").read_text())["id"])


def test_the_manifest_lists_what_the_index_lists(corpus: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "site"
    write_site(corpus, out)
    manifest = json.loads((out / SITE_MANIFEST).read_text())
    assert (
        sorted(manifest["pages"]) == _pages(out) == sorted(str(r["key"]) for r in _index_rows(out))
    )


def test_pages_of_another_trajkit_version_are_written_again(
    corpus: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    write_site(corpus, out)
    manifest = json.loads((out / SITE_MANIFEST).read_text())
    (out / SITE_MANIFEST).write_text(json.dumps({**manifest, "trajkit": "0.0.1"}))
    report = write_site(corpus, out)
    assert (report.pages, report.unchanged) == (3, 0)


def test_a_damaged_manifest_is_an_error_naming_it(corpus: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "site"
    write_site(corpus, out)
    (out / SITE_MANIFEST).write_text("{not json")
    result = CliRunner().invoke(main, ["view", str(tmp_path / "corpus"), "-o", str(out)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {out / SITE_MANIFEST}: not a trajkit site manifest")
    assert result.stderr.rstrip().endswith("pass --overwrite to start over")
    forced = CliRunner().invoke(
        main, ["view", str(tmp_path / "corpus"), "-o", str(out), "--overwrite"]
    )
    assert forced.exit_code == 0 and len(_pages(out)) == 3
