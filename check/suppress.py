"""The gaps a file asks not to be checked: between a comment that turns formatting off and the next that turns
it on (`@formatter:off` / `@formatter:on` of Eclipse, IntelliJ and Spotless's formatters, `spotless:off` /
`spotless:on`, Checkstyle's `CHECKSTYLE:OFF` / `CHECKSTYLE:ON`), or to the end of the file. Code there is laid
out by hand on purpose (tables, aligned columns), so bin/check reports nothing in it and --fix leaves it."""
from __future__ import annotations

import re

from parsing.tokens import TokenStream

OFF = re.compile(r"@formatter:off|spotless:off|CHECKSTYLE:OFF")
ON = re.compile(r"@formatter:on|spotless:on|CHECKSTYLE:ON")
COMMENTS = frozenset({"line_comment", "block_comment"})


def may_have_quiet(text: str) -> bool:
    """Whether `text` may turn checking off anywhere (a cheap test before tokenizing)."""
    return OFF.search(text) is not None


def quiet_gaps(stream: TokenStream) -> frozenset[int]:
    """Indices of the gaps inside turned-off regions: gap i lies before token i, so a region opened by the
    comment at token a and closed by the comment at token b holds gaps a+1 .. b."""
    quiet: set[int] = set()
    opened = None
    for i, kind in enumerate(stream.kinds):
        if kind not in COMMENTS:
            continue
        text = stream.token_text(i)
        if opened is None and OFF.search(text):
            opened = i
        elif opened is not None and ON.search(text):
            quiet.update(range(opened + 1, i + 1))
            opened = None
    if opened is not None:
        quiet.update(range(opened + 1, len(stream) + 1))
    return frozenset(quiet)
