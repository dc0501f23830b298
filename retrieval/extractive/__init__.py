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
* An English word counts by its Snowball stem too ("develop" is covered by "developed"). The question's nouns
  that no chunk of the knowledge base mentions make it unanswerable; its question words ("what") and the bare
  verb after its auxiliary ("What did IBM *develop*", "Who did IBM *sell* … to": the answer says "sold") are not
  such nouns (``retrieval.quoting.asked_subjects``).
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
Modules: ``terms`` (what the question asks), ``scoring`` (each sentence), ``pairing`` (several
documents together), ``render`` (the answer text and citations), ``answer`` (the entry point).
"""

from retrieval.extractive.answer import Similarity, extractive_answer
from retrieval.extractive.render import ExtractiveAnswer, asks_for_list
from retrieval.extractive.scoring import ContextOf, LabelOf, Weights, looks_like_heading
from retrieval.extractive.terms import (
    QUESTION_WORDS,
    char_bigrams,
    chinese_number,
    concepts,
    default_tokenize,
    key_terms,
    ordinal_terms,
    squash_spaces,
)

__all__ = [
    "QUESTION_WORDS",
    "ContextOf",
    "ExtractiveAnswer",
    "LabelOf",
    "Similarity",
    "Weights",
    "asks_for_list",
    "char_bigrams",
    "chinese_number",
    "concepts",
    "default_tokenize",
    "extractive_answer",
    "key_terms",
    "looks_like_heading",
    "ordinal_terms",
    "squash_spaces",
]
