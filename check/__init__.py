"""bin/check: a style checker for whole Java repositories, on top of the ranker (docs/check.md)."""
