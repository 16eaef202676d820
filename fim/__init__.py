"""fim: single-line fill-in-the-middle: making tasks from source files, predicting the middle line with the
n-gram model (or a local FIM transformer), and the study's record format."""
