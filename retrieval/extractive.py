"""Degraded answers: the sentences of the top chunks that cover the question, quoted with their citations.

Why: when no model can answer (Ollama down, model not pulled, a timeout), the product must
still be useful, and quoting the documents is the honest way — every sentence is the
documents' own text with its source. How a sentence is chosen:

* The question's key terms are its jieba tokens (stop words and question words dropped),
  each weighted by its idf in the knowledge base when the caller supplies weights, so a rare
  word ("违约金") counts more than a common one ("公司"). Numbers in the question must be met.
* A sentence's score is the weighted share of key terms it covers; a term found only in the
  heading path of its chunk counts 0.8 ("第十二条 违约责任" covers "违约责任" for every
  sentence of that clause); a Chinese key term that the sentence spells differently
  ("年假" / "年休假") is credited by its characters, at 0.6.
* Retrieval rank matters: the top chunk's sentences get a prior that fades fast with rank, so the
  answer starts from the best-ranked evidence instead of a lower chunk that repeats words.
* Questions and heading lines are never quoted; a sentence after a question the document asks
  itself (FAQ) gets a bonus; a table chunk's bare header line is skipped (its row lines carry
  the same words and the values).
* When no sentence covers enough of the question, the answer says plainly that the documents do
  not answer it, and shows the closest passage as such. When the question's language differs
  from the top material's, token coverage cannot judge, so the best-ranked sentences are quoted
  with a note instead.
* Word comments and speaker notes are shown with their label and author ("批注（张三）：…") when
  the caller supplies ``label_of``.

Pure and fast: no model, no index access; every fixed text comes from ``retrieval.messages``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from prompts.assembler import Material, split_sentences
from prompts.language import detect_language
from retrieval.citations import Citation, Tokenize, citation_from_metadata, heading_list
from retrieval.messages import text as message

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

TABLE_KINDS = ("table", "oversize_table")
TABLE_HEADER_SEP = " | "

#: Words that ask rather than name: never key terms.
QUESTION_WORDS = frozenset(
    """什么 多少 哪些 哪个 哪家 哪里 哪位 哪天 几 几个 几天 是否 是不是 怎么 怎样 如何 为什么 请问 请 告诉 一下
    文档 文件 资料 中 里 的 了 吗 呢 是 有 有没有 规定 提到 说 多久 多长 何时 什么时候 谁
    what which who whom whose when where why how many much does do did is are was were the a an of in on
    to for about according document documents file say says said tell me please there""".split()  # noqa: SIM905
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: A short line without end punctuation that is numbered like a heading ("第三条 违约责任", "2.1 Scope").
_HEADING_LINE = re.compile(
    r"^(?:第[一二三四五六七八九十百零\d]{1,4}[章节条款部分篇]|[一二三四五六七八九十]{1,3}[、.．]|"
    r"\d{1,2}(?:\.\d{1,2}){0,3}[、.．\s]|[（(][一二三四五六七八九十\d]{1,3}[）)]|chapter\s+\d|section\s+\d)",
    re.IGNORECASE,
)
_END_PUNCT = tuple("。！？；：.!?;:")

Weights = Callable[[str], float]
LabelOf = Callable[[Material, str], str | None]


def default_tokenize() -> Tokenize:
    """jieba tokens as BM25 sees them, or character bigrams when the tokenizer is unavailable."""
    try:
        from officeqa.text_tokens import tokenize_for_bm25
    except ImportError:  # pragma: no cover - the module ships with the product
        return char_bigrams
    return tokenize_for_bm25


def char_bigrams(text: str) -> list[str]:
    """Overlapping character pairs of the letters and digits (lower-cased); a language-neutral fallback."""
    chars = [ch for ch in text.lower() if ch.isalnum()]
    return [a + b for a, b in itertools.pairwise(chars)]


@dataclass(slots=True)
class ExtractiveAnswer:
    """Quoted sentences, each tagged [n], and the citations they point to."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    sentences: list[tuple[int, str, float]] = field(default_factory=list)  # (n, sentence, score)
    found: bool = True
    coverage: float = 0.0


@dataclass(slots=True)
class _Candidate:
    score: float
    coverage: float
    material: int
    index: int
    sentence: str


def key_terms(question: str, tokenize: Tokenize) -> list[str]:
    """The question's tokens that name something (question words and stop words dropped), in order."""
    return list(dict.fromkeys(t for t in tokenize(question) if t not in QUESTION_WORDS and t.strip()))


def extractive_answer(
    question: str,
    materials: Sequence[Material],
    *,
    language: str = "zh",
    tokenize: Tokenize | None = None,
    weights: Weights | None = None,
    label_of: LabelOf | None = None,
    max_sentences: int = 3,
    top_materials: int = 5,
) -> ExtractiveAnswer:
    """Up to ``max_sentences`` sentences from the first ``top_materials`` materials, best first.

    Material i is cited as [i+1], the numbering a model prompt would have used.
    """
    tokenize = tokenize or default_tokenize()
    if not materials:
        return ExtractiveAnswer(text=message("no_hits", language), found=False)
    terms = key_terms(question, tokenize)
    weigh = weights or (lambda term: 1.0)
    term_weights = {t: max(weigh(t), 0.05) for t in terms}
    numbers = set(_NUMBER.findall(question))
    candidates = _score(materials[:top_materials], term_weights, numbers, tokenize)
    cross_language = _cross_language(question, materials[0].text)
    if cross_language:
        return _by_rank(materials[:top_materials], candidates, language, label_of, max_sentences)
    candidates.sort(key=lambda c: (-c.score, c.material, c.index))
    best = candidates[0] if candidates else None
    if best is None or best.coverage < NOT_FOUND_COVERAGE:
        closest = [best] if best is not None and best.coverage > 0 else []
        head = [message("not_found", language)]
        if closest:
            head.append(message("closest", language))
        return _render(head, closest, materials, label_of, found=False, coverage=best.coverage if best else 0.0)
    chosen = _choose(candidates, term_weights, max_sentences)
    return _render([message("extract_header", language)], chosen, materials, label_of, found=True,
                   coverage=best.coverage)


def _score(
    materials: Sequence[Material], term_weights: dict[str, float], numbers: set[str], tokenize: Tokenize
) -> list[_Candidate]:
    total = sum(term_weights.values()) or 1.0
    out: list[_Candidate] = []
    seen: set[str] = set()
    for mi, material in enumerate(materials):
        headings = heading_list(material.meta.get("heading_path"))
        heading_set = {_clean(h) for h in headings}
        heading_tokens = set(tokenize(" ".join(headings)))
        outer_tokens = set(tokenize(" ".join(headings[:-1])))
        is_table = str(material.meta.get("kind", "")) in TABLE_KINDS
        after_question = False
        for si, raw in enumerate(split_sentences(material.text)):
            sentence = _clean(raw)
            if looks_like_heading(sentence):
                # a chunk that merged small sections: the sentences below this line belong to it
                heading_tokens = outer_tokens | set(tokenize(sentence))
                continue
            if len(sentence) < MIN_SENTENCE_CHARS or sentence in heading_set or sentence in seen:
                continue
            if is_table and TABLE_HEADER_SEP in sentence:
                continue
            tokens = set(tokenize(sentence))
            covered = {t for t in term_weights if t in tokens}
            if sentence.endswith(("？", "?")):  # a question in the text is not an answer
                after_question = sum(term_weights[t] for t in covered) * 2 >= total
                continue
            partial = 0.0
            for term in term_weights:
                if term in covered:
                    continue
                credit = max(CHAR_CREDIT if _chars_present(term, sentence) else 0.0,
                             HEADING_CREDIT if term in heading_tokens else 0.0)
                partial += credit * term_weights[term]
            coverage = (sum(term_weights[t] for t in covered) + partial) / total
            if numbers and not numbers & set(_NUMBER.findall(sentence)):
                coverage *= 0.8
            if coverage <= 0 and not (after_question and mi == 0):
                after_question = False
                continue
            score = coverage + RANK_PRIOR / (mi + 1) ** 2
            if after_question:
                score += FAQ_BONUS
            if covered and next(iter(tokenize(sentence)), None) in covered:
                score += LEAD_BONUS
            if len(sentence) > LONG_SENTENCE_CHARS:
                score *= 0.9
            seen.add(sentence)
            out.append(_Candidate(score, coverage, mi, si, sentence))
            after_question = False
    return out


def looks_like_heading(line: str) -> bool:
    """A short, numbered line without end punctuation: a heading inside a chunk's text, never an answer."""
    return len(line) <= 40 and not line.endswith(_END_PUNCT) and _HEADING_LINE.match(line) is not None


def _chars_present(term: str, sentence: str) -> bool:
    """A Chinese term of 2+ characters whose characters all occur, in order, within a short span."""
    if len(term) < 2 or not all("\u4e00" <= ch <= "\u9fff" for ch in term):
        return False
    start = sentence.find(term[0])
    while start != -1:
        position, ok = start, True
        for ch in term[1:]:
            position = sentence.find(ch, position + 1, start + 2 * len(term) + 1)
            if position == -1:
                ok = False
                break
        if ok:
            return True
        start = sentence.find(term[0], start + 1)
    return False


def _choose(candidates: list[_Candidate], term_weights: dict[str, float], limit: int) -> list[_Candidate]:
    """The best sentence, then others that score close to it (they add evidence, not repetition)."""
    best = candidates[0]
    chosen = [best]
    for candidate in candidates[1:]:
        if len(chosen) >= limit:
            break
        if candidate.score >= RELATIVE_KEEP * best.score and candidate.coverage >= NOT_FOUND_COVERAGE:
            chosen.append(candidate)
    return chosen


def _by_rank(
    materials: Sequence[Material],
    candidates: list[_Candidate],
    language: str,
    label_of: LabelOf | None,
    limit: int,
) -> ExtractiveAnswer:
    """Cross-language question: the top-ranked materials' best sentences, in rank order."""
    picked: list[_Candidate] = []
    for mi in range(len(materials)):
        own = sorted((c for c in candidates if c.material == mi), key=lambda c: -c.score)
        if own:
            picked.append(own[0])
        else:
            first = next((s for s in (_clean(x) for x in split_sentences(materials[mi].text))
                          if len(s) >= MIN_SENTENCE_CHARS and TABLE_HEADER_SEP not in s), None)
            if first:
                picked.append(_Candidate(0.0, 0.0, mi, 0, first))
        if len(picked) >= min(limit, 2):
            break
    head = [message("extract_header", language), message("cross_language", language)]
    return _render(head, picked, materials, label_of, found=True, coverage=0.0)


def _render(
    head: list[str],
    chosen: list[_Candidate],
    materials: Sequence[Material],
    label_of: LabelOf | None,
    *,
    found: bool,
    coverage: float,
) -> ExtractiveAnswer:
    lines = list(head)
    citations: dict[int, Citation] = {}
    sentences: list[tuple[int, str, float]] = []
    for candidate in chosen:
        n = candidate.material + 1
        material = materials[candidate.material]
        sentence = _with_continuation(candidate.sentence, material.text, candidate.index)
        label = label_of(material, candidate.sentence) if label_of is not None else None
        shown = f"{label}：{sentence}" if label else sentence
        lines.append(f"- {shown} [{n}]")
        sentences.append((n, sentence, round(candidate.score, 4)))
        if n not in citations:
            citation = citation_from_metadata(n, material.chunk_id, str(material.meta.get("doc_id", "")),
                                              material.meta, quote=candidate.sentence)
            citation.label_note = label or ""
            citations[n] = citation
    return ExtractiveAnswer(
        text="\n".join(lines),
        citations=[citations[n] for n in sorted(citations)],
        sentences=sentences,
        found=found,
        coverage=round(coverage, 4),
    )


def _cross_language(question: str, top_text: str) -> bool:
    return detect_language(question) != detect_language(top_text[:2000])


def _clean(sentence: str) -> str:
    """One line, markdown emphasis and heading marks removed."""
    return re.sub(r"\s+", " ", re.sub(r"\*\*|__|#", " ", sentence)).strip()


def _with_continuation(sentence: str, text: str, index: int, max_items: int = 4, max_chars: int = 240) -> str:
    """A sentence that announces a list ("…由三个主要元素组成：") keeps the items that follow it."""
    if not sentence.endswith(("：", ":")):
        return sentence
    parts = [sentence]
    following = (item for raw in split_sentences(text)[index + 1 :] if (item := _clean(raw)))
    for item in following:
        if len(parts) > max_items or sum(len(p) for p in parts) + len(item) > max_chars:
            break
        parts.append(item)
    return " ".join(parts)
