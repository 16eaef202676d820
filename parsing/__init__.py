"""parsing: source text -> token streams -> the symbols KenLM reads, the first stage after the project's root.

    java.py, python.py,     one module per language: its text -> TokenStream (tree-sitter; leaves walked in C,
    c.py, cpp.py            grammar.py), and its LANGUAGE (language.py: suffixes, kinds, scheme, markers, model)
    tokens.py               tokens, the whitespace gaps between them, whole streams (what flows out)
    symbols.py, schemes.py  the token schemes (`kind-units`, `kind`, `text`) and their gap symbols
    python_scheme.py        Python's scheme; units.py: the default scheme's walk in C++
    style.py, offsets.py    a file's indentation unit; byte/character/line offsets, converted only here
    languages.py            the languages by name and suffix (MODULES; a .h is C++ beside C++ sources)
    lossless.py             streams give their source back
"""
