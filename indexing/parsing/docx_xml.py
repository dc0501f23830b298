"""WordprocessingML names and the tiny value readers every ``docx_*`` module shares.

Why a module of its own: the styles, numbering, run, table and story readers all test
the same qualified tag names and read the same ``w:val`` toggles and integers; defining
them once keeps those readers free of each other and of copy-pasted helpers.
"""

from __future__ import annotations

from lxml import etree

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def wtag(tag: str) -> str:
    """The Clark-notation name (``{namespace}tag``) of a WordprocessingML element or attribute."""
    return f"{{{W_NS}}}{tag}"


W_VAL = wtag("val")
W_P, W_TBL, W_TR, W_TC, W_R, W_T = wtag("p"), wtag("tbl"), wtag("tr"), wtag("tc"), wtag("r"), wtag("t")
W_PPR, W_RPR, W_TCPR, W_TRPR = wtag("pPr"), wtag("rPr"), wtag("tcPr"), wtag("trPr")
W_SDT, W_SDTCONTENT, W_CUSTOMXML = wtag("sdt"), wtag("sdtContent"), wtag("customXml")
W_TXBX = wtag("txbxContent")
W_HYPERLINK = wtag("hyperlink")
M_OMATH, M_OMATHPARA, M_T = f"{{{M_NS}}}oMath", f"{{{M_NS}}}oMathPara", f"{{{M_NS}}}t"
MC_ALT, MC_CHOICE = f"{{{MC_NS}}}AlternateContent", f"{{{MC_NS}}}Choice"

TRUE_VALUES = {"1", "true", "on"}


def toggle(el: etree._Element | None) -> bool | None:
    """A WordprocessingML toggle (``<w:b/>``, ``<w:b w:val="0"/>``): True/False, None when absent."""
    if el is None:
        return None
    val = el.get(W_VAL)
    return val is None or val.lower() in TRUE_VALUES


def to_int(value: str | None) -> int | None:
    """An integer attribute value; None when absent or malformed (WPS writes odd values)."""
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines and tabs included) collapsed to one space."""
    return " ".join(text.split())
