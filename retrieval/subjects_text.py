"""Whether the knowledge base's text spells a name: the check that keeps a weak company name from reading as missing.

Why: ``retrieval.subjects`` reads a capitalised name ending in a company word ("American Airlines", "MGM Resorts
International") as a company, and once every report's company is known, as one no document is about. But "What did
IBM develop for American Airlines in 1961?" asks about an article that names American Airlines: a name any indexed
text spells may be a customer, a segment or the subject of a document that is no report, so only a name that looks
like a company's *and occurs nowhere* is said to be missing. Names with a legal form ("AA Limited", "…股份有限公司")
stay missing whatever the text holds: a report of another company may name it as a party without being about it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from indexing.identity import fold
from retrieval.search import search

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase

#: BM25 hits read to see whether any indexed text holds the name.
HITS = 10


def folded(text: str) -> str:
    """NFKC, Simplified, lower case, no spaces: "Procter & Gamble" and "騰訊" are found however a page spaces, cases
    or scripts them."""
    return re.sub(r"\s+", "", fold(text).lower().replace("’", "'"))


def text_holds(kb: KnowledgeBase, name: str) -> bool:
    """True when one of the best BM25 hits for ``name`` spells it."""
    wanted = folded(name)
    return bool(wanted) and any(wanted in folded(hit.text) for hit in search(kb, name, "bm25", HITS))


__all__ = ["HITS", "folded", "text_holds"]
