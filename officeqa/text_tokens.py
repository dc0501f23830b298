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
import re
import unicodedata
from collections.abc import Iterator
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


#: jieba's own patterns (``jieba.re_han_default``, ``jieba.re_skip_default``, ``jieba.finalseg.re_skip``)
_JIEBA_BLOCK = re.compile("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._%\\-]+)")
_JIEBA_SKIP = re.compile("(\r\n|\\s)")
_JIEBA_LATIN_RUN = re.compile("([a-zA-Z0-9]+(?:\\.\\d+)?%?)")
_JIEBA_HAN = re.compile("[\u4e00-\u9fd5]")
#: jieba's dictionary words made only of a block's Latin characters, lower-cased (its dict.txt: c#, c++, AT&T)
_JIEBA_LATIN_WORDS = ("c#", "c++", "at&t")


def _without_dictionary(text: str) -> bool:
    """Would jieba cut ``text`` (normalised) without consulting its dictionary? Yes when it holds no Chinese
    character of jieba's range and none of its Latin dictionary words."""
    return _JIEBA_HAN.search(text) is None and not any(word in text for word in _JIEBA_LATIN_WORDS)


def _cut_latin(text: str) -> Iterator[str]:
    """``jieba.cut_for_search(text)`` for text :func:`_without_dictionary` accepts, without loading jieba.

    Why: jieba's dictionary takes ~1 CPU-second to load and its cut a Python pass per character, while text with
    no Chinese (an English question, an English report's sentences) never reaches the dictionary: each block of
    ``[a-zA-Z0-9+#&._%-]`` goes to its HMM fallback, which splits it into runs of letters and digits (a decimal
    and a percent sign kept on the number), and every other character is its own token, whitespace runs
    aside; the search mode adds no sub-word (no dictionary 2- or 3-gram can occur). The same steps as jieba's
    ``Tokenizer.cut``/``__cut_DAG``/``finalseg.cut``; ``tests/unit/officeqa/test_text_tokens_latin.py`` checks the
    output against jieba's own over real documents."""
    for block in _JIEBA_BLOCK.split(text):
        if not block:
            continue
        if _JIEBA_BLOCK.match(block):
            if len(block) == 1:
                yield block
            else:
                yield from (part for part in _JIEBA_LATIN_RUN.split(block) if part)
            continue
        for part in _JIEBA_SKIP.split(block):
            if _JIEBA_SKIP.match(part):
                yield part
            else:
                yield from part


def cut_for_search(normalised: str) -> Iterator[str]:
    """jieba's search-mode cut of already normalised text (:func:`normalise_text`); jieba loads only for text that
    needs its dictionary."""
    return _cut_latin(normalised) if _without_dictionary(normalised) else _jieba().cut_for_search(normalised)


#: texts up to this long (a sentence, a question, a heading) have their tokens cached; chunks being indexed do not
_CACHED_CHARS = 400


def tokenize_for_bm25(text: str) -> list[str]:
    """BM25 terms of ``text``, in order, repeats kept (term frequency matters).

    A short text's tokens are cached (process-wide, thread-safe): the extractive answers tokenize every sentence of
    the retrieved chunks for every question, and the questions about one report retrieve many of the same chunks."""
    if len(text) <= _CACHED_CHARS:
        return list(_short_tokens(text))
    return _tokenize(text)


@lru_cache(maxsize=32_768)
def _short_tokens(text: str) -> tuple[str, ...]:
    return tuple(_tokenize(text))


def _tokenize(text: str) -> list[str]:
    stop = stopwords()
    tokens: list[str] = []
    for token in cut_for_search(normalise_text(text)):
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
    out: list[str] = []
    for word in _tagged_subjects(normalise_text(text)):
        if word in stopwords() or word in _NOT_SUBJECTS:
            continue
        if (word.isascii() and len(word) >= 4) or (not word.isascii() and len(word) >= 2):
            out.append(word)
    return list(dict.fromkeys(out))


_LATIN_RUN = re.compile("[a-zA-Z0-9]+")


def _tagged_subjects(normalised: str) -> list[str]:
    """The words jieba's part-of-speech tagger (HMM off) tags with a subject's flag.

    HMM off: only dictionary words. jieba's HMM invents words across a name and its particle ("矢井田瞳于" gives
    "瞳于"), and an invented word that no document spells would make a present subject look missing. Text jieba
    cuts without its dictionary (:func:`_without_dictionary`: an English question) needs no tagger either: every
    run of ASCII letters and digits is an ``eng`` word and every other character a word of its own (one character:
    never a subject), the tagger's ``__cut_DAG_NO_HMM`` and ``__cut_internal`` steps, so its ~1 CPU-second load is
    skipped (``tests/unit/officeqa/test_text_tokens_latin.py`` compares with the tagger)."""
    if _without_dictionary(normalised):
        return _LATIN_RUN.findall(normalised)
    from jieba import posseg

    _jieba()
    return [pair.word.strip() for pair in posseg.cut(normalised, HMM=False) if pair.flag in _SUBJECT_FLAGS]
