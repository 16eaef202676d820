"""formats/sources.py: corpus sources recognised by shape, and the files a PATH names for ranking."""
import zipfile

import pytest
from conftest import TINY_JAVA

from formats.files import InputError
from formats.sources import SourceError, files_to_rank, iter_raw, shape_of


def make_sources(root):
    """One of each SOURCE shape, written by the test."""
    (root / "plain" / "sub").mkdir(parents=True)
    (root / "plain" / "sub" / "A.java").write_text(TINY_JAVA["A.java"])
    with zipfile.ZipFile(root / "src.zip", "w") as z:
        z.writestr("mod/B.java", TINY_JAVA["B.java"])
        z.writestr("mod/notes.txt", "not java")
    ds = root / "Dataset9"
    (ds / "Tasks").mkdir(parents=True)
    (ds / "Solutions").mkdir()
    (ds / "Tasks" / "1.txt").write_text("int y = 2;\n\n" + TINY_JAVA["C.java"])
    (ds / "Solutions" / "1.txt").write_text("3\n")
    cr = root / "codrep"
    cr.mkdir()
    (cr / "0.txt").write_text(TINY_JAVA["A.java"])
    (cr / "out.txt").write_text("5\n")
    (root / "One.java").write_text(TINY_JAVA["C.java"])
    (root / "broken.zip").write_bytes(b"PK not really")
    return root


@pytest.mark.parametrize("name, shape", [
    ("plain", "folder"), ("src.zip", "archive"), ("Dataset9", "codrep2018"), ("codrep", "codrep2019"),
    ("One.java", "java"),
])
def test_sources_are_recognised_by_shape(tmp_path, name, shape):
    assert shape_of(make_sources(tmp_path) / name) == shape


@pytest.mark.parametrize("name, message", [
    ("missing", "no such file or folder"), ("broken.zip", "not a readable zip"),
])
def test_unreadable_sources_are_errors(tmp_path, name, message):
    with pytest.raises(SourceError, match=message):
        list(iter_raw(make_sources(tmp_path) / name))


def test_folder_entries_are_recognised_recursively(tmp_path):
    root = make_sources(tmp_path)
    (root / "broken.zip").unlink()
    got = {(r.shape, r.data) for r in iter_raw(root)}
    assert ("codrep2018", TINY_JAVA["C.java"].encode()) in got   # body after new line + blank line
    assert ("archive", TINY_JAVA["B.java"].encode()) in got        # only *.java members
    assert ("java", TINY_JAVA["A.java"].encode()) in got
    assert ("codrep2019", TINY_JAVA["A.java"].encode()) in got
    assert ("java", TINY_JAVA["C.java"].encode()) in got
    assert len(got) == 5 and sum(1 for _ in iter_raw(root)) == 5


def test_files_to_rank_in_task_order(tmp_path):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for n in (10, 9, 1):
        (tasks / f"{n}.txt").write_text("class A {}\n")
    (tasks / "out.txt").write_text("1\n" * 11)   # an answer on line N+1 for each N.txt
    assert [p.name for p in files_to_rank(tasks)] == ["1.txt", "9.txt", "10.txt"]
    java = tmp_path / "java"
    (java / "b").mkdir(parents=True)
    (java / "b" / "Z.java").write_text("class Z {}\n")
    (java / "A.java").write_text("class A {}\n")
    assert [p.name for p in files_to_rank(java)] == ["A.java", "Z.java"]
    assert all(p.is_absolute() for p in files_to_rank(java))
    with pytest.raises(InputError, match="no such file"):
        files_to_rank(tmp_path / "missing")
