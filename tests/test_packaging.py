"""The built wheel works outside the checkout: schemas shipped as package data, `py.typed`,
the CLI entry point, and the toolkit/runtime split of the dependencies.

The wheel is built offline from a copy of the sources (`--no-build-isolation`, the dev venv's
setuptools) and installed with `--no-deps` into a fresh venv under the test's temp folder: a
toolkit-only install. Its dependencies are the dev venv's packages *without* the runtime extra's
(litellm, mcp, cryptography, pyyaml) and without the dev venv's editable trajkit: a folder of
links to them is put on `sys.path` by a `.pth` line, so `import trajkit` finds the wheel's copy
and the runtime's packages are really missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.support import fixtures as fx

REPO = fx.REPO
_NOT_LINKED = (
    "litellm",
    "mcp",
    "cryptography",
    "yaml",
    "_yaml",
    "pyyaml",
    "jinja2",
    "ptyprocess",
    "trajkit",
    "__editable__",
)
"""Left out of the fresh venv's dependencies: the runtime extra's packages and the dev trajkit."""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin/` folder of a fresh venv holding the wheel built from this checkout."""
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(REPO / "trajkit", src / "trajkit", ignore=shutil.ignore_patterns("__pycache__"))
    dist = root / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(dist), str(src)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    if build.returncode != 0 and "setuptools" in build.stdout + build.stderr:
        pytest.skip(f"cannot build offline here: {build.stderr.strip().splitlines()[-1:]}")
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = dist.glob("trajkit-*.whl")
    env_dir = root / "venv"
    venv.create(env_dir, with_pip=False)
    bin_dir = env_dir / "bin"
    site = Path(
        subprocess.check_output(
            [bin_dir / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    deps = root / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(_NOT_LINKED):
            (deps / entry.name).symlink_to(entry)
    (site / "toolkit-deps.pth").write_text(f"{deps}\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install",
         "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout + install.stderr
    return bin_dir


def _run(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(cwd)}  # no PYTHONPATH
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300, check=False,
    )  # fmt: skip


def test_installed_package_is_the_wheel_with_py_typed(installed: Path, tmp_path: Path) -> None:
    code = "import trajkit, pathlib; p = pathlib.Path(trajkit.__file__).parent; print(p)"
    out = _run(installed, "python", "-c", code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    package = Path(out.stdout.strip())
    assert package.is_relative_to(installed.parent), package  # not the checkout
    assert (package / "py.typed").is_file()
    assert sorted(p.name for p in (package / "_schemas").glob("*.json")) == [
        "base_state.schema.json",
        "event.schema.json",
    ]


def test_installed_cli_finds_its_schemas_outside_the_checkout(
    installed: Path, tmp_path: Path
) -> None:
    check = _run(installed, "trajkit", "schema", "--check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "are up to date" in check.stdout
    shape = _run(installed, "trajkit", "schema", "ls", cwd=tmp_path)
    assert shape.returncode == 0, shape.stderr
    schema = json.loads(shape.stdout)
    assert schema == json.loads((REPO / "trajkit/_schemas/cli/ls.schema.json").read_text())
    corpus = shutil.copytree(fx.SDK_FIXTURES, tmp_path / "corpus")
    listed = _run(installed, "trajkit", "ls", str(corpus), "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    doc = json.loads(listed.stdout)
    assert not list(Draft202012Validator(schema).iter_errors(doc))
    assert len(doc["conversations"]) == len(fx.sdk_conversations())
    valid = _run(installed, "trajkit", "validate", str(corpus), cwd=tmp_path)
    assert valid.returncode == 0 and valid.stdout.startswith("valid: 8 conversations")


def test_toolkit_dependencies_leave_the_runtime_to_its_extra() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    base = {d.split(">")[0].split("=")[0].split("[")[0] for d in project["dependencies"]}
    runtime = {d.split(">")[0] for d in project["optional-dependencies"]["runtime"]}
    assert runtime == {
        "litellm",
        "mcp",
        "anyio",
        "cryptography",
        "pyyaml",
        "jinja2",
        "ptyprocess",
        "pillow",
    }
    assert not base & runtime


def test_toolkit_install_works_and_runtime_names_its_extra(installed: Path, tmp_path: Path) -> None:
    corpus = shutil.copytree(fx.sdk_conversation("b_terminal"), tmp_path / "conv")
    converted = _run(
        installed, "trajkit", "convert", str(corpus), "--to", "responses", cwd=tmp_path
    )
    assert converted.returncode == 0, converted.stderr
    assert "input" in json.loads(converted.stdout)
    for module, feature in (("trajkit.sdk", "trajkit.sdk (the runtime)"),
                            ("trajkit.tools.terminal", "trajkit.tools (the runtime's tools)")):  # fmt: skip
        out = _run(installed, "python", "-c", f"import {module}", cwd=tmp_path)
        assert out.returncode == 1
        assert out.stderr.strip().splitlines()[-1] == (
            f"trajkit._extras.MissingExtra: {feature} needs the 'runtime' extra, which is not "
            "installed (missing: litellm, mcp, cryptography, yaml, jinja2, ptyprocess); install it with: "
            'pip install "trajkit[runtime]"'
        )
