"""Chinese/English tokens for BM25: jieba search mode, folded (full width, Traditional), lower-cased, stop words
dropped.

Search mode (``cut_for_search``) emits a long word and its shorter dictionary words
("中华人民共和国" -> "中华", "华人", "人民", "共和", "共和国", "中华人民共和国"), so a query
for a part of a compound still matches. NFKC folds full-width letters and digits
("ＡＢＣ１２３" -> "abc123" after lower-casing) so both spellings meet in the index.

The BM25 index's own terms (:func:`bm25_terms`) add one step: English words are reduced to their
Snowball (Porter2) stem, so "revenues" meets "revenue" and "running" meets "runs", as in every
mainstream BM25 (Lucene's English analyzer, Pyserini, bm25s). Full-corpus SciFact nDCG@10 0.668 ->
0.692 with BM25 alone (``bench/results/bm25_stemming.md``). The index and its queries stem; sentence
overlap and the rule tables compare words as written (:func:`tokenize_for_bm25`), and the extractive quotes
credit an English question word by its stem as well (:func:`stem_term`: "develop" in "developed").
"""

from __future__ import annotations

import logging
import unicodedata
from functools import cache, lru_cache
from typing import Any

from officeqa.chinese import to_simplified
from officeqa.words import word_set


@cache
def _jieba() -> Any:
    """jieba's default tokenizer, dictionary loaded once; its start-up chatter goes to stderr, so quiet it."""
    import jieba

    logging.getLogger("jieba").setLevel(logging.WARNING)
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def stopwords() -> frozenset[str]:
    """The shipped Chinese + English stop list (``officeqa/assets/words/stop_words.txt``)."""
    return word_set("stop_words")


def _is_punctuation_or_space(token: str) -> bool:
    """True when every character is whitespace, punctuation or a symbol (no letter, digit or ideograph)."""
    return all(ch.isspace() or unicodedata.category(ch)[0] in "PSZC" for ch in token)


def normalise_text(text: str) -> str:
    """Full-width folded (NFKC), Traditional Chinese as Simplified (OpenCC) and lower-cased: the form both
    documents and queries are tokenized in, so "研發" in a Hong Kong report meets "研发" in a question."""
    return to_simplified(unicodedata.normalize("NFKC", text)).lower()


def tokenize_for_bm25(text: str) -> list[str]:
    """BM25 terms of ``text``, in order, repeats kept (term frequency matters)."""
    stop = stopwords()
    tokens: list[str] = []
    for token in _jieba().cut_for_search(normalise_text(text)):
        token = token.strip()
        if token and token not in stop and not _is_punctuation_or_space(token):
            tokens.append(token)
    return tokens


#: What :func:`bm25_terms` produces; stored with every BM25 index (snapshot meta, PostgreSQL schema version),
#: so an index built by an older tokenizer is re-termed on open (indexing/bm25_store.py,
#: indexing/postgres/bm25_restem.py). 1: jieba tokens; 2: jieba tokens, English words stemmed; 3: Traditional
#: Chinese folded to Simplified first.
BM25_TOKENIZER_VERSION = 3
_MAX_STEMMED = 64  # longer runs of letters are not words (base64, hashes): kept as they are


@cache
def _stemmer() -> Any:
    """PyStemmer's Snowball English stemmer (C; the one bm25s uses)."""
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=262_144)
def stem_term(token: str) -> str:
    """The BM25 term of one token: an English word (ASCII letters only) stemmed, anything else unchanged.

    Chinese, digits, mixed tokens ("covid19", "a1b2") and runs of letters over 64 long stay as they are.
    Cached: a corpus repeats its words, and a query's words are the corpus's.
    """
    if token.isascii() and token.isalpha() and len(token) <= _MAX_STEMMED:
        return str(_stemmer().stemWord(token))
    return token


def upgrade_term(term: str) -> str:
    """A term of an older BM25 index in the current tokenizer's form: Traditional folded, English stemmed (the
    re-terming of ``indexing/bm25_store.py`` and ``indexing/postgres/bm25_restem.py``)."""
    return stem_term(to_simplified(term))


def bm25_terms(text: str) -> list[str]:
    """The BM25 index's terms of ``text``: :func:`tokenize_for_bm25` with English words stemmed."""
    return [stem_term(token) for token in tokenize_for_bm25(text)]


#: Nouns that name parts of a document or the asking itself (or the noun jieba cuts out of an interrogative:
#: 什么时候 gives 时候, 什么地方 地方, 哪国人 国人), never the subject asked about. Interrogatives themselves
#: (哪里, 多久, 哪一年) are tagged r/m/d and never reach this list.
_NOT_SUBJECTS = frozenset(
    """批注 备注 注释 脚注 附件 条款 章节 表格 文档 文件 内容 意见 规定 要求 问题 情况 时间 多长时间 多少钱
    时候 地方 国人
    幻灯片 演讲者 document documents comment comments notes file""".split()  # noqa: SIM905
)
#: Parts of speech that name a subject (jieba/ICTCLAS tags): nouns, names, places, organisations, nominal verbs.
_SUBJECT_FLAGS = ("n", "nr", "ns", "nt", "nz", "vn", "nrt", "nrfg", "eng")


def subject_words(text: str) -> list[str]:
    """The nouns and names of ``text`` (2+ characters; English words of 4+ letters), folded like BM25 terms.

    Answers use them to notice a question whose subject the documents never mention ("年终奖").
    """
    from jieba import posseg

    _jieba()
    out: list[str] = []
    # HMM off: only dictionary words. jieba's HMM invents words across a name and its particle ("矢井田瞳于"
    # gives "瞳于"), and an invented word that no document spells would make a present subject look missing.
    for pair in posseg.cut(normalise_text(text), HMM=False):
        word, flag = pair.word.strip(), pair.flag
        if flag not in _SUBJECT_FLAGS or word in stopwords() or word in _NOT_SUBJECTS:
            continue
        if (word.isascii() and len(word) >= 4) or (not word.isascii() and len(word) >= 2):
            out.append(word)
    return list(dict.fromkeys(out))
