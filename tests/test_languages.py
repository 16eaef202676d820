"""One module per language (parsing.languages): C and C++ streams lossless on fixed fixtures and real files,
suffixes and the `.h` rule, Python's syntax gaps never changed by an edit judged the same, and every language's
scheme writing symbols KenLM can take."""
import glob
from pathlib import Path

import pytest

from parsing.languages import LANGUAGES, MODULES, get_language, header_language, language_of
from parsing.lossless import check_stream
from parsing.python import python_tokens, same_syntax, syntax_gaps
from parsing.schemes import RESERVED, get_scheme

C_SAMPLE = """#include <stdio.h>\r
#define MAX(a, b) ((a) > (b) ? \\
    (a) : (b))
/** doc */
static int f(int x) {   // line\r
\tchar c = 'a';
    const char *s = "hi\\n" "there";
#ifdef FOO
    return 0;
#endif
}
"""
CPP_SAMPLE = """namespace n {
template <typename T> class A : public B<T> {
  public:
    auto f() -> int { return R"(raw
string)"[0] <=> x; }  // c
    std::vector<std::vector<int>> v;
};
}  // namespace n
"""
BROKEN = "int f( { ]] \u00e9 @@ \"unterminated\n"


@pytest.mark.parametrize("language, text", [("c", C_SAMPLE), ("cpp", CPP_SAMPLE), ("c", BROKEN), ("cpp", BROKEN),
                                            ("python", BROKEN), ("c", ""), ("cpp", "\ufeffint x;\n")])
def test_fixtures_are_lossless(language, text):
    stream = get_language(language).tokenize(text)
    assert check_stream(stream) is None
    symbols = get_scheme(get_language(language).scheme).symbols(stream)
    assert len(symbols) == 2 * len(stream) + 1
    assert all(s and not any(c.isspace() for c in s) and s not in RESERVED for s in symbols)


def test_c_tokens_and_symbols():
    scheme = get_scheme("c")
    stream = scheme.tokenize(C_SAMPLE)
    texts = stream.token_texts()
    assert "<stdio.h>" in texts and "// line" in texts and '"hi\\n"' in texts and "'a'" in texts
    text = " ".join(scheme.symbols(stream))
    assert "#include ·s1 SYSLIB ·n1= #define" in text and "DOC ·n1= static" in text   # CRLF as LF
    assert "{ ·s3 LINECOMMENT ·n1+1 char" in text and "; ·n1= const" in text   # a tab, 4 spaces: a level each


def test_cpp_raw_strings_whole():
    stream = get_language("cpp").tokenize(CPP_SAMPLE)
    assert 'R"(raw\nstring)"' in stream.token_texts() and "<=>" in stream.token_texts()


REAL = sorted(glob.glob("/usr/include/c++/*/bits/*.h"))[:40] + sorted(glob.glob("/usr/include/*.h"))[:40]


@pytest.mark.skipif(not REAL, reason="no C or C++ headers on this machine")
@pytest.mark.parametrize("language", ["c", "cpp"])
def test_real_headers_are_lossless(language):
    for path in REAL:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        assert check_stream(get_language(language).tokenize(text)) is None, path


@pytest.mark.parametrize("path, cpp, expected", [
    ("a.c", False, "c"), ("a.h", False, "c"), ("a.h", True, "cpp"), ("x/a.cc", False, "cpp"), ("a.hpp", False, "cpp"),
    ("a.cxx", False, "cpp"), ("a.hh", False, "cpp"), ("a.cpp", False, "cpp"), ("A.java", True, "java"),
    ("a.py", False, "python"), ("a.txt", False, None)])
def test_language_by_suffix(path, cpp, expected):
    found = language_of(path, cpp)
    assert (found.name if found else None) == expected


def test_header_rule_follows_the_repository():
    assert header_language(["a.c", "b.h", "c.cc"]) and not header_language(["a.c", "b.h"])


def test_every_module_names_its_language():
    assert set(LANGUAGES) == set(MODULES)
    for language in LANGUAGES.values():
        assert get_scheme(language.scheme).language == language.name
        assert language.default_model.startswith(".models/") and language.default_corpus


PY = """def f(a,
      b):
    if a:
        return [1,
                2]

    return b
"""


def test_python_syntax_gaps_are_logical_line_breaks():
    stream = get_language("python").tokenize(PY)
    flags = syntax_gaps(stream)
    gaps = stream.gap_texts
    assert flags[0]
    assert [g for g, f in zip(gaps, flags) if f and g] == ["\n    ", "\n        ", "\n\n    ", "\n"]
    assert all(not f for g, f in zip(gaps, flags) if g == "\n      ")   # inside brackets


@pytest.mark.parametrize("old, new, same", [
    ("\n        return", "\n        return", True),
    ("    return b", "\n    return b", True),          # a blank line more: NL, not syntax
    ("    if a:", "      if a:", False),               # a new indentation
    ("[1,\n                2]", "[1, 2]", True),       # inside brackets
    ("    return b\n", "    return   b\n", True),
    ("\n\n    return b", "\n    \n  return b", False)])
def test_python_edits_keep_python_tokens(old, new, same):
    assert PY.count(old) == 1
    edited = PY.replace(old, new)
    assert same_syntax(PY, edited) is same
    start = PY.index(old)
    assert get_language("python").same_tokens(PY, start, start + len(old), new) is same


def test_python_tokens_of_broken_text_is_none():
    assert python_tokens("def f(:\n  x\n y\n") is None


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not (ROOT / ".models/default-c-o6.bin").exists() or
                    not (ROOT / ".models/default-kind-units-o6.bin").exists(),
                    reason="no default C model ('make models')")
def test_rank_reads_each_file_in_its_language(tmp_path):
    import subprocess
    (tmp_path / "A.java").write_text("class A {\n    int x;\n\tint y;\n}\n")
    (tmp_path / "b.c").write_text("int f(void) {\n    return 1 ;\n}\n")
    run = subprocess.run([str(ROOT / "bin/rank"), "--top", "1", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [str(tmp_path / "A.java"), str(tmp_path / "b.c")]
    assert "scheme:c|" in run.stderr and "scheme:kind-units|" in run.stderr
    assert lines[1].split()[1] == str("int f(void) {\n    return 1 ;".index(" ;") + 1)   # the space before ';'
