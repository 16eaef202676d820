import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from parsing.java import leaves, same_tokens, tokenize
from parsing.lossless import check_stream
from parsing.offsets import byte_to_char
from parsing.schemes import GAP_MARK, RESERVED, SCHEMES, UnknownScheme, gap_symbol, get_scheme

TRICKY = {
    "non-ascii identifiers": 'class Ä {\n    int größe = 1;\n    String 名前 = "日本";\n}\n',
    "non-ascii strings and comments": '// café ☕\nclass A { String s = "naïve — ok"; /* ü */ int x; }\n',
    "astral plane": 'class A { String s = "𝄞𝄞"; int y; } // 😀 end\n',
    "crlf": "class A {\r\n    int x;\r\n}\r\n",
    "line comments ending in CRLF": "class A { // c\r\n    int x; // d\r\n}\r\n",
    "line comments ending in a lone CR": "class A { // c\r    int x; // d\r}\r",
    "tabs": "class A {\n\tint x;\n\t\tint y ;\n}\n",
    "bom": "\ufeffclass A { int x; }\n",
    "no trailing newline": "class A { int x; }",
    "text block": 'class A {\n    String s = """\n        hi  there\n        """;\n}\n',
    "char literals": "class A { char c = ' '; char d = '\\t'; }\n",
    "parse errors": "class A { int x = ; void }} @@ ### \n",
    "unterminated comment": "class A { /* never closed\n int x;\n",
    "form feed": "class A {\x0c int x;\x0b}\n",
    "empty": "",
    "only whitespace": " \n\t\r\n",
    "nbsp": "class\u00a0A {}\n",
}


@pytest.mark.parametrize("name", TRICKY)
def test_tricky_files_are_lossless_with_exact_spans(name):
    stream = tokenize(TRICKY[name])
    assert check_stream(stream) is None
    assert stream.reassemble() == TRICKY[name]


@pytest.mark.parametrize("text, token, expected_start", [
    ('class Ä { int größe; }', "größe", 15),
    ('class A { String s = "日本"; int y; }', "y", 32),
    ('class A { String s = "𝄞"; int y; }', "y", 31),   # one character, four bytes
    ("\ufeffclass A {}", "A", 8),                          # the BOM is character 1
    ("class A {\r\n int y;\r\n}", "y", 17),                # CRLF stays two characters
    ("class A {\n\tint y;}", "y", 16),
])
def test_offsets_are_1_based_characters_not_bytes(text, token, expected_start):
    toks = {t.text: t for t in tokenize(text).tokens}
    assert toks[token].start == expected_start
    assert text[expected_start - 1:expected_start - 1 + len(token)] == token


@pytest.mark.parametrize("text", ["abc", "aé日𝄞b", "", "\ufeffx"])
def test_byte_to_char_maps_every_character_start(text):
    data = text.encode("utf-8")
    to_char = byte_to_char(data, text)
    b = 0
    for i, ch in enumerate(text):
        assert to_char(b) == i
        b += len(ch.encode("utf-8"))
    assert to_char(len(data)) == len(text)


def test_comments_strings_and_text_blocks_are_whole_tokens():
    stream = tokenize(TRICKY["text block"] + '/** doc */ // line\nclass B { char c = \'x\'; String t = "a b"; }')
    texts = [t.text for t in stream.tokens]
    assert '"""\n        hi  there\n        """' in texts
    assert "/** doc */" in texts and "// line" in texts and "'x'" in texts and '"a b"' in texts


def test_error_nodes_and_bom_become_tokens():
    kinds = [t.kind for t in tokenize(TRICKY["parse errors"]).tokens]
    assert "ERROR" in kinds or "error" in kinds
    assert tokenize(TRICKY["bom"]).tokens[0].kind == "bom"


JAVA_PIECES = ["class", "A", "{", "}", "(", ")", ";", "int", "x", "=", "1", "+", "\"s t\"", "'c'",
               "// c\n", "/* b */", "/** d */", "@Override", "<", ">", ",", ".", "return", "if"]
WHITESPACE = ["", " ", "  ", "\t", "\n", "\r\n", "\n    ", "\x0c", "\n\n\t"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(JAVA_PIECES), st.sampled_from(WHITESPACE), st.text(max_size=4)),
                max_size=40))
def test_property_random_mixtures_are_lossless(pieces):
    text = "".join(pieces)
    stream = tokenize(text)
    assert check_stream(stream) is None


@pytest.mark.parametrize("name", TRICKY)
def test_c_leaf_walk_equals_the_python_reference_on_tricky_files(name):
    import reference_leaves
    data = TRICKY[name].encode("utf-8")
    assert leaves(data) == reference_leaves.leaves(data)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(JAVA_PIECES), st.sampled_from(WHITESPACE), st.text(max_size=4)),
                max_size=60), st.binary(max_size=8))
def test_property_c_leaf_walk_equals_the_python_reference(pieces, junk):
    """parsing/native.cpp walks tree-sitter's tree in C; the plain cursor walk it replaced is the reference,
    on random Java-ish text and on bytes that are not UTF-8."""
    import reference_leaves
    for data in ("".join(pieces).encode("utf-8"), "".join(pieces[:3]).encode("utf-8") + junk):
        assert leaves(data) == reference_leaves.leaves(data)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(JAVA_PIECES), st.sampled_from(WHITESPACE), st.text(max_size=4)),
                max_size=40),
       st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 3),
                          st.sampled_from(["", " ", "\n", "\r", "\r\n", "\t", "x", "\u00a0", "*/"])),
                min_size=1, max_size=4))
# a line break inside a token (junk, a comment) turned from LF into CR: the same leaves as LF, not the same text
@example(pieces=["int", "000\x1f", "\n\n\t", "\x1f"], edits=[(1231, 1, "\r")])
@example(pieces=["/* a", "\n", " b */", "\r\n", "class"], edits=[(4, 1, "\r")])
def test_property_same_tokens_is_what_tokenizing_both_says(pieces, edits):
    """same_tokens reparses the edited text incrementally from the original's tree (kept between calls on
    one text) and compares leaves; tokenizing both texts from scratch is the reference, on random Java-ish
    text, valid or not, for edits of gaps and of tokens alike."""
    text = "".join(pieces)
    before = tokenize(text).token_texts()
    for at, length, replacement in edits:
        at %= len(text) + 1
        end = min(len(text), at + length)
        edited = text[:at] + replacement + text[end:]
        assert same_tokens(text, at, end, replacement) == (tokenize(edited).token_texts() == before)


@pytest.mark.parametrize("name", TRICKY)
def test_same_tokens_on_tricky_files(name):
    text = TRICKY[name]
    stream = tokenize(text)
    for i in range(len(stream) + 1):   # every gap emptied, and given one more space
        lo, gap = stream.gap_start(i), stream.gap_text(i)
        for replacement in ("", gap + " "):
            edited = text[:lo] + replacement + text[lo + len(gap):]
            assert same_tokens(text, lo, lo + len(gap), replacement) == \
                (tokenize(edited).token_texts() == stream.token_texts())


@pytest.mark.parametrize("gap, indent, symbol", [
    ("", "", "·"),
    (" ", "", "·s1"),
    ("\t\t", "    ", "·t2"),
    (" \t", "", "·s1t1"),
    ("\n    ", "    ", "·n1="),
    ("\n        ", "    ", "·n1+s4"),
    ("\n", "    ", "·n1-s4"),
    ("\n\n    ", "", "·n2+s4"),
    ("  \n    ", "    ", "·s2|n1="),
    ("\r\n\t", "", "·n1+t1"),                  # a line break is one, LF, CRLF or CR
    ("\r\t", "", "·n1+t1"),
    ("  \r\n\r\n", "", "·s2|n2="),
    ("\n  \n", "", "·n2w="),
    ("\n\t", "    ", "·n1@t1"),
    ("\x0c", "", "·f1"),
])
def test_gap_symbols(gap, indent, symbol):
    assert gap_symbol(gap, indent) == symbol


@pytest.mark.parametrize("gap, indent, unit, symbol", [
    ("\n        ", "    ", "    ", "·n1+1"),          # one level of a 4-space file ...
    ("\n\t\t", "\t", "\t", "·n1+1"),               # ... of a tab-indented one ...
    ("\n    ", "  ", "  ", "·n1+1"),                 # ... and of a 2-space one: the same symbol
    ("\n", "\t\t", "\t", "·n1-2"),
    ("\n    ", "    ", "    ", "·n1="),
    ("\n\n\t\t   ", "\t", "\t", "·n2+1r3"),         # alignment past whole levels
    ("\n    ", "     ", "    ", "·n1+0f1"),          # after a Javadoc's ' */'
    ("  \n  \n    ", "    ", "    ", "·n2="),        # trailing and blank-line whitespace: not in the symbol
    ("\n    \t", "    ", "    ", "·n1+1"),           # a tab in a space file: its columns (habits score the mix)
    ("\n  \t", "\t", "\t", "·n1="),                 # spaces then a tab reach the same column as one tab
    ("\r\n\t", "", "\t", "·n1+1"),
    ("\r\t", "", "\t", "·n1+1"),
    (" ", "\t", "\t", "·s1"),                        # within a line: the whitespace itself
])
def test_gap_symbols_in_units(gap, indent, unit, symbol):
    assert gap_symbol(gap, indent, unit) == symbol


def test_kind_units_writes_the_same_symbols_for_every_indentation_unit():
    from parsing.style import SPACES, TAB, reindent
    text = ("class A {\n    /**\n     * doc\n     */\n    void f() {\n        if (x) {\n            g(a,\n"
            "                    b);\n        }\n    }\n}\n")
    scheme = get_scheme("kind-units")
    symbols = scheme.symbols(tokenize(text))
    for unit in (TAB, SPACES[2]):
        assert scheme.symbols(tokenize(reindent(tokenize(text), SPACES[4], unit))) == symbols


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
@pytest.mark.parametrize("name", TRICKY)
def test_symbols_alternate_and_are_kenlm_safe(scheme, name):
    stream = tokenize(TRICKY[name])
    syms = get_scheme(scheme).symbols(stream)
    assert len(syms) == 2 * len(stream) + 1
    for i, s in enumerate(syms):
        assert s and not any(c.isspace() for c in s) and s not in RESERVED
        assert s.startswith(GAP_MARK) == (i % 2 == 0)


def test_schemes_abstract_identifiers_only_in_kind():
    stream = tokenize('class Foo { int bar = 42; String s = "x"; }')
    assert get_scheme("kind").token_symbols(stream) == \
        ["class", "ID", "{", "int", "ID", "=", "NUM", ";", "TYPE", "ID", "=", "STR", ";", "}"]
    assert get_scheme("text").token_symbols(stream) == \
        ["class", "Foo", "{", "int", "bar", "=", "NUM", ";", "String", "s", "=", "STR", ";", "}"]


def test_indentation_is_tracked_through_multiline_tokens():
    stream = tokenize("class A {\n    /* a\n       b */ int x;\n}")
    indents = get_scheme("kind-units").walk(stream)[1]
    # the gap after the comment starts on the comment's last line, indented 7 spaces
    i = [t.text for t in stream.tokens].index("int")
    assert indents[i] == "       "


def test_unknown_scheme_is_an_error():
    with pytest.raises(UnknownScheme, match="unknown token scheme 'nope'"):
        get_scheme("nope")


@pytest.mark.data
@pytest.mark.parametrize("folder, pattern, limit", [
    (("codrep2019", "validation"), "*.txt", None),
    (("codrep2019", "learning"), "*.txt", 300),
    (("codrep2018", "Dataset1", "Tasks"), "*.txt", 200),
])
def test_shared_files_are_lossless(folder, pattern, limit):
    from conftest import data_path

    from formats.codrep2018 import task_body as codrep2018_body
    files = sorted(p for p in data_path(*folder).glob(pattern) if p.name != "out.txt")[:limit]
    assert files
    for p in files:
        data = p.read_bytes()
        text = (codrep2018_body(data) if "codrep2018" in folder else data).decode("utf-8")
        assert check_stream(tokenize(text)) is None, p


@pytest.mark.parametrize("text", ["class A {\r  // c\r  int x;\r}\r", "class A {\r\n  // c\r\n  int x;\r\n}\r\n"])
def test_a_line_comment_ends_at_any_line_break(text):
    """Java ends a line at CR, CRLF or LF; tree-sitter-java at LF only: a comment must not swallow the code
    after a lone CR, nor keep the CR of a CRLF (the line break is the gap's)."""
    stream = tokenize(text)
    assert [stream.token_text(i) for i in range(len(stream))] == ["class", "A", "{", "// c", "int", "x", ";", "}"]
    assert stream.reassemble() == text


@pytest.mark.parametrize("package", ["tree_sitter_java", "tree_sitter_python"])
def test_grammar_language_is_the_grammar_packages_own(package):
    """Loaded from the compiled binding alone (no package __init__ at start-up), it is the package's `language`."""
    import importlib

    from parsing.grammar import grammar_language
    language = grammar_language(package)
    assert language is importlib.import_module(package).language
    assert language() is not None


def test_grammar_language_of_a_missing_package_says_so():
    from parsing.grammar import grammar_language
    with pytest.raises(ModuleNotFoundError, match="tree_sitter_no_such_grammar"):
        grammar_language("tree_sitter_no_such_grammar")


@pytest.mark.parametrize("text, head, last", [
    ("\n    ", "\n", "    "), ("  \n\n\t", "  \n\n", "\t"), ("\r\n  ", "\r\n", "  "), ("\r  ", "\r", "  "),
    (" ", "", " "), ("", "", ""), ("\n", "\n", ""),
])
def test_a_gap_splits_at_its_last_line_break(text, head, last):
    from parsing.offsets import last_line, split_last_line
    assert split_last_line(text) == (head, last) and last_line(text) == last


@given(st.text(alphabet=" \t\r\nx"))
def test_a_split_gap_joins_back(text):
    from parsing.offsets import has_line_break, split_last_line
    head, last = split_last_line(text)
    assert head + last == text and not has_line_break(last) and (head == "" or head[-1] in "\r\n")
