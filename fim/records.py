"""The study's prediction records, and its post-processing of what a model generates.

A record per task, in task order: `middle` (the true line), `fill` (the predicted one), `original_code`
(prefix + middle + suffix), `generated_code` (prefix + fill + suffix) and `correct`, left empty for a person
to annotate (yes/no or 1/0; `bin/evaluate fim --annotations` reads it). `path` and `line` are kept when
the task has them.
"""
from __future__ import annotations

from .index import is_comment_line
from .tasks import FimTask

END_OF_TEXT = ("<|endoftext|>", "<eos>", "</s>", "<|end|>", "<EOT>")


def record(task: FimTask, fill: str) -> dict:
    out = {"middle": task.middle, "fill": fill, "original_code": task.prefix + task.middle + task.suffix,
           "generated_code": task.prefix + fill + task.suffix, "correct": ""}
    if task.path:
        out["path"] = task.path
    if task.line:
        out["line"] = task.line
    return out


def first_code_line(generated: str, language: str, end_tokens=END_OF_TEXT) -> str:
    """The study's post-processing: end-of-text tokens removed, then the first line that is not blank and
    not a comment ('' when there is none)."""
    for token in end_tokens:
        if token:
            generated = generated.replace(token, "")
    for line in generated.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.strip() and not is_comment_line(line.strip(), language):
            return line.rstrip()
    return ""
