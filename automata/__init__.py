"""automata: StaMinA state-machine learning: DFAs learned from labelled strings, and the BCR they are scored by.

    samples.py, apta.py     labelled strings and their files; the prefix tree they start from
    merging.py, sat.py      state merging (RPNI, EDSM) and DFASAT-style exact search
    learn.py, vote.py       the learners' one entry point; a vote of several DFAs
    dfa.py, bcr.py          the machines, and the balanced classification rate
    generator.py, grid.py   StaMinA-style problems with known targets, the 100-problem grid
    runs.py, bench.py       learning and scoring folders; the held-out benchmark against AALpy
    cli.py                  bin/stamina
"""
