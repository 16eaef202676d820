"""bin/check-bench's sets as repositories (bench/check.py): a detection set's answer is the injected error's
offset, a slip set's (`make devsets` with the real slips' mix) the slipped gap's start."""
import json

import pytest

from bench.check import _right, make_repo

ORIGINAL = "class A {\n    int a;\n}\n"


def _set(folder, mix, answer):
    """A set of one task (a space removed before `int`'s line: the gap at offset 10 is 4 spaces, 3 now) and
    one clean file."""
    (folder / "clean").mkdir(parents=True)
    (folder / "0.txt").write_text(ORIGINAL.replace("    int", "   int"))
    (folder / "clean" / "0.java").write_text(ORIGINAL)
    (folder / "truth.jsonl").write_text(json.dumps({"task": "0.txt", "answer": answer, "gap_start": 10,
                                                    "original": "\n    ", "edited": "\n   "}) + "\n")
    (folder / "clean.jsonl").write_text(json.dumps({"file": "clean/0.java"}) + "\n")
    config = {"name": "s", "held_out": False, **({"mix": mix} if mix else {})}
    (folder / "devset.json").write_text(json.dumps({"config": config}))
    return folder


@pytest.mark.parametrize("mix, answer, finding, right", [
    (None, 11, {"offset": 11, "gap_offset": 10}, True),        # CodRep's: the error's offset
    (None, 11, {"offset": 14, "gap_offset": 10}, False),
    ("real", 10, {"offset": 14, "gap_offset": 10}, True),      # the real slips': the gap, whatever the offset
    ("real", 10, {"offset": 10, "gap_offset": 1}, False),
])
def test_a_finding_is_right_at_the_sets_answer(tmp_path, mix, answer, finding, right):
    repo = make_repo(_set(tmp_path / "set", mix, answer), tmp_path / "repo")
    task = str((tmp_path / "repo" / "tasks" / "0.java").absolute())
    assert repo.originals[task] == ORIGINAL and repo.clean_lines == 4
    found: set[str] = set()
    assert _right(repo, {**finding, "path": task}, found) is right
    assert _right(repo, {**finding, "path": task}, found) is False   # the first such finding counts
