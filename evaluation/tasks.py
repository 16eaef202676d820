"""Make CodRep-2019-style task folders from clean Java files: one injected whitespace edit per task.

The answer conventions are the competition's: an inserted or replaced character is the answer itself;
a deleted one is answered by the position where it was (the next token's first character when the gap
became empty, else the first remaining character of the gap). Edits land at a gap's first or last
character, where the shared data sets put them. Each folder also gets `truth.jsonl` (the original and
edited gap per task) so a repair suggestion can be checked for exactness.
"""
from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

from parsing.java import tokenize

WHITESPACE = (" ", "\t", "\n")
KINDS = ("insert", "delete", "replace")


class TaskFolderError(ValueError):
    pass


@dataclass(frozen=True)
class InjectedEdit:
    kind: str          # insert / delete / replace
    answer: int        # 1-based character offset, the task's answer
    gap_start: int     # 1-based offset of the gap in the edited file
    original: str      # the gap before the edit
    edited: str        # the gap after it


def inject(text: str, rng: random.Random, tries: int = 50) -> tuple[str, InjectedEdit] | None:
    """Apply one random whitespace edit that keeps the tokens intact; None if no such edit is found."""
    stream = tokenize(text)
    n = len(stream)
    if n < 2:
        return None
    tokens = [stream.token_text(i) for i in range(n)]
    for _ in range(tries):
        i = rng.randrange(1, n)      # a gap between two tokens
        gap = stream.gap_text(i)
        lo = stream.gap_start(i)
        hi = lo + len(gap)
        kind = rng.choice(KINDS) if gap else "insert"
        char = rng.choice(WHITESPACE)
        at_end = rng.random() < 0.5
        # Edits that give the same text at either end of the gap get one canonical answer, the
        # competition's: an inserted character is the last of its run; a character deleted from a
        # uniform gap is answered by the gap's first remaining character.
        if kind == "insert":
            at_end = at_end or char + gap == gap + char
            edited = gap + char if at_end else char + gap
            answer = (hi if at_end else lo) + 1
        elif kind == "delete":
            at_end = at_end and gap[1:] != gap[:-1]
            edited = gap[:-1] if at_end else gap[1:]
            answer = hi if at_end else lo + 1
        else:
            pos = len(gap) - 1 if at_end else 0
            if gap[pos] == char:
                continue
            edited = gap[:pos] + char + gap[pos + 1:]
            answer = lo + pos + 1
        new_text = text[:lo] + edited + text[hi:]
        new_stream = tokenize(new_text)
        if [new_stream.token_text(j) for j in range(len(new_stream))] != tokens:
            continue     # the edit merged or split tokens: not a formatting error
        return new_text, InjectedEdit(kind, answer, lo + 1, gap, edited)
    return None


def make_tasks(texts: list[tuple[str, str]], out: Path, count: int | None, seed: int, force: bool = False) -> int:
    """Write `count` tasks (default: one per file) into `out`; returns how many were written."""
    if out.exists() and any(out.iterdir()) and not force:
        raise TaskFolderError(f"{out}: folder exists and is not empty (use --force to overwrite its tasks)")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    order = list(range(len(texts)))
    rng.shuffle(order)
    count = len(texts) if count is None else count
    answers, truth = [], []
    k = 0
    while len(answers) < count and k < 20 * max(count, 1):
        name, text = texts[order[k % len(order)]]
        k += 1
        made = inject(text, rng)
        if made is None:
            continue
        new_text, edit = made
        (out / f"{len(answers)}.txt").write_text(new_text, encoding="utf-8", newline="")
        answers.append(edit.answer)
        truth.append({"task": f"{len(answers) - 1}.txt", "source": name, **asdict(edit)})
    (out / "out.txt").write_text("".join(f"{a}\n" for a in answers))
    (out / "truth.jsonl").write_text("".join(json.dumps(t) + "\n" for t in truth))
    return len(answers)
