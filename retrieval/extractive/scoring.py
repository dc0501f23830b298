"""How well each sentence of the top materials answers the question (see the package docstring).

Why a module of its own: scoring is the part that is tuned (credits, priors, bonuses); keeping it
apart from the choice of quotes and their rendering lets the constants be read in one place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from officeqa.text_tokens import stem_term
from prompts.assembler import Material, split_sentences
from retrieval.citations import Tokenize, heading_list
from retrieval.extractive.terms import (
    NUMBER,
    Ordinal,
    chars_present,
    concepts,
    is_han_word,
    item_number,
    with_stems,
)

MIN_SENTENCE_CHARS = 4
#: Prior of the i-th material (0-based): RANK_PRIOR / (i + 1) ** 2 — the top chunk leads.
RANK_PRIOR = 0.25
FAQ_BONUS = 0.3
#: A sentence that starts with a question term ("Prompt 工程是…") is usually its definition.
LEAD_BONUS = 0.05
HEADING_CREDIT = 0.8
CHAR_CREDIT = 0.6
#: Below this covered share (of the key terms' weight) no sentence answers the question.
NOT_FOUND_COVERAGE = 0.34
#: A further sentence is quoted only when it scores at least this share of the best one.
RELATIVE_KEEP = 0.6
LONG_SENTENCE_CHARS = 160
#: A compound's parts ("部门" of "部门经理") earn this share of the compound when the compound itself is missing.
PART_CREDIT = 0.7
TABLE_KINDS = ("table", "oversize_table")
TABLE_HEADER_SEP = " | "
#: A short line without end punctuation that is numbered like a heading ("第三条 违约责任", "2.1 Scope").
_HEADING_LINE = re.compile(
    r"^(?:第[一二三四五六七八九十百零\d]{1,4}[章节条款部分篇]|[一二三四五六七八九十]{1,3}[、.．]|"
    r"\d{1,2}(?:\.\d{1,2}){0,3}[、.．\s]|[（(][一二三四五六七八九十\d]{1,3}[）)]|chapter\s+\d|section\s+\d)",
    re.IGNORECASE,
)
_END_PUNCT = tuple("。！？；：.!?;:")

Weights = Callable[[str], float]
LabelOf = Callable[[Material, str], str | None]
#: Text around a material that belongs to it (a table's lead-in sentence): counts like its heading.
ContextOf = Callable[[Material], str]


@dataclass(slots=True)
class Candidate:
    """A sentence that may be quoted: its score, the share of the question it covers, where it sits."""

    score: float
    coverage: float
    material: int
    index: int
    sentence: str


@dataclass(slots=True)
class Question:
    """What scoring needs of the question: weighted key terms, their concepts, numbers and ordinal."""

    term_weights: dict[str, float]
    numbers: set[str]
    tokenize: Tokenize
    ordinal: Ordinal | None = None
    groups: dict[str, list[str]] = field(init=False)
    total: float = field(init=False)

    def __post_init__(self) -> None:
        self.groups = concepts(list(self.term_weights))
        self.total = sum(self.term_weights[c] for c in self.groups) or 1.0


def clean(sentence: str) -> str:
    """One line, markdown emphasis and heading marks removed."""
    return re.sub(r"\s+", " ", re.sub(r"\*\*|__|#", " ", sentence)).strip()


def looks_like_heading(line: str) -> bool:
    """A short, numbered line without end punctuation: a heading inside a chunk's text, never an answer."""
    return len(line) <= 40 and not line.endswith(_END_PUNCT) and _HEADING_LINE.match(line) is not None


def is_table(material: Material) -> bool:
    return str(material.meta.get("kind", "")) in TABLE_KINDS


def quotable(material: Material) -> list[tuple[int, str]]:
    """(index, sentence) of a material's sentences that may be quoted (no headings, no table header line)."""
    headings = {clean(h) for h in heading_list(material.meta.get("heading_path"))}
    table = is_table(material)
    out = []
    for si, raw in enumerate(split_sentences(material.text)):
        sentence = clean(raw)
        if (len(sentence) < MIN_SENTENCE_CHARS or sentence in headings or looks_like_heading(sentence)
                or (table and TABLE_HEADER_SEP in sentence) or sentence.endswith(("？", "?"))):
            continue
        out.append((si, sentence))
    return out


def score_sentences(
    materials: Sequence[Material],
    question: Question,
    context_of: ContextOf | None = None,
    label_of: LabelOf | None = None,
) -> list[Candidate]:
    """Every quotable sentence of ``materials`` that covers some of the question, scored; each sentence once.

    ``question.ordinal``: the list position the question names and its terms ("第二期款"): the sentence that is
    that item of a numbered list ("4.2 本系统上线……支付……50%") covers them."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for mi, material in enumerate(materials):
        out += _MaterialScorer(question, material, mi, context_of, label_of, seen).run()
    return out


class _MaterialScorer:
    """Scores the sentences of one material, carrying the heading and FAQ state from sentence to sentence."""

    def __init__(self, question: Question, material: Material, rank: int, context_of: ContextOf | None,
                 label_of: LabelOf | None, seen: set[str]) -> None:
        self.q, self.material, self.rank, self.label_of, self.seen = question, material, rank, label_of, seen
        headings = heading_list(material.meta.get("heading_path"))
        self.heading_set = {clean(h) for h in headings}
        context = context_of(material) if context_of is not None else ""
        self.outer_tokens = with_stems(question.tokenize(" ".join([*headings[:-1], context])))
        self.heading_tokens = self.outer_tokens | with_stems(question.tokenize(headings[-1] if headings else ""))
        self.table = is_table(material)
        self.after_question = False

    def run(self) -> list[Candidate]:
        out: list[Candidate] = []
        for si, raw in enumerate(split_sentences(self.material.text)):
            candidate = self._sentence(si, clean(raw))
            if candidate is not None:
                out.append(candidate)
        return out

    def _sentence(self, si: int, sentence: str) -> Candidate | None:
        if looks_like_heading(sentence):
            # a chunk that merged small sections: the sentences below this line belong to it
            self.heading_tokens = self.outer_tokens | with_stems(self.q.tokenize(sentence))
            return None
        if len(sentence) < MIN_SENTENCE_CHARS or sentence in self.heading_set or sentence in self.seen:
            return None
        if self.table and TABLE_HEADER_SEP in sentence:
            return None
        tokens = self._tokens(sentence)
        covered = {c for c in self.q.groups if c in tokens or stem_term(c) in tokens}
        if sentence.endswith(("？", "?")):  # a question in the text is not an answer
            self.after_question = sum(self.q.term_weights[c] for c in covered) * 2 >= self.q.total
            return None
        coverage = sentence_coverage(self.q, tokens, self.heading_tokens, sentence)
        if coverage <= 0 and not (self.after_question and self.rank == 0):
            self.after_question = False
            return None
        score = self._score(sentence, coverage, covered)
        self.seen.add(sentence)
        self.after_question = False
        return Candidate(score, coverage, self.rank, si, sentence)

    def _tokens(self, sentence: str) -> set[str]:
        tokens = with_stems(self.q.tokenize(sentence))
        label = self.label_of(self.material, sentence) if self.label_of is not None else None
        if label:  # "批注（周敏（法务部））": the question may ask for the comment or its author
            tokens |= set(self.q.tokenize(label))
        if self.q.ordinal is not None and item_number(sentence) == self.q.ordinal[0]:
            tokens |= self.q.ordinal[1]
        return tokens

    def _score(self, sentence: str, coverage: float, covered: set[str]) -> float:
        score = coverage + RANK_PRIOR / (self.rank + 1) ** 2
        if self.after_question:
            score += FAQ_BONUS
        if covered and next(iter(self.q.tokenize(sentence)), None) in covered:
            score += LEAD_BONUS
        if len(sentence) > LONG_SENTENCE_CHARS:
            score *= 0.9
        return score


def sentence_coverage(question: Question, tokens: set[str], heading_tokens: set[str], sentence: str) -> float:
    """The weighted share of the question's concepts a sentence covers; a sentence that misses every number of
    the question keeps 80% of it."""
    coverage = sum(credit(c, parts, question.term_weights, tokens, heading_tokens, sentence)
                   for c, parts in question.groups.items()) / question.total
    if question.numbers and not question.numbers & set(NUMBER.findall(sentence)):
        coverage *= 0.8
    return coverage


def credit(
    concept: str,
    parts: list[str],
    weights: dict[str, float],
    tokens: set[str],
    heading_tokens: set[str],
    sentence: str,
) -> float:
    """How much of ``concept``'s weight a sentence earns (see the package docstring)."""
    weight = weights[concept]
    if concept in tokens or stem_term(concept) in tokens:  # tokens carry their stems ("developed": "develop")
        return weight
    earned = 0.0
    if parts:
        part_total = sum(weights[p] for p in parts) or 1.0
        earned = PART_CREDIT * sum(weights[p] for p in parts if p in tokens) / part_total
    if chars_present(concept, sentence) or (len(concept) == 1 and is_han_word(concept)
                                            and concept in sentence):  # "付" of "支付"
        earned = max(earned, CHAR_CREDIT)
    if concept in heading_tokens:
        earned = max(earned, HEADING_CREDIT)
    elif parts:
        in_heading = sum(weights[p] for p in parts if p in heading_tokens) / (sum(weights[p] for p in parts) or 1.0)
        earned = max(earned, HEADING_CREDIT * PART_CREDIT * in_heading)
    return earned * weight


def joint_coverage(chosen: list[Candidate], question: Question) -> float:
    """The share of the question's concepts that the chosen sentences cover together (each at its best credit)."""
    tokens = [(with_stems(question.tokenize(c.sentence)), c.sentence) for c in chosen]
    earned = sum(max((credit(c, parts, question.term_weights, t, set(), sentence) for t, sentence in tokens),
                     default=0.0)
                 for c, parts in question.groups.items())
    return earned / question.total


def choose(candidates: list[Candidate], limit: int) -> list[Candidate]:
    """The best sentence, then others that score close to it (they add evidence, not repetition)."""
    best = candidates[0]
    chosen = [best]
    for candidate in candidates[1:]:
        if len(chosen) >= limit:
            break
        if candidate.score >= RELATIVE_KEEP * best.score and candidate.coverage >= NOT_FOUND_COVERAGE:
            chosen.append(candidate)
    return chosen
