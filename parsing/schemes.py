"""Token schemes: a TokenStream -> the symbol sequence fed to KenLM, alternating gap and token symbols.

    symbols = [gap(0), tok(0), gap(1), tok(1), ..., tok(n-1), gap(n)]     (2n+1 symbols)

so symbol 2i is the gap before token i and 2i+1 is token i. No symbol contains whitespace or is one of
KenLM's reserved words. Gap symbols start with GAP_MARK, which no Java token can start with:

    ·          empty gap                     ·s1      one space          ·t2   two tabs

A gap holding line breaks is told relative to the indentation of the "current line", the line the gap
starts on (tracked across tokens, multi-line comments and text blocks included), in one of two ways:

- in units (the `kind-units` scheme, the default): the indentation of both lines measured in columns
  (tabs to stops of 4) and cut into levels of the file's own unit (a tab, or the 2, 3, 4 or 8 spaces it
  steps by; parsing.style), so a tab-indented project and a 2- or 4-space one write the same symbols:

      ·n1+1      newline, one level deeper    ·n2-2     blank line, then two levels shallower
      ·n1=       newline, same indentation    ·n1+2r3   two levels and 3 columns deeper
      ·n1-1f1    one level shallower than a line that had 1 column past its levels (after ' */')

  What trails the old line, whitespace on blank lines and tabs mixed with spaces are not in the symbol:
  they vary from project to project, and the ranker scores them by the project's own rates of them
  (ranker/habits.py).
- as whitespace runs (`kind`, `text`): the new line's indentation against the current line's, and all
  the whitespace:

      ·s1|n1=    trailing space, newline, same indentation as the current line
      ·n2+s4     blank line, then indented 4 spaces deeper than the current line
      ·n1-t1     newline, one tab shallower   ·n1@s3    newline, indentation unrelated to the current one
      w          after n<k>: blank lines holding whitespace

A line break is one, whatever its characters (LF, CRLF or a lone CR, as Java has it): a file's gaps are
written as if its line breaks were LF, so that a CRLF file is scored on its own terms and an LF file's
symbols are what they always were (the file's line-ending style is a whitespace habit, ranker/habits.py).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from .offsets import last_line
from .style import detect_indentation

# the gap symbols, also importable from here as they always were
from .symbols import GAP_MARK, RESERVED, gap_symbol, newline_parts, safe_symbol  # noqa: F401
from .tokens import TokenStream

# Named leaves abstracted to their kind by every scheme (literals, comments, junk).
LITERAL_SYMBOLS = {
    "decimal_integer_literal": "NUM", "hex_integer_literal": "NUM", "octal_integer_literal": "NUM",
    "binary_integer_literal": "NUM", "decimal_floating_point_literal": "NUM",
    "hex_floating_point_literal": "NUM", "string_literal": "STR", "text_block": "TEXTBLOCK",
    "character_literal": "CHAR", "line_comment": "LINECOMMENT", "block_comment": "BLOCKCOMMENT",
    "ERROR": "ERR", "error": "ERR", "bom": "BOM",
}
IDENTIFIER_SYMBOLS = {"identifier": "ID", "type_identifier": "TYPE"}

@dataclass(frozen=True)
class Scheme:
    name: str
    description: str
    token_symbol: Callable[[str, str], str]   # (kind, text) -> symbol
    indentation: str = "width"   # 'width': gaps as whitespace runs; 'units': in levels of the file's unit
    language: str = "java"                     # parsing.languages: which tokenizer reads its files
    walker: Callable | None = None             # (stream, token_symbol) -> (symbols, indents); default `walk`

    @property
    def units(self) -> bool:
        return self.indentation == "units"

    def unit(self, stream: TokenStream) -> str | None:
        """The file's indentation unit, when gap symbols count in it (else None)."""
        return detect_indentation(stream).unit if self.units else None

    def symbols(self, stream: TokenStream) -> list[str]:
        return self.walk(stream)[0]

    def walk(self, stream: TokenStream) -> tuple[list[str], list[str], str | None]:
        """(symbols, indentation of each gap's line, the file's unit or None): see `walk`."""
        if self.walker is not None:
            return (*self.walker(stream, self.token_symbol), None)
        unit = self.unit(stream)
        return (*walk(stream, self.token_symbol, unit), unit)

    def tokenize(self, text: str) -> TokenStream:
        """`text` in the scheme's language as a token stream."""
        from .languages import get_language
        return get_language(self.language).tokenize(text)

    def token_symbols(self, stream: TokenStream) -> list[str]:
        return list(map(self.token_symbol, stream.kinds, stream.texts))


def walk(stream: TokenStream, token_symbol, unit: str | None = None) -> tuple[list[str], list[str]]:
    """The alternating gap/token symbol sequence, and the indentation each gap is measured against: the
    last line of the latest gap holding a newline, or the leading whitespace of a multi-line token's
    last line. The hot path of corpus building and ranking: list-at-a-time, no loop over tokens in Python
    but where a line ends."""
    gaps = stream.gap_texts
    texts = stream.texts
    # what sets the indentation, in stream order (gap i is at 2i, token i at 2i + 1)
    events, levels = [0], [""]
    for i, indent in stream.line_gaps:
        events.append(2 * i + 1)   # in effect from the token after it
        levels.append(indent)
    for i in stream.line_tokens:
        line = last_line(texts[i])
        events.append(2 * i + 2)
        levels.append(line[: len(line) - len(line.lstrip(" \t\f"))])
    indents = [""] * len(gaps)
    if len(events) > 1:
        order = sorted(range(len(events)), key=events.__getitem__)
        # gap i (at 2i) is measured against the last event at or before it: event e holds from gap ceil(e / 2)
        starts_at = [(events[o] + 1) // 2 for o in order] + [len(gaps)]
        for j, o in enumerate(order):
            a, b = starts_at[j], starts_at[j + 1]
            if b > a:
                indents[a:b] = [levels[o]] * (b - a)
    out = [None] * (2 * len(texts) + 1)
    out[0::2] = map(gap_symbol, gaps, indents, [unit] * len(gaps))
    out[1::2] = map(token_symbol, stream.kinds, texts)
    return out, indents


@lru_cache(maxsize=1 << 16)
def kind_symbol(kind: str, text: str) -> str:
    sym = LITERAL_SYMBOLS.get(kind) or IDENTIFIER_SYMBOLS.get(kind)
    if sym is not None:
        if sym == "BLOCKCOMMENT" and text.startswith("/**"):
            return "JAVADOC"
        return sym
    return safe_symbol(text, kind.upper())


@lru_cache(maxsize=1 << 18)
def _text_symbol(kind: str, text: str) -> str:
    if kind in IDENTIFIER_SYMBOLS:
        return safe_symbol(text, IDENTIFIER_SYMBOLS[kind])
    return kind_symbol(kind, text)


DEFAULT_SCHEME = "kind-units"
SCHEMES: dict[str, Scheme] = {
    "kind-units": Scheme("kind-units", "identifiers and literals abstracted to their kind, indentation in the "
                         "file's own units (default)", kind_symbol, "units"),
    "kind": Scheme("kind", "identifiers and literals abstracted to their kind, gaps as whitespace runs",
                   kind_symbol),
    "text": Scheme("text", "identifier text kept, literals abstracted to their kind, gaps as whitespace runs",
                   _text_symbol),
}


class UnknownScheme(ValueError):
    pass


def get_scheme(name: str) -> Scheme:
    try:
        return SCHEMES[name]
    except KeyError:
        raise UnknownScheme(f"unknown token scheme '{name}' (known: {', '.join(sorted(SCHEMES))})") from None


# The schemes of the other languages, each defined by its language module (parsing.languages): Python's (its
# layout of indentation blocks, parsing.python_scheme), C's and C++'s (in units, as kind-units), on the same
# gap symbols
from .languages import LANGUAGES as _LANGUAGES  # noqa: E402

for _language in _LANGUAGES.values():
    for _name, _description, _symbol, _walker in _language.own_schemes:
        SCHEMES[_name] = Scheme(_name, _description, _symbol, "width" if _walker is not None else "units",
                                _language.name, _walker)


def scheme_of_language(name: str) -> Scheme:
    """The default scheme of a language's models."""
    from .languages import get_language
    return get_scheme(get_language(name).scheme)
