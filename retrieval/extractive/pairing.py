"""Quotes from several documents that answer together (a contact named in a contract, that person's task in
the minutes), and comparisons that quote each version.

Why apart: the pair search is its own small algorithm (coverage of the pair, plus a bridge word the two
quotes share that the question does not name) with its own constants.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from prompts.assembler import Material
from retrieval.extractive.scoring import (
    NOT_FOUND_COVERAGE,
    RELATIVE_KEEP,
    Candidate,
    ContextOf,
    Question,
    Weights,
    score_sentences,
)
from retrieval.extractive.terms import NUMBER, QUESTION_WORDS

#: A rare word shared by the two quotes of a two-document answer earns at most this bonus.
BRIDGE_WEIGHT = 0.5
#: Candidate sentences per document tried in pairs.
PAIR_POOL = 12


def document_of(material: Material) -> str:
    """The document a material comes from (its id, else its name)."""
    return str(material.meta.get("doc_id", "")) or material.document


def per_document(
    best: Candidate,
    materials: list[Material],
    question: Question,
    weigh: Weights,
    context_of: ContextOf | None,
    limit: int,
) -> list[Candidate]:
    """One sentence per document. For two documents the PAIR is chosen that together covers the question
    best, plus a bonus for a rare word they share that the question does not name (the bridge); for more,
    each document's best. A comparison (``limit`` > 2) adds a further point per document that scores close
    to its first."""
    by_doc = _by_document(score_sentences(materials, question, context_of, None), materials)
    docs = sorted(by_doc, key=lambda d: -by_doc[d][0].score)
    if len(docs) != 2:
        return [by_doc[d][0] for d in docs[:limit]]
    pair = _best_pair(by_doc[docs[0]][:PAIR_POOL], by_doc[docs[1]][:PAIR_POOL], question, weigh)
    if pair is None:
        return [best]
    chosen = sorted(pair, key=lambda c: c.material)
    for doc, pick in zip(docs, pair, strict=True):
        extra = _further_point(by_doc[doc], pick)
        if len(chosen) < limit and extra is not None:
            chosen.append(extra)
    return chosen


def _by_document(candidates: list[Candidate], materials: Sequence[Material]) -> dict[str, list[Candidate]]:
    """Candidates grouped by document, each group best first."""
    by_doc: dict[str, list[Candidate]] = {}
    for candidate in sorted(candidates, key=lambda c: (-c.score, c.material, c.index)):
        by_doc.setdefault(document_of(materials[candidate.material]), []).append(candidate)
    return by_doc


def _best_pair(first: list[Candidate], second: list[Candidate], question: Question,
               weigh: Weights) -> tuple[Candidate, Candidate] | None:
    """The pair (one of each document) with the best joint coverage, bridge bonus and scores."""
    tokens: dict[str, set[str]] = {}

    def tokens_of(sentence: str) -> set[str]:
        if sentence not in tokens:
            tokens[sentence] = set(question.tokenize(sentence))
        return tokens[sentence]

    best: tuple[float, Candidate, Candidate] | None = None
    for a, b in itertools.product(first, second):
        score = _pair_score(tokens_of(a.sentence), tokens_of(b.sentence), question, weigh) + (a.score + b.score) * 0.1
        if best is None or score > best[0]:
            best = (score, a, b)
    return None if best is None else (best[1], best[2])


def _pair_score(ta: set[str], tb: set[str], question: Question, weigh: Weights) -> float:
    """Coverage of the two sentences together plus the bridge: the rarest word they share that the question
    does not name (not a question word, not a number)."""
    union = ta | tb
    covered = sum(question.term_weights[c] for c in question.groups if c in union) / question.total
    shared = {t for t in ta & tb if t not in question.term_weights and t not in QUESTION_WORDS and len(t) >= 2
              and not NUMBER.fullmatch(t)}
    bridge = (BRIDGE_WEIGHT * max((weigh(t) for t in shared), default=0.0) / max(question.total, 1.0)
              * len(question.groups))
    return covered + min(bridge, BRIDGE_WEIGHT)


def _further_point(candidates: list[Candidate], pick: Candidate) -> Candidate | None:
    """A second point of the same document that scores close to its first, if any."""
    for extra in candidates:
        if extra is not pick and extra.score >= RELATIVE_KEEP * pick.score and extra.coverage >= NOT_FOUND_COVERAGE:
            return extra
    return None
