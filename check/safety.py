"""Repairs bin/check never proposes, whatever they score: the ones that would harm a file that is fine as it
is. The model learned Java at large, and a repair of any size can be more natural there and still wrong in
this file: a tab written into a file that has none, a trailing comment moved to a line of its own (it then
comments the next line), a continuation line's indentation flattened to its statement's. (A line broken
inside column alignment is left to the evidence: the run of spaces a deleted line break leaves looks the same.)
"""
from __future__ import annotations

from parsing.offsets import has_line_break, last_line
from parsing.style import columns

# tokens after which a line break ends a statement or opens or closes a block: the next line is not a
# continuation
_STATEMENT_ENDS = frozenset({";", "{", "}", ":", "->"})


def harmful(observed: str, repaired: str, before: str, after: str, indent, tabs: bool,
            aligned: bool = False) -> bool:
    """Whether replacing gap text `observed` by `repaired`, between tokens `before` and `after` ('' at the
    ends of the file) on a line indented by `indent()` (asked only when it matters: the file is walked for
    it), in a file with (`tabs`) or without a tab, would harm it. `aligned`: the repair lines the line up with
    the line the structure says it goes with (a sibling in its bracket, its block's header), so a continuation
    made as deep as the line before is what is meant."""
    if "\t" in repaired and "\t" not in observed and not tabs:
        return True
    breaks = has_line_break(repaired) and not has_line_break(observed)
    if breaks and after.startswith(("//", "/*")):
        return True
    if aligned or not (has_line_break(observed) and has_line_break(repaired)) or not before \
            or before in _STATEMENT_ENDS or before.startswith(("//", "/*", "@")):
        return False
    # a continuation line's indentation flattened to its statement's (or less)
    new = columns(last_line(repaired))
    return new < columns(last_line(observed)) and new <= columns(indent())
