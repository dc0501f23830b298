"""Qualifiers a question defines itself: "有效销售额（不含已取消订单）" means "销售额, excluding cancelled".

Why: the linker must account for every word, and "有效" (valid) is no column or cell value, so the
question used to be refused although its own parenthesis says what 有效 means. Only an adjective
followed by a definition that states a condition (不含 / 不包括 / 剔除 / 只 / 仅 / excluding / only ...)
is dropped; the definition stays and becomes the filter. An adjective with no definition
("有效订单的金额") is left alone, so the question is still refused rather than guessed.
"""

from __future__ import annotations

import re

__all__ = ["defined_qualifiers"]

_ADJECTIVES = r"有效的?|实际有效的?|正常的?|valid|effective|active|net"
_CONDITION = (r"不含|不包含|不包括|不计|剔除|排除|扣除|除去|除了|除|只含|只包括|只算|仅含|仅包括|仅|只|"
              r"excluding|exclude|except|without|not counting|only")
_OPEN, _CLOSE = r"[（(]", r"[）)]"
# "有效销售额（不含已取消订单）": adjective, the noun it qualifies (up to 12 characters), its definition
_DEFINED = re.compile(rf"(?P<adj>{_ADJECTIVES})\s?(?P<noun>[^（()）,，。？?]{{0,12}}?)\s?{_OPEN}"
                      rf"(?P<cond>\s?(?:{_CONDITION})[^（()）]{{1,24}}){_CLOSE}", re.IGNORECASE)
# "有效订单，即不含已取消的订单" / "valid orders, i.e. excluding cancelled": the definition in a clause
_CLAUSE = re.compile(rf"(?P<adj>{_ADJECTIVES})\s?(?P<noun>[^（()）,，。？?]{{0,12}}?)\s?[,，]\s?(?:即|也就是|指|i\.e\.|"
                     rf"that is|meaning)\s?(?P<cond>(?:{_CONDITION})[^,，。？?]{{1,24}})", re.IGNORECASE)


def defined_qualifiers(question: str) -> str:
    """The question with each self-defined adjective replaced by its definition (other text unchanged)."""
    def repl(m: re.Match[str]) -> str:
        return f"{m.group('noun')} {m.group('cond').strip()} "

    return _CLAUSE.sub(repl, _DEFINED.sub(repl, question))
