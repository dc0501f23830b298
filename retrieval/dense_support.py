"""A second support signal for "not found": the best retrieved chunk's cosine, against a threshold per embedder.

Why: :func:`retrieval.extractive.terms.unsupported` reads words only, so an answerable question worded unlike its
passage (a paraphrase, a synonym) looks like one nothing answers. When the embedder can tell meaning from chance,
a same-language chunk whose cosine with the question clears the embedder's threshold keeps the question
answerable. Same language only: ``bench/results/cross_notfound.md`` found no cosine that separates cross-language
unanswerable questions from answerable ones (those go through the cross-language path, not this one).

The thresholds (:data:`DENSE_SUPPORT`) were measured on the tuning half of ``bench/bench_not_found.py``
(``--embedder use --half tuning``; see ``bench/results/not_found.md``): with USE multilingual v3, the best
cosine of the 25 tuning probes (questions nothing answers) is at most 0.379, 8 of the 27 answerable controls
score at least 0.45; 0.45 leaves a margin of 0.07 above every tuning probe, since a wrong answer costs more than
a refusal. The hash embedder (character n-grams) has no
threshold: its English probes score 0.63-0.80 while Chinese controls score 0.11-0.66, nothing separates them.
An embedder not in the table gets no dense support: the lexical test decides alone, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from officeqa.scripts import detect_language
from prompts.assembler import Material

#: embedder name -> the lowest best-chunk cosine that counts as support (measured, see the module docstring).
DENSE_SUPPORT: dict[str, float] = {"use-multilingual-v3": 0.45}
#: how many of the retrieved chunks are compared with the question.
SUPPORT_CHUNKS = 5

#: (question, texts) -> cosine per text, in the knowledge base's embedder space.
Similarity = Callable[[str, list[str]], list[float]]


def dense_threshold(embedder_name: str) -> float | None:
    """The embedder's support threshold, or None when none was measured for it."""
    return DENSE_SUPPORT.get(embedder_name)


def densely_supported(question: str, found: Sequence[Material], similarity: Similarity,
                      threshold: float | None) -> bool:
    """True when a retrieved chunk in the question's language is at least ``threshold`` similar to it.

    Other-language chunks are left out: a cross-language cosine is no evidence either way (see the module)."""
    if threshold is None:
        return False
    asked_in = detect_language(question)
    texts = [m.text for m in found[:SUPPORT_CHUNKS] if detect_language(m.text[:2000]) == asked_in]
    return bool(texts) and max(similarity(question, texts)) >= threshold
