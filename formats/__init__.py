"""formats: the formats of the data every stage reads, one module per format (one home each).

    files.py        reading inputs (strict UTF-8, newlines untouched), InputError, the one task order
    codrep2019.py   CodRep 2019 task folders: task files, answers (out.txt), near-duplicate voting, the
                    make-tasks writer (truth.jsonl)
    codrep2018.py   CodRep 2018 data sets: Tasks/N.txt (new line, blank line, Java file), Solutions/N.txt
    realslips.py    real-slip sets: truth.jsonl (files before a developer's whitespace fix, their changed gaps,
                    the fixed text) and clean.jsonl; the set's gaps of a text and its kinds of change
    sources.py      Java corpus sources (archives, folders, the two task formats, .java files) and the
                    files a PATH names for ranking
    lossless.py     `python -m formats.lossless FOLDER...`: tokenization is lossless over whole data sets

Imports only parsing (to vote across copies and to inject edits) and unnatural. (Not named `datasets`: that
is the import name of Hugging Face's package, which this field's users often have installed.)
"""
