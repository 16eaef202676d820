"""ranker/habits.py: trailing whitespace, blank-line whitespace and mixed indentation, scored by rates."""
import math

import pytest

from ranker.habits import HEADS, NONE, PRIORS, STRENGTH, HabitCounts, habit_scores, habit_values, habits


@pytest.mark.parametrize("gap, unit, expected", [
    (" ", "    ", (NONE, NONE, NONE)),                 # within a line: no habit applies
    ("\n    ", "    ", (0, 0, NONE)),
    ("  \n    ", "    ", (1, 0, NONE)),                # trailing spaces
    ("\t\n\t", "\t", (2, 0, NONE)),                    # a trailing tab
    (" \t\n", "\t", (3, 0, NONE)),
    ("\n    \t", "    ", (0, 1, NONE)),                # a tab in a space-indented file
    ("\n\t\t  ", "\t", (0, 0, NONE)),                  # spaces after tabs: alignment
    ("\n  \t", "\t", (0, 1, NONE)),                    # spaces before a tab
    ("\n\n    ", "    ", (0, 0, 0)),
    ("\n    \n    ", "    ", (0, 0, 1)),               # a blank line holding whitespace
    ("\r\n\r\n", "    ", (0, 0, 0)),
])
def test_habits(gap, unit, expected):
    assert habits(gap, unit) == expected


def test_a_habit_the_file_has_is_cheaper_than_one_it_does_not():
    clean = ["\n    "] * 30 + [" "] * 50
    trailing = ["  \n    "] * 10 + ["\n    "] * 20 + [" "] * 50
    values = habit_values(["  \n    "], "    ")
    for gaps in (clean, trailing):
        counts = HabitCounts.of(gaps, "    ")
        assert sum(counts.counts[0]) == 30
    clean_score = habit_scores(HabitCounts.of(clean, "    "), values, None)[0]
    trailing_score = habit_scores(HabitCounts.of(trailing, "    "), values, None)[0]
    assert trailing_score > clean_score
    # the posteriors around the priors, by hand: trailing spaces never seen, the indentation never mixed
    assert clean_score == pytest.approx(math.log10((0 + STRENGTH * PRIORS[0][1]) / (30 + STRENGTH))
                                        + math.log10((30 + STRENGTH * PRIORS[1][0]) / (30 + STRENGTH)))


def test_the_gap_under_test_is_left_out_of_its_own_evidence():
    gaps = ["  \n    "] + ["\n    "] * 9
    counts = HabitCounts.of(gaps, "    ")
    observed = habit_values(gaps, "    ")
    own = observed[0:3]
    left_out = habit_scores(counts, observed[0:3], own)[0]
    assert left_out == pytest.approx(math.log10((0 + STRENGTH * PRIORS[0][1]) / (9 + STRENGTH))
                                     + math.log10((9 + STRENGTH * PRIORS[1][0]) / (9 + STRENGTH)))
    kept = habit_scores(counts, observed[0:3], None)[0]
    assert kept > left_out


def test_counts_add_and_subtract():
    a = HabitCounts.of(["  \n", "\n\n"], "    ")
    b = HabitCounts.of(["\t\n"], "\t")
    total = a + b
    assert (total - b).counts == a.counts
    assert total.counts[0] == (1, 1, 1, 0) and len(total.counts[0]) == len(HEADS)
    assert HabitCounts.of([], None).counts[2] == (0, 0)
