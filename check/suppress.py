"""The gaps bin/check leaves alone. Those a file asks not to be checked: between a comment that turns
formatting off and the next that turns it on (`@formatter:off` / `@formatter:on` of Eclipse, IntelliJ and
Spotless's formatters, `spotless:off` / `spotless:on`, Checkstyle's `CHECKSTYLE:OFF` / `CHECKSTYLE:ON`), or to
the end of the file. Code there is laid out by hand on purpose (tables, aligned columns), so bin/check reports
nothing in it and --fix leaves it. And those around Java the grammar misreads, where the model's surprise
says nothing of the whitespace: varargs after an annotation (`double @Nullable ... xs` parses as three '.'
tokens) and explicit type arguments (`Collections.<T>emptyList()`: no space after the '>', as after no other
type arguments)."""
from __future__ import annotations

import re

from parsing.tokens import TokenStream

OFF = re.compile(r"@formatter:off|spotless:off|CHECKSTYLE:OFF")
ON = re.compile(r"@formatter:on|spotless:on|CHECKSTYLE:ON")
COMMENTS = frozenset({"line_comment", "block_comment"})


def may_turn_off(text: str) -> bool:
    """Whether `text` may turn checking off (a cheap test before tokenizing: only then are comments needed).
    Each marker holds ':off' or ':OFF', which `in` finds far faster than the pattern's search."""
    return (":off" in text or ":OFF" in text) and OFF.search(text) is not None


def may_have_quiet(text: str) -> bool:
    """Whether `text` may have gaps to leave alone (a cheap test before tokenizing)."""
    return may_turn_off(text) or MISREAD.search(text) is not None


MISREAD = re.compile(r"\.\.\.|\.<")   # where such a '.' may start: the text holds one of them there


def misread_gaps(texts, gaps: list[str], at=None) -> set[int]:
    """The gaps around a split ellipsis ('.', '.', '.' with nothing between) and those of explicit type
    arguments ('.' '<' ... '>' and the name after it): gap i lies before token i. `texts`: the token texts (a
    sequence); `at`: the tokens that may be the '.' (None: every token; a caller that knows where MISREAD
    matches asks for those only, and reads the tokens around them)."""
    out: set[int] = set()
    for i in range(len(texts) - 1) if at is None else at:
        if i >= len(texts) - 1 or texts[i] != "." or gaps[i + 1]:
            continue
        if texts[i + 1] == "." and i + 2 < len(texts) and texts[i + 2] == "." and not gaps[i + 2]:
            out.update(range(i, i + 4))
        elif texts[i + 1] == "<":
            depth = 0   # of the angle brackets opened since the '.'
            for j in range(i + 1, len(texts)):
                if texts[j] in ("<", "<<"):
                    depth += len(texts[j])
                elif set(texts[j]) == {">"}:   # '>', '>>', '>>>'
                    depth -= len(texts[j])
                if depth <= 0:
                    out.update((i + 1, i + 2, j, j + 1))
                    break
    return out


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
    quiet |= misread_gaps(stream.token_texts(), stream.gap_texts)
    return frozenset(quiet)
