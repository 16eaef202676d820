"""The lossless property of a token stream: it reassembles its source, and its spans index the right
characters (`python -m formats.lossless` checks it over whole data sets)."""
from __future__ import annotations

from .tokens import TokenStream


def check_stream(stream: TokenStream) -> str | None:
    """None when the stream reassembles the source and every gap is whitespace; else what is wrong."""
    src = stream.source
    if stream.reassemble() != src:
        return "reassembled text differs from the source"
    for i, tok in enumerate(stream.tokens):
        if src[tok.start - 1:tok.end - 1] != tok.text:
            return f"token {i} span {tok.start}..{tok.end} does not index its text"
    for gap in stream.gaps:
        if gap.text and not gap.text.isspace():
            return f"gap at {gap.start} is not whitespace: {gap.text!r}"
    return None
