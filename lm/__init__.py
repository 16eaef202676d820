"""lm: corpora -> KenLM n-gram models, and the one entry point to query them.

    build.py, corpus.py     files -> corpus text -> lmplz -> build_binary, a signature beside the model
    cluster.py              the corpus tokenized on a Dask cluster (`bin/build-lm --cluster`)
    kenlm_tools.py          the KenLM tools `make setup` builds, and their memory and format settings
    model.py                LanguageModel: load, score symbol sequences (log10), mix with a project model
    cli.py                  bin/build-lm
"""
