"""Every package trajkit imports is declared in `pyproject.toml`, where a user installing it gets it.

A package that only arrives through another one (numpy through `datasets`, pygments through `rich`)
works in the test venv and fails for the user who ran a plain `pip install trajkit`; this test reads
every import statement in `trajkit/` (lazy ones included) and checks its distribution against the
dependencies of the part that imports it. The CI step that installs the wheel alone (`.ci/run`)
checks the same thing by running every toolkit command.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.support.fixtures import REPO

PACKAGE = REPO / "trajkit"

# Which extras a part of the package may import from, beyond the base dependencies. A toolkit
# module that imports an extra's package must do it lazily and say which extra to install.
EXTRAS_BY_PART = {
    "sdk/": ("runtime",),
    "tools/": ("runtime",),
    "serve/": ("serve",),
    "cli/serve.py": ("serve",),
    "engine/ray.py": ("ray",),
    "store/remote.py": ("s3", "gcs", "ray"),
    "redact.py": ("runtime",),  # encrypt/decrypt only, behind _require_cryptography()
    "shapes/inspect_log.py": ("zstd",),  # zstd .eval members only, with a hint when missing
}


def _names(requirements: list[str]) -> set[str]:
    out = set()
    for req in requirements:
        name = re.match(r"[A-Za-z0-9_.\-]+", req)
        assert name, req
        out.add(_norm(name.group(0)))
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imports(path: Path) -> set[str]:
    """Top-level names of the absolute imports in `path`, at any depth of the module."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out - set(sys.stdlib_module_names) - {"trajkit", "__future__"}


def test_every_import_is_declared_where_it_is_used() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = _names(project["dependencies"])
    extras = {k: _names(v) for k, v in project["optional-dependencies"].items()}
    dists = packages_distributions()
    undeclared = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        allowed = set(base)
        for part, names in EXTRAS_BY_PART.items():
            if rel.startswith(part):
                allowed.update(*(extras[n] for n in names))
        for top in sorted(_imports(path)):
            # A package not installed here (gcsfs without the gcs extra) is named by its import.
            candidates = {_norm(d) for d in dists.get(top, [top])}
            if not candidates & allowed:
                undeclared.append(f"trajkit/{rel}: imports {top} ({', '.join(sorted(candidates))})")
    assert not undeclared, "\n".join(undeclared)


def test_the_check_sees_an_undeclared_import(tmp_path: Path) -> None:
    """The reader above finds a lazy import inside a function (how numpy slipped in once)."""
    sample = tmp_path / "chunks.py"
    sample.write_text("def f():\n    import numpy as np\n    from pyarrow import compute\n")
    assert _imports(sample) == {"numpy", "pyarrow"}
