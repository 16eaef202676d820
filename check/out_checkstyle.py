"""`--format checkstyle`: Checkstyle's XML report, what Jenkins' warnings-ng, reviewdog, SonarQube's importers
and most CI plugins read, written when the run finishes:

    <?xml version="1.0" encoding="UTF-8"?>
    <checkstyle version="0.2.0">
    <file name="src/A.java">
    <error line="3" column="14" severity="warning" message="unexpected space before ';' (confidence 0.93)" source="unnatural.space-before"/>
    </file>
    </checkstyle>

Every checked file has its <file> element (as Checkstyle lists every file it audits); a file that could not
be checked has an <exception> with the reason, as Checkstyle reports its own. Columns are characters (not
Checkstyle's tab-expanded columns). The document is ASCII (other characters as references), so it is what
its declaration says whatever the output's encoding; characters XML 1.0 cannot carry become U+FFFD.
"""  # noqa: E501 (the example's lines are the format's own, unwrapped)
from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from unnatural import __version__

from .findings import CheckedFile, Summary
from .report import Reporter, printable

# characters outside XML 1.0's Char production (controls other than tab, CR and LF; surrogates; U+FFFE/F)
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", printable(text))


def attribute(value: object) -> str:
    return quoteattr(xml_safe(str(value)))


class CheckstyleReporter(Reporter):
    def __init__(self, out, options=None):
        super().__init__(out, options)
        self.elements: list[str] = []

    def report(self, checked: CheckedFile) -> None:
        errors = "".join(
            f'<error line="{f.line}" column="{f.column}" severity="warning" '
            f'message={attribute(f"{f.message} (confidence {f.confidence:.2f})")} '
            f'source={attribute("unnatural." + f.rule)}/>\n' for f in checked.findings)
        self.elements.append(f"<file name={attribute(checked.path)}>\n{errors}</file>\n")

    def skipped(self, checked: CheckedFile) -> None:
        self.elements.append(f"<file name={attribute(checked.path)}>\n"
                             f"<exception>{escape(xml_safe(checked.error or ''))}</exception>\n</file>\n")

    def document(self) -> str:
        body = "".join(self.elements)
        text = f'<?xml version="1.0" encoding="UTF-8"?>\n<checkstyle version="{__version__}">\n{body}</checkstyle>\n'
        return text.encode("ascii", "xmlcharrefreplace").decode("ascii")

    def finish(self, summary: Summary) -> None:
        self.out.write(self.document())
        super().finish(summary)
