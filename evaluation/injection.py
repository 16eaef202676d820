"""One whitespace edit injected into a clean Java file, the way CodRep 2019's tasks were made.

Recovering each `codrep2019/learning` base file by a vote over its copies and comparing it with each task
(7,999 tasks; validation's 1,000 agree within 2 points) shows five kinds of edit and no others:

    insert tab 32.4%   insert newline 31.9%   insert space 22.3%   delete newline 7.7%   delete space 5.7%

with these conventions: an inserted character goes right before the next token (the end of the gap); a
space is inserted only into an empty gap; a deleted space is a whole one-space gap; a deleted newline is
the only newline of its gap. The answer is the inserted character's offset or, for a deletion, the offset
of the character now standing where the deleted one was (the gap's next character, or the next token's
first when the gap became empty). An edit must leave the token texts as they were (deleting the space of
`int x` or the newline after a `//` comment would not be a formatting error).

The `any` mix is the project's earlier generator: insert, delete or replace a random whitespace character
at either end of any gap, answered the same way.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterator

from formats.codrep2019 import InjectedEdit
from parsing.java import tokenize
from parsing.languages import get_language
from parsing.tokens import TokenStream


@dataclass(frozen=True)
class EditKind:
    name: str
    applies: Callable[[str], bool]                 # may this kind edit a gap with this text?
    edit: Callable[[str], tuple[str, int]]         # gap -> (edited gap, 0-based answer position in it)


def _insert(char: str) -> Callable[[str], tuple[str, int]]:
    return lambda gap: (gap + char, len(gap))


def _delete_newline(gap: str) -> tuple[str, int]:
    at = gap.index("\n")
    return gap[:at] + gap[at + 1:], at


EDIT_KINDS: dict[str, EditKind] = {k.name: k for k in (
    EditKind("insert tab", lambda gap: True, _insert("\t")),
    EditKind("insert newline", lambda gap: True, _insert("\n")),
    EditKind("insert space", lambda gap: gap == "", _insert(" ")),
    EditKind("delete newline", lambda gap: gap.count("\n") == 1, _delete_newline),
    EditKind("delete space", lambda gap: gap == " ", lambda gap: ("", 0)),
)}

# CodRep 2019's mix (the percentages above), the default of bin/make-tasks.
CODREP2019_MIX: dict[str, float] = {"insert tab": 32.4, "insert newline": 31.9, "insert space": 22.3,
                                    "delete newline": 7.7, "delete space": 5.7}
MIXES = ("codrep2019", "any", "real")   # real: evaluation/real_edits.py


def quotas(count: int, mix: dict[str, float] = CODREP2019_MIX) -> dict[str, int]:
    """`count` tasks split over the kinds in proportion to `mix` (largest remainders)."""
    total = sum(mix.values())
    exact = {k: count * w / total for k, w in mix.items()}
    out = {k: int(v) for k, v in exact.items()}
    for k in sorted(mix, key=lambda k: (-(exact[k] - out[k]), k))[: count - sum(out.values())]:
        out[k] += 1
    return out


def apply(stream: TokenStream, gap: int, kind: str, edited_gap: str, answer_at: int) -> tuple[str, InjectedEdit]:
    """The edited text and its record, for gap `gap` rewritten to `edited_gap` with the answer at
    position `answer_at` of the edited gap (== its length: the next token's first character)."""
    text = stream.source
    original = stream.gap_texts[gap]
    lo = stream.gap_start(gap)
    new = text[:lo] + edited_gap + text[lo + len(original):]
    answer = lo + answer_at + 1
    added = edited_gap.count("\n") - original.count("\n")
    line = new.count("\n", 0, answer - 1) + 1
    return new, InjectedEdit(kind, answer, gap, lo + 1, original, edited_gap, line, added)


def keeps_tokens(stream: TokenStream, text: str, language: str = "java") -> bool:
    """Whether edited `text` has the tokens of `stream` (and, where gaps are syntax, Python's tokens too:
    no INDENT, DEDENT or NEWLINE made or lost)."""
    if language == "java":
        return tokenize(text).texts == stream.texts
    lang = get_language(language)
    if lang.tokenize(text).texts != stream.texts:
        return False
    return lang.same_syntax is None or lang.same_syntax(stream.source, text)


def candidates(stream: TokenStream, kind: str, rng: random.Random, language: str = "java"
               ) -> Iterator[tuple[str, InjectedEdit]]:
    """Every token-preserving edit of `kind` (a gap between two tokens), in random order."""
    spec = EDIT_KINDS[kind]
    gaps = [i for i in range(1, len(stream)) if spec.applies(stream.gap_texts[i])]
    rng.shuffle(gaps)
    for i in gaps:
        edited, at = spec.edit(stream.gap_texts[i])
        new, record = apply(stream, i, kind, edited, at)
        if keeps_tokens(stream, new, language):
            yield new, record


WHITESPACE = (" ", "\t", "\n")


def any_edit(stream: TokenStream, rng: random.Random, tries: int = 50, language: str = "java"
             ) -> tuple[str, InjectedEdit] | None:
    """The `any` mix: insert, delete or replace one whitespace character at either end of a random gap
    between two tokens. Edits that give the same text at either end get one answer: an inserted
    character is the last of its run; a character deleted from a uniform gap is answered by the gap's
    first remaining character."""
    n = len(stream)
    if n < 2:
        return None
    for _ in range(tries):
        i = rng.randrange(1, n)
        gap = stream.gap_texts[i]
        kind = rng.choice(("insert", "delete", "replace")) if gap else "insert"
        char = rng.choice(WHITESPACE)
        at_end = rng.random() < 0.5
        if kind == "insert":
            at_end = at_end or char + gap == gap + char
            edited, at = (gap + char, len(gap)) if at_end else (char + gap, 0)
        elif kind == "delete":
            at_end = at_end and gap[1:] != gap[:-1]
            edited, at = (gap[:-1], len(gap) - 1) if at_end else (gap[1:], 0)
        else:
            pos = len(gap) - 1 if at_end else 0
            if gap[pos] == char:
                continue
            edited, at = gap[:pos] + char + gap[pos + 1:], pos
        new, record = apply(stream, i, kind, edited, at)
        if keeps_tokens(stream, new, language):
            return new, record
    return None
