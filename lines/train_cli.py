"""`python -m lines.train_cli` = bin/train-line-ranker."""
import sys

from .cli import train_main

if __name__ == "__main__":
    sys.exit(train_main())
