"""ranker/habits.py: trailing whitespace, blank-line whitespace, mixed indentation and line endings, scored by
rates."""
import math
from array import array

import pytest

from ranker.habits import (ENDING, HEADS, NONE, PRIORS, STRENGTH, VARIABLES, HabitCounts, habit_scores, habit_values,
                           habits)


@pytest.mark.parametrize("gap, unit, expected", [
    (" ", "    ", (NONE, NONE, NONE, NONE)),           # within a line: no habit applies
    ("\n    ", "    ", (0, 0, NONE, 0)),
    ("  \n    ", "    ", (1, 0, NONE, 0)),            # trailing spaces
    ("\t\n\t", "\t", (2, 0, NONE, 0)),                # a trailing tab
    (" \t\n", "\t", (3, 0, NONE, 0)),
    ("\n    \t", "    ", (0, 1, NONE, 0)),            # a tab in a space-indented file
    ("\n\t\t  ", "\t", (0, 0, NONE, 0)),              # spaces after tabs: alignment
    ("\n  \t", "\t", (0, 1, NONE, 0)),                # spaces before a tab
    ("\n\n    ", "    ", (0, 0, 0, 0)),
    ("\n    \n    ", "    ", (0, 0, 1, 0)),           # a blank line holding whitespace
    ("\r\n\r\n", "    ", (0, 0, 0, 1)),               # CRLF line ends
    ("  \r\n    ", "    ", (1, 0, NONE, 1)),          # trailing spaces before a CRLF
    ("\r    ", "    ", (0, 0, NONE, 2)),               # a lone CR is a line break too
    ("\r\r    ", "    ", (0, 0, 0, 2)),
    ("\r\n\n", "    ", (0, 0, 0, 3)),                 # endings mixed within the gap
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
    own = observed[0:VARIABLES]
    left_out = habit_scores(counts, observed[0:VARIABLES], own)[0]
    assert left_out == pytest.approx(math.log10((0 + STRENGTH * PRIORS[0][1]) / (9 + STRENGTH))
                                     + math.log10((9 + STRENGTH * PRIORS[1][0]) / (9 + STRENGTH)))
    kept = habit_scores(counts, observed[0:VARIABLES], None)[0]
    assert kept > left_out


def test_counts_add_and_subtract():
    a = HabitCounts.of(["  \n", "\n\n"], "    ")
    b = HabitCounts.of(["\t\n"], "\t")
    total = a + b
    assert (total - b).counts == a.counts
    assert total.counts[0] == (1, 1, 1, 0) and len(total.counts[0]) == len(HEADS)
    assert HabitCounts.of([], None).counts[2] == (0, 0)


def test_a_files_line_ending_is_its_own():
    """A CRLF file's CRLF costs little and a lone LF in it more; in an LF file, a stray CRLF is what costs
    (each gap left out of its own evidence). A file without a CR: the line endings count for nothing."""
    crlf, lf = habit_values(["\r\n    "], "    "), habit_values(["\n    "], "    ")
    crlf_file = HabitCounts.of(["\r\n    "] * 40 + [" "] * 50, "    ")
    assert habit_scores(crlf_file, crlf, crlf)[0] > habit_scores(crlf_file, lf, crlf)[0] + 0.25
    stray = HabitCounts.of(["\n    "] * 40 + ["\r\n    "] + [" "] * 50, "    ")
    assert habit_scores(stray, lf, crlf)[0] > habit_scores(stray, crlf, crlf)[0] + 1
    lf_file = HabitCounts.of(["\n    "] * 40 + [" "] * 50, "    ")
    no_ending = array("b", lf)
    no_ending[ENDING] = NONE
    assert habit_scores(lf_file, lf, lf)[0] == habit_scores(lf_file, no_ending, no_ending)[0]
