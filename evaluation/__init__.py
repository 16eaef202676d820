"""evaluation: offline evaluators for every task the project serves.

One module per metric family (codrep2019, codrep2018, plur, fim, stamina), pure functions; `registry` maps
names to them; `cli` (`bin/evaluate TASK ...`) parses, calls and prints. `codrep2019` is also the MRR of the
ranker, so it imports nothing heavy.
"""
