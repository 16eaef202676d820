"""`python -m lines.rank_cli` = bin/rank --task codrep2018 (until bin/rank routes here)."""
import sys

from .cli import rank_main

if __name__ == "__main__":
    sys.exit(rank_main())
