"""Byte-stable output for generated office files.

Why: the knowledge base is committed, and regenerating it must not produce a diff when
nothing changed. OOXML writers stamp the current time into the zip entries and into
``docProps/core.xml``; this module rewrites both to one fixed instant. PDFs get the same
treatment through reportlab's ``invariant`` mode (see :mod:`eval.kb.pdf_docs`).
"""

from __future__ import annotations

import io
import re
import zipfile

FIXED_ZIP_TIME = (2024, 10, 8, 9, 0, 0)
FIXED_ISO = "2024-10-08T09:00:00Z"

_CORE_TIMES = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")
_COMMENT_DATE = re.compile(rb'w:date="[^"]*"')


def stable_zip(data: bytes) -> bytes:
    """The same OOXML package with fixed entry times and fixed document timestamps."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = _CORE_TIMES.sub(rb"\g<1>" + FIXED_ISO.encode() + rb"\g<3>", body)
            if info.filename == "word/comments.xml":
                body = _COMMENT_DATE.sub(b'w:date="' + FIXED_ISO.encode() + b'"', body)
            entry = zipfile.ZipInfo(info.filename, date_time=FIXED_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, body)
    return out.getvalue()
