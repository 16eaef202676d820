"""Measuring tools: `bin/compare-orders` (bench.compare) and `make bench` (bench.speed, bench.floor).

Nothing here changes what the ranker does; it builds models, runs `bin/rank` and reports numbers, each
report ending with a signature line that says what the numbers were made with.
"""
