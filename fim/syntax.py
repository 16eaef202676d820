"""How broken a candidate makes the code around it: tree-sitter's ERROR and MISSING nodes in a window of
lines with the candidate as the middle (the generator's guard against lines that do not parse in place)."""
from __future__ import annotations

from functools import lru_cache

import tree_sitter

from parsing.languages import get_language

WINDOW_LINES = 12   # lines of prefix and of suffix parsed with the candidate


@lru_cache(maxsize=4)
def _parser(language: str) -> tree_sitter.Parser:
    module = __import__(f"tree_sitter_{get_language(language).name}")
    return tree_sitter.Parser(tree_sitter.Language(module.language()))


def _count(node) -> int:
    if not node.has_error:
        return 0
    if node.is_error or node.is_missing:
        return 1 + sum(_count(c) for c in node.children)
    return sum(_count(c) for c in node.children)


def errors(text: str, language: str) -> int:
    """ERROR and MISSING nodes of `text` parsed in `language`."""
    return _count(_parser(language).parse(text.encode("utf-8")).root_node)


def window(prefix: str, middle: str, suffix: str, lines: int = WINDOW_LINES) -> str:
    """The last `lines` lines of the prefix, the middle, the first `lines` lines of the suffix."""
    head = prefix.split("\n")
    tail = suffix.split("\n")
    return "\n".join(head[-lines - 1:]) + middle + "\n".join(tail[: lines + 1])
