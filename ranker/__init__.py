"""ranker: scores -> rankings: every character offset of a file, most suspicious first (CodRep 2019).

A file's symbol stream is scored once under the KenLM models (score.py), every plausible one-character repair
of each gap (repairs.py, plans.py) is rescored in compiled code, and an offset ranks by how much its repair
makes the file more natural, weighed by the style learned from the file itself or its folder (cache.py,
folder.py, learn.py, habits.py). rank.py ranks one file; explain.py reports findings; cli.py is bin/rank.
"""
