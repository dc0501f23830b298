"""Rewrite a follow-up question into a standalone one before retrieval.

Why: "那第二季度呢？" retrieves nothing useful on its own; retrieval needs the subject
the conversation carries ("第二季度华东区销售额是多少"). With a model available the
rewrite template asks it; the model's output is accepted only when it looks like a
question (one line, not empty, not a long answer). Otherwise, and whenever the model
fails, a deterministic rule carries the last question's subject over: the follow-up's
fragment replaces the span of the same kind in the last question (a quarter, a year,
a month, a half-year, a chapter/article number, or a word with the same last
character such as 华东区 -> 华南区); if no such span exists a short fragment (or one
with a pronoun) is attached to the last question so retrieval sees both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from officeqa.scripts import detect_language, is_han
from prompts.loader import load_rewrite_template

if TYPE_CHECKING:
    from officeqa.generation import OllamaGenerator

_CN_NUM = "一二三四五六七八九十百零两"
_LEAD = re.compile(r"^\s*(那么|那|还有|另外|然后|再问一下|and\s+|what\s+about\s+|how\s+about\s+|and\s+what\s+about\s+)",
                   re.IGNORECASE)
_TRAIL = re.compile(r"(呢|吗|怎么样|如何|的情况)?\s*[？?。.!！]*\s*$")

#: Kinds of span a follow-up typically swaps; the first kind both texts contain is replaced.
SPAN_KINDS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"第[{_CN_NUM}\d]+季度|[{_CN_NUM}1-4]季度|\bQ[1-4]\b", re.IGNORECASE),
    re.compile(r"[上下]半年|\bH[12]\b"),
    re.compile(rf"(?:19|20)\d{{2}}\s*年?|[{_CN_NUM}]{{4}}年"),
    re.compile(rf"\d{{1,2}}月份?|[{_CN_NUM}]{{1,3}}月份?"),
    re.compile(rf"第[{_CN_NUM}\d]+[章节条款项部分篇]"),
)

_PRONOUNS = re.compile(r"它|他们|她们|这个|那个|上述|前者|后者|\b(it|its|they|them|those)\b", re.IGNORECASE)
_FOLLOWUP_WORDS = re.compile(
    r"^(那|那么|还有|另外|然后)|呢[？?]?\s*$|^(and|what about|how about)\b",
    re.IGNORECASE,
)
#: A longer follow-up without a pronoun is taken as already standalone by the rule fallback.
MAX_FRAGMENT_CHARS = 12


@dataclass(slots=True)
class Turn:
    """One earlier exchange of the conversation."""

    question: str
    answer: str = ""


@dataclass(slots=True)
class Rewrite:
    """The question retrieval should use, and how it was obtained ("none", "rule" or "model")."""

    original: str
    standalone: str
    method: str


def looks_like_followup(question: str) -> bool:
    """Short or context-dependent wording ("那…呢", "它", "what about …")."""
    text = question.strip()
    if _FOLLOWUP_WORDS.search(text) or _PRONOUNS.search(text):
        return True
    cjk = sum(1 for ch in text if is_han(ch))
    return cjk > 0 and cjk <= 5


def fragment_of(question: str) -> str:
    """The follow-up without its lead-in and trailing particle: "那第二季度呢？" -> "第二季度"."""
    text = _LEAD.sub("", question.strip())
    return _TRAIL.sub("", text).strip(" ，,")


def rule_rewrite(question: str, previous: str) -> str:
    """Carry ``previous``'s subject into ``question`` deterministically (see the module docstring)."""
    fragment = fragment_of(question)
    if not fragment:
        return previous
    for kind in SPAN_KINDS:
        new = kind.search(fragment)
        old = kind.search(previous)
        if new and old:
            return previous[: old.start()] + new.group(0) + previous[old.end() :]
    swapped = _swap_same_suffix(fragment, previous)
    if swapped is not None:
        return swapped
    led = _LEAD.match(question.strip()) is not None  # "那…", "and …": a follow-up whatever its length
    if len(fragment) > MAX_FRAGMENT_CHARS and not _PRONOUNS.search(fragment) and not led:
        return question
    subject = _subject_of(previous)
    if subject:
        # "星河和蓝海签的技术服务合同，总金额是多少？" + "那第二期款什么时候付？" -> the contract + the new ask
        return f"{subject}，{fragment}" if detect_language(previous) == "zh" else f"{subject}, {fragment}"
    if detect_language(previous) == "zh":
        return f"{previous.rstrip('？?。 ')}（{fragment}）"
    return f"{previous.rstrip('?. ')} ({fragment})"


def _subject_of(previous: str) -> str:
    """The part of a two-clause question before its asking clause: "X的合同，总金额是多少" -> "X的合同"."""
    text = previous.strip().rstrip("？?。.! ")
    for mark in ("，", ","):
        head, sep, tail = text.rpartition(mark)
        if sep and len(head) >= 4 and len(tail) <= 20:
            return head.strip()
    return ""


def _swap_same_suffix(fragment: str, previous: str) -> str | None:
    """Replace the span of ``previous`` that has the fragment's length and last character (华东区 -> 华南区)."""
    if len(fragment) < 2 or len(fragment) > 8 or not is_han(fragment[-1]):
        return None
    size = len(fragment)
    for start in range(len(previous) - size + 1):
        span = previous[start : start + size]
        if span[-1] == fragment[-1] and span != fragment and all(is_han(ch) for ch in span):
            return previous[:start] + fragment + previous[start + size :]
    return None


def rewrite_followup(
    question: str, history: Sequence[Turn], generator: OllamaGenerator | None = None
) -> Rewrite:
    """The standalone question for retrieval; ``generator`` (when reachable) is asked first."""
    if not history or not looks_like_followup(question):
        return Rewrite(question, question, "none")
    previous = history[-1].question
    if generator is not None:
        rewritten = _model_rewrite(question, history, generator)
        if rewritten:
            return Rewrite(question, rewritten, "model")
    return Rewrite(question, rule_rewrite(question, previous), "rule")


def _model_rewrite(question: str, history: Sequence[Turn], generator: OllamaGenerator) -> str | None:
    from officeqa.errors import GenerationError

    template = load_rewrite_template(detect_language(question + history[-1].question))
    lines = []
    for turn in history[-3:]:
        lines.append(f"Q: {turn.question}")
        if turn.answer:
            lines.append(f"A: {turn.answer[:300]}")
    messages = [
        {"role": "system", "content": template.system},
        {"role": "user", "content": template.instruction.format(history="\n".join(lines), question=question)},
    ]
    try:
        result = generator.chat(messages, num_predict=128)
    except GenerationError:
        return None
    text = result.text.strip().strip("\"'“”「」").strip()
    limit = 3 * (len(question) + len(history[-1].question))
    if not text or "\n" in text or len(text) > limit:
        return None
    return text
