"""evaluation/injection.py: CodRep 2019's kinds of edit, their conventions, and the `any` mix."""
import random

import pytest
from conftest import TINY_JAVA
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.injection import CODREP2019_MIX, EDIT_KINDS, any_edit, candidates, quotas
from parsing.java import tokenize


def tokens(text):
    return [t.text for t in tokenize(text).tokens]


@pytest.mark.parametrize("kind, gap, edited, answer_at", [
    ("insert tab", " ", " \t", 1),          # right before the next token
    ("insert tab", "", "\t", 0),
    ("insert newline", "\n    ", "\n    \n", 5),
    ("insert space", "", " ", 0),           # only into an empty gap
    ("delete space", " ", "", 0),           # a whole one-space gap: the next token is the answer
    ("delete newline", "\n    ", "    ", 0),  # the gap's next character stands where the newline was
    ("delete newline", "  \n\t", "  \t", 2),
])
def test_edit_kinds_follow_codrep2019s_conventions(kind, gap, edited, answer_at):
    spec = EDIT_KINDS[kind]
    assert spec.applies(gap)
    assert spec.edit(gap) == (edited, answer_at)


@pytest.mark.parametrize("kind, gap", [
    ("insert space", " "), ("delete space", "  "), ("delete space", "\t"), ("delete newline", "\n\n"),
    ("delete newline", " "),
])
def test_edit_kinds_leave_other_gaps_alone(kind, gap):
    assert not EDIT_KINDS[kind].applies(gap)


@pytest.mark.parametrize("count", [0, 1, 3, 7, 100, 1000])
def test_quotas_sum_to_the_count_and_follow_the_mix(count):
    q = quotas(count)
    assert sum(q.values()) == count
    total = sum(CODREP2019_MIX.values())
    for kind, n in q.items():
        assert abs(n - count * CODREP2019_MIX[kind] / total) < 1


@pytest.mark.parametrize("kind", sorted(EDIT_KINDS))
@pytest.mark.parametrize("seed", range(5))
def test_candidates_change_one_gap_keep_the_tokens_and_answer_at_the_edit(kind, seed):
    text = TINY_JAVA["B.java"] + "// a comment\nclass D { int  x ; }\n"
    stream = tokenize(text)
    made = list(candidates(stream, kind, random.Random(seed)))
    assert made, f"no {kind} edit in the text"
    for new, edit in made:
        assert tokens(new) == tokens(text)
        lo = edit.gap_start - 1
        assert text[lo:lo + len(edit.original)] == edit.original
        assert new[lo:lo + len(edit.edited)] == edit.edited
        assert new[:lo] == text[:lo] and new[lo + len(edit.edited):] == text[lo + len(edit.original):]
        if kind.startswith("insert"):
            assert new[edit.answer - 1] == {"insert tab": "\t", "insert space": " ", "insert newline": "\n"}[kind]
            assert edit.answer == lo + len(edit.edited)        # the last character of the gap
        assert edit.line == new.count("\n", 0, edit.answer - 1) + 1
        assert edit.lines_added == edit.edited.count("\n") - edit.original.count("\n")


def test_a_newline_after_a_line_comment_is_never_deleted():
    text = "class A {\n    int x; // note\n    int y;\n}\n"
    made = list(candidates(tokenize(text), "delete newline", random.Random(0)))
    assert made and all("// note\n" in new for new, _ in made)


def test_a_space_between_words_is_never_deleted():
    text = "class A { int x = a - -b; }\n"
    for new, edit in candidates(tokenize(text), "delete space", random.Random(0)):
        assert tokens(new) == tokens(text)
        assert "intx" not in new and "--b" not in new


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_any_edit_keeps_tokens_and_answers_the_edited_character(seed):
    text = TINY_JAVA["B.java"]
    made = any_edit(tokenize(text), random.Random(seed))
    assert made is not None
    new, edit = made
    assert tokens(new) == tokens(text) and new != text
    if edit.kind == "delete":
        assert len(new) == len(text) - 1 and edit.answer <= len(new)
    else:
        assert new[edit.answer - 1] in " \t\n"


@pytest.mark.parametrize("gap, kind, answer_in_gap", [
    (" ", "insert", "last"),      # '  ': the inserted space is the last of its run
    ("\n\n", "delete", "first"),  # a blank line removed: the first remaining character
])
def test_any_edit_gives_indistinguishable_edits_one_answer(gap, kind, answer_in_gap):
    text = f"class A {{ int x;{gap}int y; }}"
    for seed in range(300):
        made = any_edit(tokenize(text), random.Random(seed))
        if made and made[1].kind == kind and made[1].original == gap and len(set(made[1].edited)) == 1:
            _, edit = made
            lo, hi = edit.gap_start, edit.gap_start + len(edit.edited) - 1
            assert edit.answer == (hi if answer_in_gap == "last" else lo)
            return
    pytest.fail("the edit was never drawn")
