"""The leaf walk of parsing/native.cpp in plain Python, with py-tree-sitter's cursor (as parsing/java.py did
before the walk moved to C). Tests require both to give the same leaves. An oracle for tests only."""
from __future__ import annotations

from parsing.java import GRAMMAR, WHOLE_KINDS


def leaves(data: bytes) -> tuple[list[str], list[int], list[int]]:
    """(kind, start byte, end byte) of every non-empty leaf, in document order, WHOLE_KINDS taken whole."""
    kinds, starts, ends = [], [], []
    cursor = GRAMMAR.parser.parse(data).walk()
    while True:
        node = cursor.node
        if node.type in WHOLE_KINDS or not cursor.goto_first_child():
            if node.end_byte > node.start_byte:   # MISSING nodes are empty
                kinds.append(node.type)
                starts.append(node.start_byte)
                ends.append(node.end_byte)
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return kinds, starts, ends

