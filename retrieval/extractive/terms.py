"""What a question asks about: its key terms, their concepts, the list position it names.

Why apart from scoring: the same reading of a question serves sentence scoring, the two-document
pairing and the callers that only need the key terms (the answer texts, the fake model).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from officeqa.scripts import HAN
from officeqa.text_tokens import stem_term
from officeqa.words import word_list, word_set
from retrieval.citations import Tokenize

#: Words that ask rather than name: never key terms (``officeqa/assets/words/question_words.txt``).
QUESTION_WORDS = word_set("question_words")
#: Chinese interrogative phrases, longest first (cut out of the question before it is tokenized).
_INTERROGATIVE = re.compile("|".join(sorted(word_list("interrogatives"), key=len, reverse=True)))
NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ALL_HAN = re.compile(f"[{HAN}]+")
_CN_DIGITS = {ch: i for i, ch in enumerate("零一二三四五六七八九")} | {"两": 2}
#: "第二期款", "第3笔", "首期": the question names the n-th item of a list (installments, phases, batches).
_ORDINAL = re.compile(r"第([一二三四五六七八九十两\d]{1,3})(?=[期笔次批个项阶段部])|(首)(?=[期笔次批])")
#: The number a list item starts with: "4.2 " (its last part), "2、", "2.", "(2)", "（二）", "二、", "第二期".
_ITEM_MARKER = re.compile(
    r"^\s*(?:\d{1,2}[.．])*(\d{1,2})(?:[、.．)）]|\s)|^\s*[（(]([一二三四五六七八九十\d]{1,3})[)）]|"
    r"^\s*([一二三四五六七八九十]{1,3})[、.．]|^\s*第([一二三四五六七八九十\d]{1,3})[期笔次批项]"
)

#: "What did IBM develop …", "Who did Iwan Roberts credit …": an auxiliary, a subject spelled with capitals (or a
#: pronoun), then the bare verb of the question (group 1).
_DO_SUPPORT = re.compile(
    r"\b(?:do|does|did|will|would|can|could|should|has|have|had)\s+"
    r"(?:(?:[A-Z][\w.&'’-]*|he|she|it|they|we|you)\s+)+([a-z]+)\b"
)

#: "did IBM develop", "does Kruger Products have": an auxiliary, a capitalised subject (group 1), the bare verb.
_NAMED_SUBJECT = re.compile(r"\b(?:do|does|did|will|would|can|could|should|has|have|had)\s+"
                            r"((?:[A-Z][\w.&'’-]*\s+)+)[a-z]+\b")
#: A capitalised name after a preposition of relation ("for American Airlines", "to Microsoft"); not "in"/"on",
#: which mostly place or date ("in Fiscal 2022").
_RELATED_NAME = re.compile(r"\b(?:for|to|from|with|by|against)\s+(?:the\s+)?([A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*)*)")
#: A sentence whose subject is a pronoun or "the company": it may stand for the question's subject.
_PRONOUN_SUBJECT = re.compile(r"^\W*(?:in\s+\d{4},?\s+)?(?:it|he|she|they|the\s+(?:company|group|firm))\b",
                              re.IGNORECASE)

#: The list position a question names and the key terms that spell it ("第二期款" -> (2, {"二期", …})).
Ordinal = tuple[int, set[str]]


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


def key_terms(question: str, tokenize: Tokenize) -> list[str]:
    """The question's tokens that name something (question words and stop words dropped), in order.

    Interrogative phrases are cut out before tokenizing: search-mode tokens of "哪一年" include "一年", of
    "哪国人" "国人", and those would be taken for words the answer must contain."""
    asked = _INTERROGATIVE.sub(" ", question)
    return list(dict.fromkeys(t for t in tokenize(asked) if t not in QUESTION_WORDS and t.strip()))


def with_stems(tokens: Sequence[str]) -> set[str]:
    """The tokens and the Snowball stems of their English words: "developed" also reads as "develop", so a
    question asking what a company "develop"s meets the sentence saying it "developed" it."""
    return set(tokens) | {stem_term(t) for t in tokens}


def spelled_in(word: str, text: str, tokenize: Tokenize) -> bool:
    """Whether ``text`` spells ``word`` (lower-cased, spaces ignored), or an English word of the same stem
    ("invented" for "invent", "company" for "companies")."""
    if squash_spaces(word) in squash_spaces(text):
        return True
    return word.isascii() and stem_term(word.lower()) in {stem_term(t) for t in tokenize(text)}


def question_verb(question: str) -> str | None:
    """The bare verb of an English question with an auxiliary ("What did IBM develop for …" -> "develop"), or None.

    It names the asking, not a thing the documents must spell as written: the answer says "developed",
    "sold" for "sell", "built" for "build"."""
    match = _DO_SUPPORT.search(question)
    return match.group(1) if match is not None else None


def relation_names(question: str) -> list[str]:
    """The names an English question relates ("What did Microsoft develop for Lenovo?" -> Microsoft, Lenovo), its
    subject first, when it asks with an auxiliary and names two or more; else [].

    Why: such a question asks for a relation between the names. A paragraph that mentions each of them in a
    different sentence covers every term of the question and still does not say it; the answering sentence must
    name them together (:func:`states_relation`)."""
    subject = _NAMED_SUBJECT.search(question)
    if subject is None:
        return []
    objects = [m.group(1) for m in _RELATED_NAME.finditer(question, subject.end())]
    names = list(dict.fromkeys([subject.group(1).strip(), *objects]))
    return names if len(names) >= 2 else []


def states_relation(names: Sequence[str], sentence: str, headings: str, tokenize: Tokenize) -> bool:
    """Does ``sentence`` name all of ``names``? Its subject may be a pronoun or "the company" where the headings
    above the sentence name the question's subject ("it developed SABRE …" under "IBM"); a pronoun alone may
    stand for anyone ("it sold its microcomputer division to Lenovo" does not say Microsoft did)."""
    missing = [name for name in names if not spelled_in(name, sentence, tokenize)]
    if not missing:
        return True
    return (missing == [names[0]] and _PRONOUN_SUBJECT.match(sentence) is not None
            and spelled_in(names[0], headings, tokenize))


def concepts(terms: Sequence[str]) -> dict[str, list[str]]:
    """Each maximal term with the shorter terms inside it: jieba's search mode emits "住宿费" and also "住宿",
    "宿费"; counted apart, one idea would weigh three times."""
    out: dict[str, list[str]] = {}
    for term in terms:
        if any(term != other and term in other for other in terms):
            continue
        out[term] = [p for p in terms if p != term and p in term]
    return out


def squash_spaces(text: str) -> str:
    """Lower-cased, without white space: how a subject word is looked for in quoted text."""
    return re.sub(r"\s+", "", text).lower()


def is_han_word(term: str) -> bool:
    """A term written only in Han characters."""
    return _ALL_HAN.fullmatch(term) is not None


def chars_present(term: str, sentence: str) -> bool:
    """A Chinese term of 2+ characters whose characters all occur, in order, within a short span."""
    if len(term) < 2 or not is_han_word(term):
        return False
    start = sentence.find(term[0])
    while start != -1:
        if _spelled_from(term, sentence, start):
            return True
        start = sentence.find(term[0], start + 1)
    return False


def _spelled_from(term: str, sentence: str, start: int) -> bool:
    """Whether the rest of ``term``'s characters follow ``start`` in order within twice its length."""
    position = start
    for ch in term[1:]:
        position = sentence.find(ch, position + 1, start + 2 * len(term) + 1)
        if position == -1:
            return False
    return True


def chinese_number(text: str) -> int | None:
    """1-99 written in digits or Chinese numerals ("12", "十二", "二十一"); None otherwise."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        high = _CN_DIGITS.get(tens, 0) if tens else 1
        low = _CN_DIGITS.get(ones, 0) if ones else 0
        return high * 10 + low if (not tens or tens in _CN_DIGITS) and (not ones or ones in _CN_DIGITS) else None
    return _CN_DIGITS.get(text) if len(text) == 1 else None


def ordinal_terms(question: str, terms: Sequence[str]) -> Ordinal | None:
    """The list position a question asks about ("第二期款" -> 2, "首期" -> 1) and its key terms that spell it."""
    match = _ORDINAL.search(question)
    if match is None:
        return None
    number = 1 if match.group(2) else chinese_number(match.group(1))
    if not number:
        return None
    span = question[match.start() : match.end() + 1]  # the unit ("期") belongs to the ordinal
    spelled = {t for t in terms if t in span or span in t}
    return (number, spelled) if spelled else None


def item_number(sentence: str) -> int | None:
    """The position a list item is numbered with ("4.2 …" -> 2, "（二）…" -> 2), or None."""
    match = _ITEM_MARKER.match(sentence)
    if match is None:
        return None
    return chinese_number(next(g for g in match.groups() if g))


#: An interrogative asking for an instance of the noun phrase after it ("哪个美国节目", "哪一位法国皇帝", "什么水域",
#: "which vendor"): group 1 (Chinese) or 2 (English) holds the phrase.
_TYPED = re.compile(
    r"(?:哪一?[个位家种座条所项款部本只名]|什么|何种)([\u4e00-\u9fff]{1,6})|"
    r"\b(?:which|what)\s+(?!(?:is|was|are|were|did|does|do|has|have|had|can|will|would|should)\b)"
    r"([a-z][\w-]*(?:\s+[a-z][\w-]*)?)",
    re.IGNORECASE,
)


def answer_type_words(question: str, subjects: Sequence[str]) -> list[str]:
    """The subject that names the *kind* of thing asked for, the head of the phrase after "哪个", "哪一位", "什么",
    "which" ("冷战期间哪个美国节目改变了…" -> 节目; "哪一位法国皇帝颁布…" -> 皇帝; "Which vendor provides…" -> vendor).

    Why: the answering sentence states the instance ("肥皂剧《达拉斯》", "路易十四"), not the category word, so that
    word missing from a passage, or from the whole knowledge base, says nothing about whether it answers."""
    out: list[str] = []
    for match in _TYPED.finditer(question):
        phrase = (match.group(1) or match.group(2) or "").lower()
        inside = sorted((w for w in subjects if w.lower() in phrase), key=lambda w: phrase.find(w.lower()))
        if inside:  # Chinese puts the head noun last ("美国节目"), English right after "which" ("vendor provides")
            out.append(inside[-1] if match.group(1) else inside[0])
    return out


def unsupported(subjects: Sequence[str], missing: Sequence[str]) -> bool:
    """More than half of the question's subjects appear in no chunk of the knowledge base (lexically): nothing
    there can answer it ("火星基地的氧气供应商是谁？": 火星基地, 氧气 nowhere), so it is "not found" with nothing
    attached. Any file counts alike (a MANIFEST.tsv, a data folder's README): the test is every chunk's words.
    A question of one subject is never judged so (a Word comment's author label "法务" is not in the chunk text)."""
    return len(subjects) >= 2 and 2 * len(missing) > len(subjects)
