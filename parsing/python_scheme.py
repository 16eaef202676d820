"""The `python` token scheme: Python's indentation is syntax, so its gaps say it in levels.

Tokens (parsing.python): identifier text kept, as in `text`; numbers NUM, strings STR (triple-quoted ones,
mostly docstrings, MLSTR), comments COMMENT, a backslash continuation BACKSLASH; keywords and operators
are their text.

Gaps are written as in `parsing.schemes` (`·` empty, `·s1` one space, trailing whitespace before `|`, `n<k>`
newlines, `r`/`w` flags), except where a newline starts a new logical line (outside brackets). There the
indentation is said the way Python's tokenizer sees it, against the stack of open blocks:

    ·n1=     same block            ·n1>    one block deeper (an INDENT, whatever its width)
    ·n2<2    blank line, then two blocks closed (two DEDENTs)
    ·n1@s3   an indentation that matches no open block (inconsistent; the stack is reset to it)

so a 2-space file and a 4-space or tab file look alike to the model. A newline inside brackets is a
continuation line, `·c1+s4` (`c` instead of `n`, indentation relative to the logical line's, in characters).
"""
from __future__ import annotations

from .symbols import GAP_MARK, gap_symbol, newline_parts, run_code, safe_symbol
from .tokens import TokenStream

OPEN, CLOSE = frozenset("([{"), frozenset(")]}")
LITERALS = {"integer": "NUM", "float": "NUM", "comment": "COMMENT", "ERROR": "ERR", "error": "ERR",
            "bom": "BOM", "line_continuation": "BACKSLASH"}
_TRIPLE = ('"""', "'''")


def token_symbol(kind: str, text: str) -> str:
    if kind == "identifier":
        return safe_symbol(text, "ID")
    if kind == "string":
        body = text.lstrip("rRbBuUfF")   # string prefixes
        return "MLSTR" if body.startswith(_TRIPLE) else "STR"
    sym = LITERALS.get(kind)
    return sym if sym is not None else safe_symbol(text, kind.upper())


def kind_symbol(kind: str, text: str) -> str:
    """`token_symbol` with identifiers abstracted to ID (the `python-kind` scheme: whitespace is told by the
    kinds around it, not by the names)."""
    return "ID" if kind == "identifier" else token_symbol(kind, text)


class PythonLayout:
    """The indentation stack and bracket depth, fed gap and token by gap and token (the scheme's walk, and
    the fill-in-the-middle scorer that joins lines lexed one by one)."""
    __slots__ = ("stack", "depth", "continuation")

    def __init__(self, stack: tuple[str, ...] = ("",), depth: int = 0, continuation: str = "c"):
        self.stack = list(stack)
        self.depth = depth
        self.continuation = continuation   # the letter of a continuation line's newlines ('n': as Java's)

    def copy(self) -> "PythonLayout":
        return PythonLayout(tuple(self.stack), self.depth, self.continuation)

    @property
    def indent(self) -> str:
        return self.stack[-1]

    def gap(self, gap: str) -> str:
        """The symbol of whitespace `gap`, updating the stack when it starts a logical line."""
        if "\n" not in gap:
            return GAP_MARK + run_code(gap)
        top = self.stack[-1]
        if self.depth > 0:   # a continuation line: characters relative to the logical line, as Java's
            return gap_symbol(gap, top).replace("n", self.continuation, 1)   # (the first 'n': the newline count's)
        head, newlines, flags, last = newline_parts(gap)
        if last == top:
            shape = "="
        elif last.startswith(top):
            self.stack.append(last)
            shape = ">"
        elif last in self.stack:
            closed = len(self.stack) - 1 - self.stack.index(last)
            del self.stack[len(self.stack) - closed:]
            shape = f"<{closed}"
        else:
            while len(self.stack) > 1 and not last.startswith(self.stack[-1]):
                self.stack.pop()
            if last != self.stack[-1]:
                self.stack.append(last)
            shape = "@" + run_code(last)
        return f"{GAP_MARK}{head}n{newlines}{flags}{shape}"

    def token(self, kind: str, text: str) -> None:
        if kind in OPEN:
            self.depth += 1
        elif kind in CLOSE and self.depth:
            self.depth -= 1


def kind_walk(stream: TokenStream, token_symbol=kind_symbol) -> tuple[list[str], list[str]]:
    """`walk` for the python-kind scheme: a continuation line's gap is written as the ranker's repairs write
    it (parsing.symbols.gap_symbol against the logical line's indentation, `n`), so that a line joined or
    broken inside brackets is repaired in the model's own symbols."""
    return walk(stream, token_symbol, "n")


def walk(stream: TokenStream, token_symbol=token_symbol, continuation: str = "c") -> tuple[list[str], list[str]]:
    """(symbols, indentation of the logical line each gap starts in): gap, token, gap, ... gap."""
    layout = PythonLayout(continuation=continuation)
    gaps = stream.gap_texts
    src = stream.source
    out, indents = [], []
    for i, (kind, s, e) in enumerate(zip(stream.kinds, stream.starts, stream.ends)):
        indents.append(layout.indent)
        out.append(layout.gap(gaps[i]))
        text = src[s:e]
        out.append(token_symbol(kind, text))
        layout.token(kind, text)
    indents.append(layout.indent)
    out.append(layout.gap(gaps[-1]))
    return out, indents
