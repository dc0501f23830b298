"""A deterministic stand-in for the language model: it "reads" the prompt the product sent and answers from it.

Why: ``officeqa eval --generator fake`` must run the model path end to end (follow-up rewriting,
prompt assembly, streaming, ``[n]`` markers turned into citations) in CI, where no model runs,
and give the same answer every time. It reads the product's own prompt templates:

- a follow-up rewrite request ("追问：…" / "Follow-up question: …") is answered with what the
  product's own deterministic rewrite makes of the history's last question and the follow-up
  (a real model rewrites better; the point is that the model's rewrite path runs);
- a question-answering request is answered by quoting the material sentence (or table row, with
  its header) that covers the question's terms best, and a second one when it covers terms the
  first does not, each followed by its ``[n]`` marker; when no sentence covers enough of the
  question, it replies with the template's exact "not found" text, as the instructions ask.

Terms are the product's BM25 terms (jieba, stop words dropped); a term that appears in few
materials weighs more, as in BM25, so "公司" alone never makes a sentence relevant.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from eval.fake_ollama import Reply
from officeqa.scripts import is_han
from officeqa.text_tokens import tokenize_for_bm25
from officeqa.tokens import default_token_counter
from retrieval.followup import rule_rewrite

__all__ = ["Material", "grounded_reply", "grounded_text", "parse_prompt"]

MIN_COVERAGE = 0.3  # share of the question's term weight a quoted sentence must cover
SECOND_SHARE = 0.6  # a second sentence is quoted when it scores at least this share of the best
PIECE_CHARS = 12  # streamed piece size
MESSAGE_FRAMING_TOKENS = 4  # role markers around each chat message

# Question words carry no topic: a model does not look for "多少" or "which" in its materials.
_QUESTION_WORDS = frozenset({
    "什么", "哪个", "哪些", "哪里", "哪天", "多少", "多长", "几", "怎么", "怎样", "如何", "如果", "是否", "为什么",
    "这份", "这个", "那个", "最多", "最多能", "请问", "一下",
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "many", "much", "is", "are", "was",
    "were", "do", "does", "did", "the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "with", "by", "from",
    "at", "according", "me", "tell", "show", "give", "please", "about",
})

_ITEM = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_QUESTION = re.compile(r"^(?:问题：|Question: )(.*)$", re.MULTILINE)
_NOT_FOUND = (re.compile(r"直接回答“(.+?)”"), re.compile(r'reply exactly "(.+?)"'))
_FOLLOWUP = re.compile(r"^(?:追问：|Follow-up question: )(.*)$", re.MULTILINE)
_HISTORY_Q = re.compile(r"^Q: (.*)$", re.MULTILINE)
_SENTENCE = re.compile(r"[^。！？；!?;\n]+[。！？；!?;]?")


@dataclass(slots=True)
class Material:
    n: int
    source: str
    text: str


def parse_prompt(user: str) -> tuple[str, list[Material], str, str]:
    """(question, materials, not-found text, language) of a question-answering prompt."""
    question_match = _QUESTION.search(user)
    question = question_match.group(1).strip() if question_match else ""
    body = user[: question_match.start()] if question_match else user
    items = list(_ITEM.finditer(body))
    materials = []
    for i, item in enumerate(items):
        end = items[i + 1].start() if i + 1 < len(items) else len(body)
        text = body[item.end() : end].strip()
        materials.append(Material(int(item.group(1)), item.group(2).strip(), text))
    not_found = ""
    for pattern in _NOT_FOUND:
        found = pattern.search(user)
        if found:
            not_found = found.group(1)
            break
    language = "zh" if user.lstrip().startswith("任务") or "问题：" in user else "en"
    return question, materials, not_found, language


def _terms(text: str) -> set[str]:
    """Topic terms: the product's BM25 terms less question words and lone Chinese characters ("去", "报")."""
    return {t for t in tokenize_for_bm25(text)
            if t not in _QUESTION_WORDS and not (len(t) == 1 and is_han(t))}


def _units(material: Material) -> list[str]:
    """Sentences of a text material; rows of a table (with the header line in front) of a table material."""
    lines = [line for line in material.text.splitlines() if line.strip()]
    if len(lines) >= 2 and sum(" | " in line for line in lines) >= len(lines) - 1:
        header = lines[0]
        return [f"{header}\n{row}" for row in lines[1:]] or [header]
    return [m.group(0).strip() for m in _SENTENCE.finditer(material.text) if m.group(0).strip()]


def grounded_text(user: str) -> str:
    """The fake model's answer to one question-answering prompt (see the module docstring)."""
    question, materials, not_found, language = parse_prompt(user)
    wanted = _terms(question)
    if not materials or not wanted:
        return not_found
    material_terms = [_terms(m.source + "\n" + m.text) for m in materials]
    total = len(materials)
    weight = {t: math.log(1 + (total + 1) / (1 + sum(t in terms for terms in material_terms))) for t in wanted}
    whole = sum(weight.values())
    scored: list[tuple[float, int, int, str, int, frozenset[str]]] = []  # best first on sort
    for rank, material in enumerate(materials):
        for order, unit in enumerate(_units(material)):
            covered = frozenset(_terms(unit) & wanted)
            scored.append((sum(weight[t] for t in covered) / whole, -rank, -order, unit, material.n, covered))
    scored.sort(reverse=True)
    if not scored or scored[0][0] < MIN_COVERAGE:
        return not_found
    picked = [scored[0]]
    for candidate in scored[1:]:
        if candidate[0] < scored[0][0] * SECOND_SHARE:
            break
        if candidate[5] - picked[0][5]:  # a second quote only when it covers terms the first does not
            picked.append(candidate)
            break
    joiner = "；" if language == "zh" else "; "
    parts = [f"{unit.replace(chr(10), joiner)}[{n}]" for _, _, _, unit, n, _ in picked]
    lead = "根据资料：" if language == "zh" else "According to the materials: "
    return lead + ("" if language == "zh" else " ").join(parts)


def rewrite_text(user: str) -> str:
    """The fake model's standalone question for a rewrite prompt (see the module docstring)."""
    follow = _FOLLOWUP.search(user)
    previous = _HISTORY_Q.findall(user)
    followup = follow.group(1).strip() if follow else ""
    return rule_rewrite(followup, previous[-1].strip()) if previous and followup else followup


def grounded_reply(body: dict) -> Reply:
    """A :class:`Reply` for one /api/chat request body, built from the prompt alone.

    Its ``prompt_eval_count`` is the prompt's size in the product's own tokenizer (plus a few
    tokens of chat framing per message), as a model with that tokenizer would report it.
    """
    messages = body.get("messages") or []
    user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    text = rewrite_text(user) if _FOLLOWUP.search(user) else grounded_text(user)
    pieces = [text[i : i + PIECE_CHARS] for i in range(0, len(text), PIECE_CHARS)] or [""]
    count = default_token_counter().count
    prompt_tokens = sum(count(str(m.get("content", ""))) + MESSAGE_FRAMING_TOKENS for m in messages)
    return Reply(pieces=pieces, prompt_eval_count=prompt_tokens)
