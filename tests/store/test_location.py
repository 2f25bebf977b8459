"""Remote paths stay behind the store: callers use `trajkit.store.location` (issue 13.6)."""

from __future__ import annotations

import ast
from pathlib import Path

from trajkit.store.location import as_location, is_location, is_remote, storage_folder

TRAJKIT = Path(__file__).resolve().parents[2] / "trajkit"


def _names_storage_class(source: str) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "trajkit.store.remote"
            or isinstance(node, ast.Import)
            and any(a.name == "trajkit.store.remote" for a in node.names)
            or isinstance(node, ast.ImportFrom)
            and node.module == "trajkit.store"
            and any(a.name == "remote" for a in node.names)
            or isinstance(node, ast.Name)
            and node.id == "RemotePath"
            or isinstance(node, ast.Attribute)
            and node.attr == "RemotePath"
            or isinstance(node, ast.Constant)  # a quoted annotation
            and isinstance(node.value, str)
            and node.value.strip() in {"RemotePath", "RemotePath | None"}
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_no_module_outside_store_names_the_storage_class():
    offenders = {
        path.relative_to(TRAJKIT).as_posix(): found
        for path in sorted(TRAJKIT.rglob("*.py"))
        if not path.relative_to(TRAJKIT).as_posix().startswith("store/")
        and (found := _names_storage_class(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
    control = (
        "from trajkit.store.remote import RemotePath\nx: RemotePath\n"
        "from trajkit.store import remote\ny: remote.RemotePath\nz: 'RemotePath'\n"
    )
    assert _names_storage_class(control) == [1, 2, 3, 4, 5]


def test_locations_without_any_storage(tmp_path):
    assert as_location(tmp_path) == tmp_path and is_location(tmp_path)
    assert not is_remote(tmp_path) and storage_folder(tmp_path) is None
    url = as_location("s3://bucket/prefix")
    assert is_location(url) and is_remote(url) and str(url) == "s3://bucket/prefix"
    assert storage_folder("gs://bucket/x") is not None
    assert not is_location("a string") and not is_location(None)
