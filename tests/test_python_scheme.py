"""The Python tokenizer (tree-sitter-python) and the `python` token scheme: lossless streams, symbols KenLM
can take, indentation in blocks, and the incremental layout agreeing with the whole-file walk."""
import glob

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsing.languages import get_language, language_of
from parsing.python_scheme import PythonLayout
from parsing.schemes import RESERVED, get_scheme

PY = get_scheme("python")

SAMPLE = '''import os  # trailing comment
# a comment line


def f(a, b=1):
    """Doc.

    More."""
    if a and \\
            b:
        return [
            1, 2]
    print(f"{a!r}")


class C:
    pass
'''


def test_scheme_is_registered_for_python():
    assert PY.language == "python"
    assert language_of("x/y.py").name == "python" and language_of("a.zip!p/A.java").name == "java"
    assert language_of("notes.txt") is None


def test_stream_is_lossless_and_strings_comments_whole():
    stream = PY.tokenize(SAMPLE)
    assert stream.reassemble() == SAMPLE
    texts = [stream.token_text(i) for i in range(len(stream))]
    assert '"""Doc.\n\n    More."""' in texts and 'f"{a!r}"' in texts and "# trailing comment" in texts


def test_symbols_say_indentation_in_blocks():
    symbols = PY.symbols(PY.tokenize(SAMPLE))
    text = " ".join(symbols)
    assert all(s and not any(c.isspace() for c in s) and s not in RESERVED for s in symbols)
    assert "def ·s1 f · ( · a · , ·s1 b · = · NUM · ) · : ·n1> MLSTR ·n1= if" in text
    assert "BACKSLASH ·s12 b · : ·n1> return ·s1 [ ·c1+s4 NUM" in text   # continuation, in characters
    assert "] ·n1<1 print" in text and "STR · ) ·n3<1 class" in text       # DEDENTs counted
    assert symbols[0] == "·" and symbols[-1] == "·n1<1"


@pytest.mark.parametrize("unit", ["  ", "    ", "\t"])
def test_indent_width_does_not_change_symbols(unit):
    text = f"def f():\n{unit}if x:\n{unit * 2}y()\n{unit}return 1\n"
    assert PY.symbols(PY.tokenize(text)) == PY.symbols(PY.tokenize(text.replace(unit, "    ")))


@pytest.mark.parametrize("gap, stack, symbol, after", [
    (" ", ("",), "·s1", ("",)),
    ("\n", ("",), "·n1=", ("",)),
    ("\n    ", ("",), "·n1>", ("", "    ")),
    ("\n\n", ("", "    ", "        "), "·n2<2", ("",)),
    ("\n  ", ("", "    "), "·n1@s2", ("", "  ")),      # matches no open block
    ("  \r\n\t", ("",), "·s2|n1r>", ("", "\t")),
])
def test_layout_gap_symbols(gap, stack, symbol, after):
    layout = PythonLayout(stack)
    assert layout.gap(gap) == symbol
    assert tuple(layout.stack) == after


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["x = 1", "if x:", "    y(a,", "        b)", "  z", "\tw", "", "# c", "pass"]),
                max_size=12))
def test_python_streams_are_lossless(lines):
    text = "\n".join(lines) + "\n"
    stream = PY.tokenize(text)
    assert stream.reassemble() == text
    symbols = PY.symbols(stream)
    assert len(symbols) == 2 * len(stream) + 1
    assert all(s and not any(c.isspace() for c in s) and s not in RESERVED for s in symbols)


def test_stdlib_files_are_lossless():
    files = sorted(glob.glob("/usr/lib/python3*/json/*.py"))
    if not files:
        pytest.skip("no Python standard library under /usr/lib/python3*/")
    python = get_language("python")
    for path in files:
        text = open(path, encoding="utf-8", newline="").read()
        assert python.tokenize(text).reassemble() == text, path
