"""What the stored documents add to quoting: term weights, comment labels, table lead-ins, precise citations.

Why apart from the knowledge base's other helpers: the extractive answer and the model's
materials both need to know, for a sentence, which block of the stored document it comes from
(its section, page, whether it is a Word comment); a :class:`~retrieval.evidence.QuoteLocator`
per document answers that, and building one costs a pass over the document, so the last few
are kept across questions.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from officeqa.scripts import detect_script, is_han
from officeqa.text_tokens import subject_words, tokenize_for_bm25
from prompts.assembler import Material
from retrieval.citations import Citation
from retrieval.dense_support import dense_threshold, densely_supported
from retrieval.evidence import QuoteLocator
from retrieval.extractive import QUESTION_WORDS, ExtractiveAnswer, extractive_answer
from retrieval.extractive.terms import answer_type_words, question_verb, unsupported
from retrieval.fusion import SCRIPT_PRESENT

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase

LOCATOR_CACHE = 32
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
#: Weight of a one-character Chinese question word (去, 报, 能) against its idf.
SINGLE_CHARACTER_WEIGHT = 0.3


def question_years(question: str) -> list[str]:
    """The years a question names ("2029年度", "in 2030"): like its nouns, the documents must mention them for it
    to be answered; a knowledge base that nowhere spells "2030" cannot say who won the 2030 award."""
    return sorted(set(_YEAR.findall(question)))


def asked_subjects(question: str) -> list[str]:
    """The nouns and names a question asks about, which the documents must mention for it to be answered.

    Not its question words ("what" is tagged a noun, and a knowledge base whose chunks never spell it would
    refuse every "What did …" question), nor the bare verb of an English question ("What did IBM develop
    …": the answer says "developed"; "Who did IBM sell … to": it says "sold")."""
    verb = question_verb(question)
    return [w for w in subject_words(question) if w not in QUESTION_WORDS and w != verb]


class Quoting:
    """Quote helpers over one knowledge base (its BM25 statistics, embedder and stored documents)."""

    def __init__(self, kb: KnowledgeBase, batch_size: int) -> None:
        self.kb = kb
        self.batch_size = batch_size
        self._locators: OrderedDict[str, QuoteLocator] = OrderedDict()

    def extract(self, question: str, found: Sequence[Material], language: str, *, per_document: bool,
                compare: bool, ignore: Sequence[str]) -> ExtractiveAnswer:
        """The no-model answer, knowing the knowledge base: which question words it lacks, their weights."""
        ignored_words = {t for text in ignore for t in tokenize_for_bm25(text)}
        retrieved = "".join(m.text for m in found).lower()
        subjects = [w for w in asked_subjects(question) if w not in ignored_words]
        typed = answer_type_words(question, subjects)
        missing = [w for w in [*subjects, *question_years(question)] if w not in typed and w not in retrieved
                   and not self.kb.bm25.mentions(w)]
        if missing and densely_supported(question, found, self.similarity, dense_threshold(self.kb.embedder.name)):
            missing = []  # a paraphrase: a same-language chunk means what the question asks, in other words
        return extractive_answer(
            question, found, language=language, tokenize=tokenize_for_bm25, weights=self.weight,
            label_of=lambda material, sentence: self.label(material, sentence, language),
            context_of=self.context, similarity=self.similarity, per_document=per_document,
            compare=compare, ignore=ignore, missing_subjects=missing,
            cross_language=self.cross_language(question), unsupported=unsupported(subjects, missing),
        )

    def cross_language(self, question: str) -> bool | None:
        """True when few of the knowledge base's words are in the question's script (``SCRIPT_PRESENT``, the
        fusion's own threshold): sentences are chosen by meaning across languages, with the remark saying so.
        Otherwise None: the materials decide (``extractive_answer``), so a Chinese question over a mostly Chinese
        knowledge base is judged by its words even when the first passage is English (a MANIFEST.tsv)."""
        script = detect_script(question)
        shares = self.kb.bm25.script_shares()
        if script in ("zh", "en") and shares and shares.get(script, 0.0) < SCRIPT_PRESENT:
            return True
        return None

    def weight(self, term: str) -> float:
        """How much a question word matters: its idf in this knowledge base.

        A word no chunk contains gets half the maximum (it may be the subject the documents lack,
        "年终奖", or a phrasing they do not use, "每晚"); a lone Chinese character weighs little.
        """
        bm25 = self.kb.bm25
        weight = bm25.idf(term) if bm25.document_frequency(term) else 0.5 * bm25.idf(term)
        if len(term) == 1 and is_han(term):
            weight *= SINGLE_CHARACTER_WEIGHT
        return weight

    def similarity(self, question: str, sentences: list[str]) -> list[float]:
        """Cosine similarity in the embedder's space (multilingual: bridges Chinese and English)."""
        embedder = self.kb.embedder
        query = embedder.embed_query(question)
        matrix = embedder.embed_documents(sentences, batch_size=self.batch_size)
        return [float(x) for x in matrix @ query]

    def context(self, material: Material) -> str:
        """A table chunk's lead-in (the paragraph before its table, and its caption), from the stored document."""
        if str(material.meta.get("kind", "")) not in ("table", "oversize_table"):
            return ""
        locator = self.locator(str(material.meta.get("doc_id", "")))
        return locator.table_context(material.text) if locator is not None else ""

    def annotate(self, material: Material, language: str) -> Material:
        """The material with its comments and notes labelled, for the model."""
        locator = self.locator(str(material.meta.get("doc_id", "")))
        if locator is None:
            return material
        text = locator.annotate(material.text, language)
        return material if text == material.text else replace(material, text=text)

    def label(self, material: Material, sentence: str, language: str) -> str | None:
        locator = self.locator(str(material.meta.get("doc_id", "")))
        return locator.label(sentence, language) if locator is not None else None

    def refine(self, citations: Sequence[Citation]) -> None:
        """Each quote's own section and page, from the stored document (a chunk may span several)."""
        for citation in citations:
            locator = self.locator(citation.doc_id)
            if locator is not None:
                locator.refine(citation)

    def locator(self, doc_id: str) -> QuoteLocator | None:
        locator = self._locators.get(doc_id)
        if locator is None:
            parsed = self.kb.documents.get(doc_id) if doc_id else None
            if parsed is None:
                return None
            locator = self._locators[doc_id] = QuoteLocator(parsed)
            while len(self._locators) > LOCATOR_CACHE:
                self._locators.popitem(last=False)
        return locator


__all__ = ["Quoting"]
