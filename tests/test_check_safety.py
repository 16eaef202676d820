"""Repairs bin/check never proposes: they would harm a file that is fine as it is."""
import pytest

from check.safety import harmful


@pytest.mark.parametrize("observed, repaired, before, after, indent, tabs, expected", [
    ("\n    ", "\n\t", ";", "x", "", False, True),              # a tab into a file without tabs
    ("\n    ", "\n\t", ";", "x", "", True, False),               # the file has tabs: the model may judge
    (" ", "\n    ", ";", "// why", "    ", False, True),         # a trailing comment moved to its own line
    (" ", "\n    ", ";", "/* why */", "    ", False, True),
    ("    ", "\n    ", ";", "x", "    ", False, False),         # what a deleted line break leaves: may be right
    (" ", "\n        ", ",", "b", "    ", False, False),         # a line broken after a comma: may be right
    ("\n            ", "\n        ", "+", "b", "        ", False, True),   # a continuation flattened
    ("\n            ", "\n        ", ";", "b", "        ", False, False),  # a statement's line: may be right
    ("\n            ", "\n        ", "{", "b", "        ", False, False),
    ("\n            ", "\n                ", "+", "b", "        ", False, False),   # deeper: may be right
    ("\n      ", "\n        ", "+", "b", "        ", False, False),
])
def test_harmful_repairs(observed, repaired, before, after, indent, tabs, expected):
    assert harmful(observed, repaired, before, after, lambda: indent, tabs) is expected
