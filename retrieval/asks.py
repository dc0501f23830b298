"""The asks of a question: "which firm audited, and what opinion?" asks two things, "董事长是谁，总经理是谁？" too.

Why: a deterministic answerer that settles one ask of two has not answered (DESIGN.md, "Precision first"); to
know, the question path must see how many asks there are. A clause is a separate ask when it carries its own
question word: "who", "what", "where", "in which", "did" … after "and" or a comma; 谁 / 什么 / 哪 / 多少 /
如何 / 是否 … in a clause after "，" / "；" / "以及" / "并且" / "同时". Words joined inside one clause
("董事长和总经理分别是谁", "revenue and net income") stay one ask, whose items the answerer checks itself.
Pure functions over text.
"""

from __future__ import annotations

import re

from officeqa.words import word_list

__all__ = ["split_asks"]

#: A preposition before "which"/"what" opens an ask as well ("… and on which market does it trade").
_EN_WH = (r"(?:who|whom|whose|what|which|where|when|why|how|(?:in|at|on|from|for|to|by|with|under)\s+(?:which|what)|"
          r"did|does|do|is|are|was|were|has|have)")
#: English: split before a question word that follows "and", a comma or a question mark inside the question
#: (", and what opinion", " and who was CEO", "Who audited it? What opinion did they give").
_EN_SPLIT = re.compile(rf"\s*(?:,\s*(?:and\s+)?|;\s*|\?\s*(?:and\s+)?|\s+and\s+(?:also\s+)?)(?={_EN_WH}\b)",
                       re.IGNORECASE)
_EN_ASK = re.compile(rf"^\s*(?:and\s+)?{_EN_WH}\b", re.IGNORECASE)
#: Chinese: clause marks (a question mark inside the question too: "由哪家事务所审计？出具了什么意见？") and the
#: words that join two asks.
_ZH_SPLIT = re.compile(r"[，,；;？?]|以及|并且|同时|另外")
_ZH_TAIL = ("吗", "么", "是否")


def _zh_words() -> tuple[str, ...]:
    return (*word_list("interrogatives"), "谁", "什么", "哪", "多少", "几", "何", *_ZH_TAIL)


def _has_chinese(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", text) is not None


def _zh_asks(question: str) -> bool:
    words = _zh_words()
    return any(w in question for w in words)


def split_asks(question: str) -> list[str]:
    """The question's asks, in order; the whole question when it asks one thing.

    A clause with no question word of its own is context, not an ask ("根据2019年年报，董事长是谁？" is one ask) and
    is kept with the ask after it."""
    text = question.strip().rstrip("?？。.!！ ")
    if not text:
        return [question]
    if _has_chinese(text):
        parts = [p.strip() for p in _ZH_SPLIT.split(text) if p.strip()]
        asks: list[str] = []
        context = ""
        for part in parts:
            if _zh_asks(part):
                asks.append(f"{context}{part}")
                context = ""
            else:
                context += part
        return asks if len(asks) > 1 else [question]
    parts = [p.strip() for p in _EN_SPLIT.split(text) if p and p.strip()]
    asks = [p for p in parts if _EN_ASK.match(p)]
    return parts if len(parts) > 1 and len(asks) == len(parts) else [question]
