"""FileEditorTool on real files; texts as the SDK writes them (fixtures/sdk/c_file_editor)."""

from pathlib import Path

import pytest

from trajkit.events import FileEditorAction
from trajkit.sdk.tool import ToolContext
from trajkit.tools.file_editor import FileEditorTool


@pytest.fixture
def editor(tmp_path: Path) -> FileEditorTool:
    return FileEditorTool(ToolContext(str(tmp_path)))


def call(tool: FileEditorTool, **kw):
    return tool(FileEditorAction(**kw))


def test_create_view_replace_match_sdk_texts(editor: FileEditorTool, tmp_path: Path) -> None:
    p = str(tmp_path / "notes.txt")
    obs = call(editor, command="create", path=p, file_text="alpha\nbeta\ngamma\n")
    assert obs.text == f"File created successfully at: {p}"
    assert obs.prev_exist is False and obs.new_content == "alpha\nbeta\ngamma\n"
    obs = call(editor, command="view", path=p)
    assert obs.text == (
        f"Here's the result of running `cat -n` on {p}:\n     1\talpha\n     2\tbeta\n     3\tgamma\n"
    )
    obs = call(editor, command="str_replace", path=p, old_str="beta", new_str="BETA")
    assert obs.text == (
        f"The file {p} has been edited. Here's the result of running `cat -n` on a snippet of "
        f"{p}:\n     1\talpha\n     2\tBETA\n     3\tgamma\nReview the changes and make sure they "
        "are as expected. Edit the file again if necessary."
    )
    assert obs.old_content == "alpha\nbeta\ngamma\n" and obs.new_content == "alpha\nBETA\ngamma\n"
    assert Path(p).read_text() == "alpha\nBETA\ngamma\n"


def test_str_replace_requires_unique_match(editor: FileEditorTool, tmp_path: Path) -> None:
    p = tmp_path / "f.txt"
    p.write_text("x = 1\ny = 1\n")
    obs = call(editor, command="str_replace", path=str(p), old_str="1", new_str="2")
    assert obs.is_error and "Multiple occurrences" in obs.text and "[1, 2]" in obs.text
    obs = call(editor, command="str_replace", path=str(p), old_str="zzz", new_str="2")
    assert obs.is_error and "did not appear verbatim" in obs.text
    assert p.read_text() == "x = 1\ny = 1\n"


def test_insert_and_undo(editor: FileEditorTool, tmp_path: Path) -> None:
    p = tmp_path / "f.txt"
    p.write_text("a\nb\n")
    obs = call(editor, command="insert", path=str(p), insert_line=1, new_str="between")
    assert not obs.is_error and p.read_text() == "a\nbetween\nb\n"
    obs = call(editor, command="insert", path=str(p), insert_line=9, new_str="x")
    assert obs.is_error and "[0, 3]" in obs.text
    obs = call(editor, command="undo_edit", path=str(p))
    assert not obs.is_error and p.read_text() == "a\nb\n"
    obs = call(editor, command="undo_edit", path=str(p))
    assert obs.is_error and "No edit history" in obs.text


def test_view_folder_range_and_bad_paths(editor: FileEditorTool, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "inner.txt").write_text("1\n2\n3\n")
    (tmp_path / ".hidden").write_text("")
    obs = call(editor, command="view", path=str(tmp_path))
    assert f"{tmp_path}/d/inner.txt" in obs.text and ".hidden" not in obs.text
    obs = call(editor, command="view", path=str(tmp_path / "d" / "inner.txt"), view_range=[2, -1])
    assert obs.text.endswith("     2\t2\n     3\t3\n")
    assert call(editor, command="view", path="relative.txt").is_error
    assert "does not exist" in call(editor, command="view", path=str(tmp_path / "nope")).text
    obs = call(editor, command="create", path=str(tmp_path / "d" / "inner.txt"), file_text="x")
    assert obs.is_error and "already exists" in obs.text
    assert (tmp_path / "d" / "inner.txt").read_text() == "1\n2\n3\n"
