"""The summariser used when no model answers: TextRank over jieba tokens, within a token budget.

Why TextRank: it needs no model and no training, ranks the sentences that share the most
vocabulary with the rest of the text (the ones the text is "about"), and works on Chinese
once sentences are tokenized by jieba (``officeqa.text_tokens.tokenize_for_bm25``: search
mode, stop words dropped). Two adjustments for office documents:

* sentences holding numbers (amounts, percentages, dates) or named items (《文件名》,
  “引号中的名称”, Capitalised Names, 公司/集团/银行…) get a higher prior — where the random
  jump lands, and a factor on the final score, because a figure is rarely repeated by other
  sentences (TextRank alone ranks it low) while a report's summary without its figures is useless;
* the first pass takes the central sentence of every source (chunk, child summary, or a section
  inside a chunk that merged small sections) that fits, ranked within that source, so a document
  summary covers every chapter with its own topic sentence instead of quoting only the longest.

The chosen sentences are returned in their original order, never reworded: the result is
a quotation, and the tree marks it ``extractive``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from officeqa.scripts import CJK_PUNCTUATION, HAN
from officeqa.text_tokens import tokenize_for_bm25
from prompts.assembler import cut_at_sentence_end, split_sentences

TokenCount = Callable[[str], int]

EXTRACTIVE_MODEL = "extractive:textrank-2"
DAMPING = 0.85
ITERATIONS = 50
MIN_SENTENCE_CHARS = 4

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?|[一二三四五六七八九十百千万亿]+(?:元|万|亿|%|个|家|项|人|年)")
_NAMED = re.compile(r"《[^》]{1,40}》|“[^”]{1,30}”|\"[^\"]{1,30}\"|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+|[A-Z]{2,}|"
                    f"[{HAN}]{{2,12}}(?:公司|集团|银行|委员会|部门|中心|研究院|大学|协会|事务所)")
_CJK_END = re.compile(f"[{CJK_PUNCTUATION}{HAN}]$")


_END_PUNCT = tuple("。！？；：.!?;:…")


def _is_heading_line(line: str) -> bool:
    """A short line without end punctuation ("3. Information security", "第三章 风险"): a section's title."""
    line = line.strip()
    return 0 < len(line) <= 40 and len(line.split()) <= 8 and not line.endswith(_END_PUNCT)


def _sections(text: str) -> list[str]:
    """``text`` cut at its heading lines (dropped): a chunk that merged small sections is one source each."""
    parts: list[list[str]] = [[]]
    lines = [line for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and _is_heading_line(line):
            if parts[-1]:
                parts.append([])
            continue
        parts[-1].append(line)
    return ["\n".join(p) for p in parts if p]


def _sentences(text: str) -> list[str]:
    out = []
    for piece in split_sentences(text):
        sentence = " ".join(piece.split())
        if len(sentence) >= MIN_SENTENCE_CHARS:
            out.append(sentence)
    return out


@lru_cache(maxsize=32768)
def _sentence_terms(sentence: str) -> frozenset[str]:
    """A sentence's jieba terms, cached: a leaf's chosen sentences are ranked again by its parents."""
    return frozenset(tokenize_for_bm25(sentence))


def _similarity(tokens: list[frozenset[str]]) -> np.ndarray:
    """TextRank's edge weight: shared words over log lengths (Mihalcea & Tarau 2004)."""
    n = len(tokens)
    weights = np.zeros((n, n), dtype=np.float64)
    logs = [math.log(len(t) + 1.0) for t in tokens]
    for i in range(n):
        if not tokens[i]:
            continue
        for j in range(i + 1, n):
            shared = len(tokens[i] & tokens[j])
            if shared:
                weights[i, j] = weights[j, i] = shared / (logs[i] + logs[j])
    return weights


def _rank(weights: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Personalised PageRank by power iteration (the prior is where a random jump lands)."""
    n = weights.shape[0]
    out_sum = weights.sum(axis=1)
    transition = np.divide(weights, out_sum[:, None], out=np.zeros_like(weights), where=out_sum[:, None] > 0)
    jump = prior / prior.sum()
    scores = np.full(n, 1.0 / n)
    for _ in range(ITERATIONS):
        dangling = scores[out_sum == 0].sum()
        updated = (1 - DAMPING) * jump + DAMPING * (scores @ transition + dangling * jump)
        if np.abs(updated - scores).sum() < 1e-9:
            converged: np.ndarray = updated
            return converged
        scores = updated
    return scores


def _prior(sentence: str, position: int) -> float:
    weight = 1.0 + 0.5 * min(3, len(_NUMBER.findall(sentence)))  # each figure counts, up to three
    if _NAMED.search(sentence):
        weight += 0.3
    return weight / (1.0 + 0.02 * position)  # a slight lead bias: openings state what a text is about


def _join(sentences: Sequence[str]) -> str:
    out = ""
    for sentence in sentences:
        if out and not (_CJK_END.search(out) and _CJK_END.match(sentence[:1] or " ")):
            out += " "
        out += sentence
    return out


def textrank_summary(sources: Sequence[str], max_tokens: int, count: TokenCount, skip: Sequence[str] = ()) -> str:
    """The best sentences of ``sources`` (chunks, or child summaries) within ``max_tokens``, in source order.

    Lines equal to one of ``skip`` (the headings a chunk repeats at its start, the document
    title) are dropped: they are labels, not content. Sources that then fit together are
    returned whole (joined by blank lines): quoting everything is the best summary of a short text.
    """
    skipped = {" ".join(s.split()) for s in skip if s.strip()}
    if skipped:
        sources = ["\n".join(line for line in s.splitlines() if " ".join(line.split()) not in skipped) for s in sources]
    sources = [s.strip() for s in sources if s and s.strip()]
    if not sources:
        return ""
    whole = "\n\n".join(sources)
    if count(whole) <= max_tokens:
        return whole
    sources = [part for source in sources for part in _sections(source)]
    sentences: list[str] = []
    owner: list[int] = []
    seen: set[str] = set()
    for index, source in enumerate(sources):
        for sentence in _sentences(source):
            if sentence not in seen:
                seen.add(sentence)
                sentences.append(sentence)
                owner.append(index)
    if not sentences:
        return cut_at_sentence_end(whole, lambda t: count(t) <= max_tokens)[0]
    tokens = [_sentence_terms(s) for s in sentences]
    prior = np.array([_prior(s, i) for i, s in enumerate(sentences)])
    similarity = _similarity(tokens)
    scores = _rank(similarity, prior) * prior  # the prior also scales: a figure rarely repeats elsewhere
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    costs = [count(s) + 1 for s in sentences]
    chosen: set[int] = set()
    used = 0
    covered: set[int] = set()
    # pass 1: each source's own central sentence (ranked within the source: a section's topic sentence, not the
    # sentence that repeats words of the other sections), sources in the order of their best global score
    local = np.zeros(len(sentences))
    for part in set(owner):
        members = [i for i, o in enumerate(owner) if o == part]
        sub = similarity[np.ix_(members, members)]
        local[members] = _rank(sub, prior[members]) * prior[members]
    for i in order:
        part = owner[i]
        if part in covered:
            continue
        pick = max((j for j in range(len(sentences)) if owner[j] == part), key=lambda j: (local[j], -j))
        if used + costs[pick] <= max_tokens:
            chosen.add(pick)
            covered.add(part)
            used += costs[pick]
    for i in order:  # pass 2: the rest by rank while they fit
        if i not in chosen and used + costs[i] <= max_tokens:
            chosen.add(i)
            used += costs[i]
    if not chosen:  # not even one sentence fits: the top one, cut
        return cut_at_sentence_end(sentences[order[0]], lambda t: count(t) <= max_tokens)[0]
    return _join([sentences[i] for i in sorted(chosen)])


__all__ = ["EXTRACTIVE_MODEL", "textrank_summary"]
