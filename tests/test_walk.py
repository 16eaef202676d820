"""The kind-units walk in C++ (ranker/walk.py, parsing/native.cpp's Leaves.units) against the Python walk it
stands for: tokenize, the scheme walk, the next newline gaps, joinable gaps and gaps after line comments."""
import random

import pytest
from conftest import data_path
from hypothesis import given, settings
from hypothesis import strategies as st

from parsing.java import tokenize
from parsing.schemes import SCHEMES
from parsing.units import covers, interned
from ranker.rank import after_line_comment, joinable_gaps, rank_text
from ranker.score import next_newline_gaps
from ranker.walk import walk_units

SCHEME = SCHEMES["kind-units"]


def reference(text: str) -> dict:
    """What the Python walk gives the ranker."""
    stream = tokenize(text)
    symbols, indents, unit = SCHEME.walk(stream)
    nxt = next_newline_gaps(stream)
    gaps = stream.gap_texts
    return dict(lo=[0, *stream.ends], hi=[*stream.starts, len(text)], symbols=symbols, gaps=list(gaps),
                keys=[(g, i, gaps[k] if k >= 0 else None, unit) for g, i, k in zip(gaps, indents, nxt)],
                next_newline=nxt, joinable=list(joinable_gaps(stream)), after_comment=list(after_line_comment(stream)),
                unit=unit)


def walked(text: str) -> dict | None:
    """The same from the C++ walk, its ids turned back into texts."""
    w = walk_units(text)
    if w is None:
        return None
    common = interned()
    keys = common.keys()
    return dict(lo=list(w.lo), hi=list(w.hi), symbols=[common.symbols[s] for s in w.symbols],
                gaps=list(common.gap_texts(w)), keys=[keys[k] for k in w.keys],
                next_newline=list(w.next_newline), joinable=list(w.joinable), after_comment=list(w.after_comment),
                unit=common.unit(w))


JAVADOC = "/**\n * Doc.\n */\n"
COVERED = {
    "empty": "",
    "only whitespace": " \n\t\r\n",
    "no trailing newline": "class A { int x; }",
    "4 spaces": "package p;\n\nclass A {\n    int x = 1;\n\n    void f() {\n        x++;\n    }\n}\n",
    "2 spaces": "class A {\n  int x;\n  void f() {\n    if (x > 1) {\n      x = 2;\n    }\n  }\n}\n",
    "3 spaces": "class A {\n   int x;\n   void f() {\n      x = 2;\n   }\n}\n",
    "8 spaces": "class A {\n" + "".join(f"        int x{i};\n" for i in range(25)) + "}\n",
    "tabs": "class A {\n\tint x;\n\t\tint y ;\n}\n",
    "tabs and spaces mixed": "class A {\n\t  int x;\n  \tint y;\n \t\n}\n",
    "trailing whitespace, blank lines with spaces": "class A {  \n    int x;\t\n    \n\n    int y;\n}\n",
    "crlf": "class A {\r\n    int x;\r\n}\r\n",
    "line comments ending in CRLF": "class A { // c\r\n    int x; // d\r\n}\r\n",
    "line comments ending in a lone CR": "class A { // c\r    int x; // d\r}\r",
    "mixed line endings": "class A {\r\n    int x;\n\r    int y;\r}\n",
    "javadoc and block comments": JAVADOC + "class A {\n    /* b\n       c */ int x;\n    /** d */\n    int y;\n}\n",
    "comment sets the indentation": "class A {\n    /*\n   x */ int y;\n  }\n",
    "text block": 'class A {\n    String s = """\n        hi  there\n        """;\n}\n',
    "char literals": "class A { char c = ' '; char d = '\\t'; }\n",
    "non-ascii identifiers": 'class Ä {\n    int größe = 1;\n    String 名前 = "日本";\n}\n',
    "non-ascii next to a one-space gap": "class A { int é = ü + 名; String s = \"é\" + \"ü\"; }\n",
    "astral plane": 'class A { String s = "𝄞𝄞"; int y; } // 😀 end\n',
    "form feed and vertical tab": "class A {\x0c int x;\x0b}\n",
    "operators that would join": "class A { int x = a - -b + +c; boolean y = a < = b; x = a / * b; f(a . . . b); }\n",
    "numbers and dots": "class A { double d = 1 . 5 + x . y + 1. + .5; }\n",
    "parse errors (leaves only)": "class A { int x = ; void }} \n",
    "unterminated comment": "class A { /* never closed\n int x;\n",
}
COVERED.update({   # junk is a leaf of tree-sitter's (an ERROR): no different from the other leaves here
    "skipped bytes": "class A { int x = ; void }} @@ ### \n",
    "non-ascii whitespace": "class\u00a0A {\u3000int x\u2028= 1; }\n",
    "a bom past the start": "class A {\ufeff}\n",
    "control characters": "class A { \"\x01\" int x; } \x1c \x00\n",
})
FALLBACK = {   # what the C++ walk leaves to Python: a BOM at the start, which tree-sitter skips (rank_text and
    # the learning pass take it off first)
    "bom": "\ufeffclass A { int x; }\n",
}


@pytest.mark.parametrize("name", COVERED)
def test_the_cpp_walk_equals_the_python_walk(name):
    got = walked(COVERED[name])
    assert got is not None, "the C++ walk should cover this file"
    assert got == reference(COVERED[name])


@pytest.mark.parametrize("name", FALLBACK)
def test_what_the_cpp_walk_does_not_cover_is_left_to_python(name):
    assert walk_units(FALLBACK[name]) is None


def test_the_walk_covers_only_the_kind_units_scheme():
    assert covers(SCHEMES["kind-units"])
    assert not any(covers(SCHEMES[name]) for name in ("kind", "text", "python"))


def _real_files(n: int) -> list[str]:
    paths = sorted(data_path("devsets", "jdk", "clean").glob("*.java"))
    paths += sorted(data_path("devsets", "jdk-tabs", "clean").glob("*.java"))
    paths += sorted(p for p in data_path("codrep2019", "validation").glob("*.txt") if p.name != "out.txt")
    return [p.read_text(encoding="utf-8") for p in random.Random(0).sample(paths, n)]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_real_files_walk_the_same_with_every_line_ending(ending):
    covered = 0
    for text in _real_files(40):
        text = text.replace("\n", ending)
        got = walked(text)
        if got is not None:
            covered += 1
            assert got == reference(text)
    assert covered >= 35


def test_rankings_are_the_same_through_either_walk(monkeypatch, tiny_model):
    from lm.model import LanguageModel
    from ranker import rank
    from ranker.score import Scorer
    scorer = Scorer(LanguageModel(tiny_model))
    assert scorer.scheme == "kind-units"
    texts = _real_files(12) + [COVERED["tabs"], COVERED["crlf"], COVERED["non-ascii next to a one-space gap"]]
    fast = [rank_text(scorer, SCHEME, t, "f") for t in texts]
    monkeypatch.setattr(rank, "covers", lambda scheme: False)
    for text, a in zip(texts, fast):
        b = rank_text(scorer, SCHEME, text, "f")
        assert (a.line(), list(a.scores), a.gap_texts, list(a.gap_starts)) == \
               (b.line(), list(b.scores), b.gap_texts, list(b.gap_starts))


PIECES = ["class", "A", "{", "}", "(", ")", ";", "int", "x", "=", "1", "1.", ".5", "+", "-", "<", ">", "/", "*",
          ".", ",", "\"s t\"", "'c'", "é", "名", "// c\n", "// d\r", "/* b\n */", "/** d */", "@Override",
          '"""\n  t\n  """', "return", "if"]
WHITESPACE = ["", " ", "  ", "\t", "\n", "\r\n", "\r", "\n    ", "\n\t\t", "\n  ", "\x0c", "\x0b", " \n\n\t ", "\n\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WHITESPACE), st.sampled_from(PIECES)), max_size=40),
       st.sampled_from(WHITESPACE))
def test_property_the_cpp_walk_equals_the_python_walk(parts, tail):
    text = "".join(w + p for w, p in parts) + tail
    got = walked(text)
    if got is not None:
        assert got == reference(text)


def _columns(w) -> list:
    return [list(getattr(w, f)) for f in ("lo", "hi", "symbols", "gaps", "keys", "next_newline", "joinable",
                                          "after_comment")] + [w.unit]


@pytest.mark.parametrize("name", ["4 spaces", "crlf", "non-ascii identifiers", "text block", "empty"])
def test_kept_leaves_walk_the_same_without_parsing_again(name):
    text = COVERED[name]
    kept = walk_units(text, keep=True)
    assert isinstance(kept.parsed, bytes) and walk_units(text).parsed is None
    assert _columns(walk_units(text, parsed=kept.parsed)) == _columns(kept)


@pytest.mark.parametrize("other", ["class A { int y; }\n", "class A { int x;  }\n", "class B { int x; }\n", ""])
def test_kept_leaves_of_another_text_are_not_used(other):
    kept = walk_units("class A { int x; }\n", keep=True).parsed
    assert _columns(walk_units(other, parsed=kept)) == _columns(walk_units(other))
    for broken in (kept[:-1], kept[:-3], kept[:-6], kept[:3], b"", b"\xff" * 40):   # cut or garbage: parsed again
        assert _columns(walk_units(other, parsed=broken)) == _columns(walk_units(other))
        assert (_columns(walk_units("class A { int x; }\n", parsed=broken))
                == _columns(walk_units("class A { int x; }\n")))
