"""Fuzzing (Hypothesis): random bytes, random Unicode and mutated Java, fed to the tokenizer and to bin/rank's
library entry point (formats.files.decode, then ranker.cli.rank_source): no exception but the documented
input error (InputError: not UTF-8, a NUL byte), the token stream reassembles the text whenever it decodes,
and a ranking lists every offset of the file once. The ranking runs on a real tiny model; the longer runs
are marked slow."""
import re

import pytest
from conftest import TINY_JAVA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.files import InputError, decode
from parsing.java import tokenize
from parsing.offsets import line_col

JAVA = list(TINY_JAVA.values())
NASTY = ["\r", "\r\n", "\n", "\t", " ", "\ufeff", "\x00", "\u2028", "\x0c", "\\u000a", "/*", "*/", "//", '"', "'",
         '"""', "{", "}", "(", ";", "é", "\U0001F600", "\ud7ff", "<", ">>>="]


@st.composite
def mutated_java(draw):
    """A tiny Java file with a few characters or snippets inserted, deleted or replaced."""
    text = draw(st.sampled_from(JAVA))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        what = draw(st.one_of(st.sampled_from(NASTY), st.text(max_size=3)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert":
            text = text[:at] + what + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 4)):]
        else:
            text = text[:at] + what + text[at + len(what):]
    return text


SOURCES = st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
                    mutated_java().map(lambda t: t.encode("utf-8", "surrogatepass")),
                    st.lists(st.sampled_from(NASTY + JAVA), max_size=12).map(lambda p: "".join(p).encode("utf-8")))


def decoded(data: bytes) -> str | None:
    """The text bin/rank would rank, or None when `data` is the documented input error."""
    try:
        text = decode(data, "fuzz.java")
    except InputError as e:
        assert re.match(r"fuzz\.java: (not UTF-8|binary file)", str(e))
        return None
    assert text.encode("utf-8") == data
    return text


@given(SOURCES)
@settings(max_examples=300, deadline=None)
def test_the_token_stream_reassembles_any_text(data):
    text = decoded(data)
    if text is None:
        return
    stream = tokenize(text)
    assert stream.reassemble() == text
    assert all(0 <= s < e <= len(text) for s, e in zip(stream.starts, stream.ends))
    assert all(stream.gap_text(i).isspace() or not stream.gap_text(i) for i in range(len(stream) + 1))


@pytest.fixture(scope="module")
def ranker(tmp_path_factory):
    from lm.build import BuildConfig, build
    from lm.kenlm_tools import KenlmError, tool
    from lm.model import LanguageModel
    from parsing.schemes import get_scheme
    from ranker.cli import RankConfig
    from ranker.score import Scorer
    try:
        tool("lmplz")
    except KenlmError as e:
        pytest.skip(str(e))
    root = tmp_path_factory.mktemp("fuzz")
    for name, text in TINY_JAVA.items():
        (root / name).write_text(text)
    model = root / "tiny.bin"
    build(BuildConfig((str(root),), order=4, output=model), progress=False)
    lm = LanguageModel(model)
    return Scorer(lm), get_scheme(lm.scheme), RankConfig(str(model))


def check_ranking(ranker, data: bytes, explain: bool) -> None:
    from dataclasses import replace

    from ranker.cli import rank_source
    scorer, scheme, cfg = ranker
    text = decoded(data)
    if text is None:
        return
    line, note = rank_source(text, "fuzz.java", replace(cfg, explain=explain), scorer, scheme)
    if explain:
        for finding in filter(None, line.split("\n")):
            path, lno, col, rest = finding.split(":", 3)
            assert path == "fuzz.java" and int(lno) >= 1 and int(col) >= 1
        return
    fields = line.split(" ")
    assert fields[0] == "fuzz.java"
    assert sorted(map(int, fields[1:])) == list(range(1, len(text) + 1))   # every offset once


@given(SOURCES, st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_rank_takes_any_bytes(ranker, data, explain):
    check_ranking(ranker, data, explain)


@pytest.mark.slow
@given(SOURCES, st.booleans())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_rank_takes_any_bytes_long(ranker, data, explain):
    check_ranking(ranker, data, explain)


@given(st.text(max_size=200), st.data())
@settings(max_examples=300, deadline=None)
def test_line_col_counts_as_an_editor(text, data):
    """Lines: LF, CRLF and a lone CR one break each; columns from 1; never past the line's end."""
    if not text:
        return
    offset = data.draw(st.integers(1, len(text)))
    line, col = line_col(text, offset)
    lines = re.split(r"\r\n|\r|\n", text)
    assert 1 <= line <= len(lines)
    assert 1 <= col <= len(lines[line - 1]) + 2   # the break itself is one column past the line (two for CRLF)
