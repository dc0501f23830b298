"""The extractive answer: the best sentences of the top materials for a question, or an honest "not found".

Why one entry point over the scoring, pairing and rendering modules: every caller (the extractive answerer,
the model answerer's fallback, the eval harness) asks the same thing with different materials.

Material i is cited as [i+1], the numbering a model prompt would have used. Options of
:func:`extractive_answer`: ``per_document`` (a comparison, or a question naming several
documents) quotes the best sentence of each document, the later ones also matched on words of the earlier
quotes (a contact named in a contract, then that person's task in the minutes); ``compare`` lets each
document add a further point that scores close to its first. ``ignore``: words that only chose the
documents (their names, "对比新旧两版"); they are not asked about. ``missing_subjects``: nouns of the question
that no indexed chunk mentions ("年终奖"): unless the best sentence spells them, the documents do not answer.
``similarity``: a language-neutral scorer (the embedder's cosine) for a question in another language than
the materials.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from officeqa.scripts import detect_language
from prompts.assembler import Material
from retrieval.citations import Tokenize, heading_list
from retrieval.extractive import pairing
from retrieval.extractive.render import ExtractiveAnswer, asks_for_list, render, whole_lists
from retrieval.extractive.scoring import (
    LONG_SENTENCE_CHARS,
    NOT_FOUND_COVERAGE,
    RANK_PRIOR,
    Candidate,
    ContextOf,
    LabelOf,
    Question,
    Weights,
    choose,
    joint_coverage,
    quotable,
    score_sentences,
)
from retrieval.extractive.terms import (
    NUMBER,
    chars_present,
    default_tokenize,
    key_terms,
    ordinal_terms,
    relation_names,
    spelled_in,
    states_relation,
)
from retrieval.messages import text as message

#: Cross-language answers keep a further sentence scoring at least this share of the best one.
CROSS_KEEP = 0.85
#: The least weight a key term counts for (a term in every chunk still names what is asked).
MIN_TERM_WEIGHT = 0.05
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
#: The first materials that must all be in another language for the sentences to be chosen across languages.
CROSS_LANGUAGE_FIRST = 3
#: (question, sentences) -> similarity per sentence, language-neutral (an embedder's cosine).
Similarity = Callable[[str, list[str]], list[float]]


def extractive_answer(
    question: str,
    materials: Sequence[Material],
    *,
    language: str = "zh",
    tokenize: Tokenize | None = None,
    weights: Weights | None = None,
    label_of: LabelOf | None = None,
    context_of: ContextOf | None = None,
    similarity: Similarity | None = None,
    per_document: bool = False,
    compare: bool = False,
    ignore: Sequence[str] = (),
    missing_subjects: Sequence[str] = (),
    max_sentences: int = 3,
    top_materials: int = 5,
    cross_language: bool | None = None,
    unsupported: bool = False,
) -> ExtractiveAnswer:
    """Up to ``max_sentences`` sentences of the first ``top_materials`` materials, best first (see the module).

    ``cross_language``: True when the question's language is one few documents are written in (the caller knows
    the knowledge base); None: when the first :data:`CROSS_LANGUAGE_FIRST` materials are all in another language
    (a Chinese question whose only answer is an English guideline), not because the first one is (an English
    MANIFEST.tsv ranked first by meaning above Chinese passages). ``unsupported``: the question's content
    words are nowhere in the knowledge base: "not found" with nothing attached, no quote, no citation."""
    if not materials:
        return ExtractiveAnswer(text=message("no_hits", language), found=False)
    top = list(materials[:top_materials])
    if unsupported and cross_language is not True:
        # the knowledge base is not mostly in another language (the caller would say True): its words lacking
        # the question's is decisive, whatever language the first passages happen to be in (a MANIFEST.tsv)
        return ExtractiveAnswer(text=message("not_found", language), found=False)
    if cross_language is None:  # every one of the first passages in another language: words cannot meet
        asked_in = detect_language(question)
        cross_language = all(asked_in != detect_language(m.text[:2000]) for m in top[:CROSS_LANGUAGE_FIRST])
    if cross_language:
        return _by_similarity(question, top, language, label_of, similarity, max_sentences)
    tokenize = tokenize or default_tokenize()
    weigh = weights or (lambda term: 1.0)
    asked = _question(question, tokenize, weigh, ignore)
    candidates = sorted(score_sentences(top, asked, context_of, label_of),
                        key=lambda c: (-c.score, c.material, c.index))
    best = candidates[0] if candidates else None
    several = per_document and best is not None and len({pairing.document_of(m) for m in top}) > 1
    together = (2 * max_sentences if compare else 2) if several else 0
    chosen, coverage, said = _evidence(best, top, asked, weigh, context_of, label_of, together)
    lacking = [w for w in missing_subjects if not (spelled_in(w, said, tokenize) or chars_present(w, said))]
    if (best is None or coverage < NOT_FOUND_COVERAGE or lacking or _dated_elsewhere(question, top[best.material])
            or not _relation_stated(question, best, chosen, top, tokenize)):
        return _not_found(language, coverage)
    listing = asks_for_list(question)
    chosen = chosen or choose(candidates, max_sentences)
    return render([message("extract_header", language)], whole_lists(chosen, top) if listing else chosen, top,
                  label_of, found=True, coverage=coverage, listing=listing)


def _dated_elsewhere(question: str, material: Material) -> bool:
    """True when the question names years and the best sentence's passage (text and headings) spells none of them:
    "Who won the 2030 employee of the year award?" is not answered by a passage about another year's award."""
    years = set(_YEAR.findall(question))
    if not years:
        return False
    text = f"{material.text} {' '.join(heading_list(material.meta.get('heading_path')))}"
    return not any(year in text for year in years)


def _relation_stated(question: str, best: Candidate, chosen: list[Candidate], top: list[Material],
                     tokenize: Tokenize) -> bool:
    """True unless the question relates names (``relation_names``) that no quote names together."""
    related = relation_names(question)
    return not related or any(
        states_relation(related, c.sentence, " ".join(heading_list(top[c.material].meta.get("heading_path"))),
                        tokenize)
        for c in [best, *chosen])


def _evidence(best: Candidate | None, top: list[Material], asked: Question, weigh: Weights,
              context_of: ContextOf | None, label_of: LabelOf | None,
              together: int) -> tuple[list[Candidate], float, str]:
    """(quotes chosen across documents, the coverage the answer is judged on, the text it says).

    ``together`` > 0: several documents answer together (a contact named in a contract, that person's task in
    the minutes): up to that many quotes, and whether the documents answer is judged on the quotes taken
    together, not on the best one alone."""
    coverage = best.coverage if best is not None else 0.0
    said = _said(best, top, label_of)
    if best is None or not together:
        return [], coverage, said
    chosen = pairing.per_document(best, top, asked, weigh, context_of, together)
    return chosen, max(coverage, joint_coverage(chosen, asked)), "".join([said, *(c.sentence for c in chosen)])


def _question(question: str, tokenize: Tokenize, weigh: Weights, ignore: Sequence[str]) -> Question:
    """The question's weighted key terms (less the words that only chose documents), numbers and ordinal."""
    ignored = {t for text in ignore for t in tokenize(text)}
    terms = key_terms(question, tokenize)
    term_weights = {t: max(weigh(t), MIN_TERM_WEIGHT) for t in terms if t not in ignored}
    if not term_weights:  # the question only named documents ("总结一下会议纪要"): rank decides
        term_weights = {t: max(weigh(t), MIN_TERM_WEIGHT) for t in terms}
    ordinal = ordinal_terms(question, list(term_weights))
    return Question(term_weights, set(NUMBER.findall(question)), tokenize, ordinal)


def _said(best: Candidate | None, materials: Sequence[Material], label_of: LabelOf | None) -> str:
    """The best sentence with its label: a comment's author counts ("法务" in "批注（周敏（法务部））")."""
    if best is None:
        return ""
    label = label_of(materials[best.material], best.sentence) if label_of is not None else None
    return f"{label or ''}{best.sentence}"


def _not_found(language: str, coverage: float) -> ExtractiveAnswer:
    """"Not found", said with nothing attached: no closest passage, no quote, no citation (issue 36).

    Why not the closest passage any more: under "not found" a quoted sentence with its citation still reads as
    the answer, and it is another thing's (the average age of R&D staff shown "研发人员数量 360", a Mars-base
    question shown a MANIFEST's license line). The caller adds what the knowledge base does cover."""
    return ExtractiveAnswer(text=message("not_found", language), found=False, coverage=round(coverage, 4))


def _by_similarity(
    question: str,
    materials: list[Material],
    language: str,
    label_of: LabelOf | None,
    similarity: Similarity | None,
    limit: int,
) -> ExtractiveAnswer:
    """Cross-language question: words cannot be matched, so a language-neutral similarity (the embedder)
    ranks the sentences of the top materials, with the same rank prior; without one, the top materials'
    first sentences are quoted in rank order."""
    pool = [(mi, si, sentence) for mi, m in enumerate(materials[:3]) for si, sentence in quotable(m)
            if len(sentence) <= LONG_SENTENCE_CHARS]
    if not pool:
        return ExtractiveAnswer(text=message("no_hits", language), found=False)
    chosen = _most_similar(question, pool, similarity, limit) if similarity is not None else _firsts(pool, limit)
    head = [message("extract_header", language), message("cross_language", language)]
    return render(head, chosen, materials, label_of, found=True, coverage=0.0)


def _most_similar(question: str, pool: list[tuple[int, int, str]], similarity: Similarity,
                  limit: int) -> list[Candidate]:
    scores = similarity(question, [sentence for _, _, sentence in pool])
    ranked = sorted(
        (Candidate(score + RANK_PRIOR / 2 / (mi + 1) ** 2, 0.0, mi, si, sentence)
         for (mi, si, sentence), score in zip(pool, scores, strict=True)),
        key=lambda c: -c.score,
    )
    best = ranked[0]
    return [best, *[c for c in ranked[1:limit] if c.score >= CROSS_KEEP * best.score]]


def _firsts(pool: list[tuple[int, int, str]], limit: int) -> list[Candidate]:
    firsts: dict[int, Candidate] = {}
    for mi, si, sentence in pool:
        firsts.setdefault(mi, Candidate(0.0, 0.0, mi, si, sentence))
    return list(firsts.values())[: min(limit, 2)]
