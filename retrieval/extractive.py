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
#: Cross-language answers keep a further sentence scoring at least this share of the best one.
CROSS_KEEP = 0.85

TABLE_KINDS = ("table", "oversize_table")
TABLE_HEADER_SEP = " | "

#: Words that ask rather than name: never key terms.
QUESTION_WORDS = frozenset(
    """什么 多少 哪些 哪个 哪家 哪里 哪位 哪天 几 几个 几天 是否 是不是 怎么 怎样 如何 为什么 请问 请 告诉 一下
    文档 文件 资料 中 里 的 了 吗 呢 是 有 有没有 规定 提到 说 多久 多长 何时 什么时候 时候 谁
    最多 最多能 最少 最晚 最早 能 可以 可 能否 必须 需要 应该 应当 多长时间 大概 一共 总共 分别 具体 相关 哪一 哪一家
    what which who whom whose when where why how many much does do did is are was were the a an of in on
    to for about according document documents file say says said tell me please there can could should must
    maximum minimum""".split()  # noqa: SIM905
)
#: Chinese interrogative phrases, longest first (cut out of the question before it is tokenized).
_INTERROGATIVE = re.compile("|".join(sorted(
    """哪一年 哪一天 哪一位 哪一个 哪一家 哪一种 哪年 哪国人 哪国 哪个国家 哪个城市 哪座城市 哪个 哪些 哪位 哪家
    哪种 哪里 哪儿 什么时候 什么地方 什么时间 什么样 多少次 多少个 多少年 多少 几个 几年 几次 几天 几位 几种
    怎么样 怎样 怎么 如何 为什么 是谁 何时 何地""".split(), key=len, reverse=True)))  # noqa: SIM905
#: A rare word shared by the two quotes of a two-document answer earns at most this bonus.
BRIDGE_WEIGHT = 0.5
#: Candidate sentences per document tried in pairs.
PAIR_POOL = 12
#: A compound's parts ("部门" of "部门经理") earn this share of the compound when the compound itself is missing.
PART_CREDIT = 0.7
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: A short line without end punctuation that is numbered like a heading ("第三条 违约责任", "2.1 Scope").
_HEADING_LINE = re.compile(
    r"^(?:第[一二三四五六七八九十百零\d]{1,4}[章节条款部分篇]|[一二三四五六七八九十]{1,3}[、.．]|"
    r"\d{1,2}(?:\.\d{1,2}){0,3}[、.．\s]|[（(][一二三四五六七八九十\d]{1,3}[）)]|chapter\s+\d|section\s+\d)",
    re.IGNORECASE,
)
_END_PUNCT = tuple("。！？；：.!?;:")
_CN_DIGITS = {ch: i for i, ch in enumerate("零一二三四五六七八九")} | {"两": 2}
#: "第二期款", "第3笔", "首期": the question names the n-th item of a list (installments, phases, batches).
_ORDINAL = re.compile(r"第([一二三四五六七八九十两\d]{1,3})(?=[期笔次批个项阶段部])|(首)(?=[期笔次批])")
#: The number a list item starts with: "4.2 " (its last part), "2、", "2.", "(2)", "（二）", "二、", "第二期".
_ITEM_MARKER = re.compile(
    r"^\s*(?:\d{1,2}[.．])*(\d{1,2})(?:[、.．)）]|\s)|^\s*[（(]([一二三四五六七八九十\d]{1,3})[)）]|"
    r"^\s*([一二三四五六七八九十]{1,3})[、.．]|^\s*第([一二三四五六七八九十\d]{1,3})[期笔次批项]"
)

Weights = Callable[[str], float]
LabelOf = Callable[[Material, str], str | None]
#: Text around a material that belongs to it (a table's lead-in sentence): counts like its heading.
ContextOf = Callable[[Material], str]
#: (question, sentences) -> similarity per sentence, language-neutral (an embedder's cosine).
Similarity = Callable[[str, list[str]], list[float]]


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
    """The question's tokens that name something (question words and stop words dropped), in order.

    Interrogative phrases are cut out before tokenizing: search-mode tokens of "哪一年" include "一年", of
    "哪国人" "国人", and those would be taken for words the answer must contain."""
    asked = _INTERROGATIVE.sub(" ", question)
    return list(dict.fromkeys(t for t in tokenize(asked) if t not in QUESTION_WORDS and t.strip()))


def concepts(terms: Sequence[str]) -> dict[str, list[str]]:
    """Each maximal term with the shorter terms inside it: jieba's search mode emits "住宿费" and also "住宿",
    "宿费"; counted apart, one idea would weigh three times."""
    out: dict[str, list[str]] = {}
    for term in terms:
        if any(term != other and term in other for other in terms):
            continue
        out[term] = [p for p in terms if p != term and p in term]
    return out


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
) -> ExtractiveAnswer:
    """Up to ``max_sentences`` sentences from the first ``top_materials`` materials, best first.

    Material i is cited as [i+1], the numbering a model prompt would have used. ``per_document``
    (a comparison, or a question naming several documents) quotes the best sentence of each
    document, the later ones also matched on words of the earlier quotes (a contact named in a
    contract, then that person's task in the minutes); ``compare`` lets each document add a further
    point that scores close to its first. ``ignore``: words that only chose the documents
    (their names, "对比新旧两版"); they are not asked about. ``missing_subjects``: nouns of the question
    that no indexed chunk mentions ("年终奖"): unless the best sentence spells them, the documents do
    not answer.
    """
    tokenize = tokenize or default_tokenize()
    if not materials:
        return ExtractiveAnswer(text=message("no_hits", language), found=False)
    top = list(materials[:top_materials])
    if _cross_language(question, top[0].text):
        return _by_similarity(question, top, language, label_of, similarity, max_sentences)
    weigh = weights or (lambda term: 1.0)
    ignored = {t for text in ignore for t in tokenize(text)}
    term_weights = {t: max(weigh(t), 0.05) for t in key_terms(question, tokenize) if t not in ignored}
    if not term_weights:  # the question only named documents ("总结一下会议纪要"): rank decides
        term_weights = {t: max(weigh(t), 0.05) for t in key_terms(question, tokenize)}
    numbers = set(_NUMBER.findall(question))
    ordinal = ordinal_terms(question, list(term_weights))
    candidates = _score(top, term_weights, numbers, tokenize, context_of, label_of, ordinal)
    candidates.sort(key=lambda c: (-c.score, c.material, c.index))
    best = candidates[0] if candidates else None
    said = ""
    if best is not None:
        label = label_of(top[best.material], best.sentence) if label_of is not None else None
        said = f"{label or ''}{best.sentence}"  # a comment's author counts ("法务" in "批注（周敏（法务部））")
    coverage = best.coverage if best is not None else 0.0
    chosen: list[_Candidate] = []
    if best is not None and per_document and len({_doc(m) for m in top}) > 1:
        # two documents answer together (a contact named in a contract, that person's task in the minutes):
        # whether the documents answer is judged on the quotes taken together, not on the best one alone
        chosen = _per_document(best, top, term_weights, weigh, numbers, tokenize, context_of,
                               2 * max_sentences if compare else 2, ordinal)
        coverage = max(coverage, _joint_coverage(chosen, term_weights, tokenize))
        said = "".join([said, *(c.sentence for c in chosen)])
    lacking = [w for w in missing_subjects if not (squash_spaces(w) in squash_spaces(said) or _chars_present(w, said))]
    if best is None or coverage < NOT_FOUND_COVERAGE or lacking:
        closest = [best] if best is not None and best.coverage > 0 else []
        head = [message("not_found", language)]
        if closest:
            head.append(message("closest", language))
        return _render(head, closest, top, label_of, found=False, coverage=coverage)
    if not chosen:
        chosen = _choose(candidates, term_weights, max_sentences)
    listing = asks_for_list(question)
    if listing:
        chosen = _whole_lists(chosen, top)
    return _render([message("extract_header", language)], chosen, top, label_of, found=True, coverage=coverage,
                   listing=listing)


#: A question that asks for every item ("有哪些", "分别由谁负责", "list the ...").
_LIST_QUESTION = re.compile(r"哪些|分别|列出|列举|罗列|都有什么|都是什么|清单|名单|\blist\b|\bwhat are\b|\bwhich are\b|"
                            r"\ball the\b", re.IGNORECASE)
#: At most this many items of one list are quoted (a longer list says how many more there are).
LIST_ITEMS = 30


def asks_for_list(question: str) -> bool:
    """Whether the question asks for every item of a list, not the best sentence."""
    return _LIST_QUESTION.search(question) is not None


def _whole_lists(chosen: list[_Candidate], materials: Sequence[Material]) -> list[_Candidate]:
    """A list question: a chosen table row brings every row of its table chunk (the action items, all five),
    in the table's order; other chosen sentences stay where they are."""
    out: list[_Candidate] = []
    expanded: set[int] = set()
    for candidate in chosen:
        material = materials[candidate.material]
        if str(material.meta.get("kind", "")) not in TABLE_KINDS:
            out.append(candidate)
            continue
        if candidate.material in expanded:
            continue
        expanded.add(candidate.material)
        rows = _quotable(material)[:LIST_ITEMS]
        out += [_Candidate(candidate.score, candidate.coverage, candidate.material, si, sentence)
                for si, sentence in rows]
    return out


def _joint_coverage(chosen: list[_Candidate], term_weights: dict[str, float], tokenize: Tokenize) -> float:
    """The share of the question's concepts that the chosen sentences cover together (each at its best credit)."""
    groups = concepts(list(term_weights))
    total = sum(term_weights[c] for c in groups) or 1.0
    tokens = [(set(tokenize(c.sentence)), c.sentence) for c in chosen]
    earned = sum(max((_credit(c, parts, term_weights, t, set(), sentence) for t, sentence in tokens), default=0.0)
                 for c, parts in groups.items())
    return earned / total


def squash_spaces(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def _doc(material: Material) -> str:
    return str(material.meta.get("doc_id", "")) or material.document


def _per_document(
    best: _Candidate,
    materials: list[Material],
    term_weights: dict[str, float],
    weigh: Weights,
    numbers: set[str],
    tokenize: Tokenize,
    context_of: ContextOf | None,
    limit: int,
    ordinal: tuple[int, set[str]] | None = None,
) -> list[_Candidate]:
    """One sentence per document. For two documents the PAIR is chosen that together covers the question
    best, plus a bonus for a rare word they share that the question does not name (the bridge: a contact
    named in a contract, then that person's task in the minutes); for more, each document's best."""
    candidates = _score(materials, term_weights, numbers, tokenize, context_of, None, ordinal)
    by_doc: dict[str, list[_Candidate]] = {}
    for candidate in sorted(candidates, key=lambda c: (-c.score, c.material, c.index)):
        by_doc.setdefault(_doc(materials[candidate.material]), []).append(candidate)
    docs = sorted(by_doc, key=lambda d: -by_doc[d][0].score)
    if len(docs) != 2:
        return [by_doc[d][0] for d in docs[:limit]]
    groups = concepts(list(term_weights))
    total = sum(term_weights[c] for c in groups) or 1.0
    token_cache: dict[str, set[str]] = {}

    def tokens_of(sentence: str) -> set[str]:
        if sentence not in token_cache:
            token_cache[sentence] = set(tokenize(sentence))
        return token_cache[sentence]

    best_pair: tuple[float, _Candidate, _Candidate] | None = None
    for a in by_doc[docs[0]][:PAIR_POOL]:
        for b in by_doc[docs[1]][:PAIR_POOL]:
            ta, tb = tokens_of(a.sentence), tokens_of(b.sentence)
            union = ta | tb
            covered = sum(term_weights[c] for c in groups if c in union) / total
            shared = {t for t in ta & tb if t not in term_weights and t not in QUESTION_WORDS and len(t) >= 2
                      and not _NUMBER.fullmatch(t)}
            bridge = BRIDGE_WEIGHT * max((weigh(t) for t in shared), default=0.0) / max(total, 1.0) * len(groups)
            score = covered + min(bridge, BRIDGE_WEIGHT) + (a.score + b.score) * 0.1
            if best_pair is None or score > best_pair[0]:
                best_pair = (score, a, b)
    if best_pair is None:
        return [best]
    chosen = sorted(best_pair[1:], key=lambda c: c.material)
    # a comparison lists more than one point per document when the next ones score close to the first
    for doc, pick in zip(docs, best_pair[1:], strict=True):
        for extra in by_doc[doc]:
            if len(chosen) >= limit:
                break
            if extra is not pick and extra.score >= RELATIVE_KEEP * pick.score and \
                    extra.coverage >= NOT_FOUND_COVERAGE:
                chosen.append(extra)
                break
    return chosen


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


def ordinal_terms(question: str, terms: Sequence[str]) -> tuple[int, set[str]] | None:
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


def _item_number(sentence: str) -> int | None:
    match = _ITEM_MARKER.match(sentence)
    if match is None:
        return None
    return chinese_number(next(g for g in match.groups() if g))


def _score(
    materials: Sequence[Material],
    term_weights: dict[str, float],
    numbers: set[str],
    tokenize: Tokenize,
    context_of: ContextOf | None = None,
    label_of: LabelOf | None = None,
    ordinal: tuple[int, set[str]] | None = None,
) -> list[_Candidate]:
    """``ordinal``: the list position the question names and its terms ("第二期款"): the sentence that is that
    item of a numbered list ("4.2 本系统上线……支付……50%") covers them."""
    groups = concepts(list(term_weights))
    total = sum(term_weights[c] for c in groups) or 1.0
    out: list[_Candidate] = []
    seen: set[str] = set()
    for mi, material in enumerate(materials):
        headings = heading_list(material.meta.get("heading_path"))
        heading_set = {_clean(h) for h in headings}
        context = context_of(material) if context_of is not None else ""
        outer_tokens = set(tokenize(" ".join([*headings[:-1], context])))
        heading_tokens = outer_tokens | set(tokenize(headings[-1] if headings else ""))
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
            label = label_of(material, sentence) if label_of is not None else None
            if label:  # "批注（周敏（法务部））": the question may ask for the comment or its author
                tokens |= set(tokenize(label))
            if ordinal is not None and _item_number(sentence) == ordinal[0]:
                tokens |= ordinal[1]
            covered = {c for c in groups if c in tokens}
            if sentence.endswith(("？", "?")):  # a question in the text is not an answer
                after_question = sum(term_weights[c] for c in covered) * 2 >= total
                continue
            coverage = sum(_credit(c, parts, term_weights, tokens, heading_tokens, sentence)
                           for c, parts in groups.items()) / total
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


def _credit(
    concept: str,
    parts: list[str],
    weights: dict[str, float],
    tokens: set[str],
    heading_tokens: set[str],
    sentence: str,
) -> float:
    """How much of ``concept``'s weight a sentence earns (see the module docstring)."""
    weight = weights[concept]
    if concept in tokens:
        return weight
    credit = 0.0
    if parts:
        part_total = sum(weights[p] for p in parts) or 1.0
        credit = PART_CREDIT * sum(weights[p] for p in parts if p in tokens) / part_total
    if _chars_present(concept, sentence) or (len(concept) == 1 and "\u4e00" <= concept <= "\u9fff"
                                             and concept in sentence):  # "付" of "支付"
        credit = max(credit, CHAR_CREDIT)
    if concept in heading_tokens:
        credit = max(credit, HEADING_CREDIT)
    elif parts:
        in_heading = sum(weights[p] for p in parts if p in heading_tokens) / (sum(weights[p] for p in parts) or 1.0)
        credit = max(credit, HEADING_CREDIT * PART_CREDIT * in_heading)
    return credit * weight


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
    pool = [(mi, si, sentence) for mi, m in enumerate(materials[:3]) for si, sentence in _quotable(m)
            if len(sentence) <= LONG_SENTENCE_CHARS]
    if not pool:
        return ExtractiveAnswer(text=message("no_hits", language), found=False)
    if similarity is not None:
        scores = similarity(question, [sentence for _, _, sentence in pool])
        ranked = sorted(
            (_Candidate(score + RANK_PRIOR / 2 / (mi + 1) ** 2, 0.0, mi, si, sentence)
             for (mi, si, sentence), score in zip(pool, scores, strict=True)),
            key=lambda c: -c.score,
        )
        best = ranked[0]
        chosen = [best, *[c for c in ranked[1:limit] if c.score >= CROSS_KEEP * best.score]]
    else:
        firsts: dict[int, _Candidate] = {}
        for mi, si, sentence in pool:
            firsts.setdefault(mi, _Candidate(0.0, 0.0, mi, si, sentence))
        chosen = list(firsts.values())[: min(limit, 2)]
    head = [message("extract_header", language), message("cross_language", language)]
    return _render(head, chosen, materials, label_of, found=True, coverage=0.0)


def _quotable(material: Material) -> list[tuple[int, str]]:
    """(index, sentence) of a material's sentences that may be quoted (no headings, no table header line)."""
    headings = {_clean(h) for h in heading_list(material.meta.get("heading_path"))}
    is_table = str(material.meta.get("kind", "")) in TABLE_KINDS
    out = []
    for si, raw in enumerate(split_sentences(material.text)):
        sentence = _clean(raw)
        if (len(sentence) < MIN_SENTENCE_CHARS or sentence in headings or looks_like_heading(sentence)
                or (is_table and TABLE_HEADER_SEP in sentence) or sentence.endswith(("？", "?"))):
            continue
        out.append((si, sentence))
    return out


def _render(
    head: list[str],
    chosen: list[_Candidate],
    materials: Sequence[Material],
    label_of: LabelOf | None,
    *,
    found: bool,
    coverage: float,
    listing: bool = False,
) -> ExtractiveAnswer:
    lines = list(head)
    citations: dict[int, Citation] = {}
    sentences: list[tuple[int, str, float]] = []
    quoted: list[str] = []
    for candidate in chosen:
        n = candidate.material + 1
        material = materials[candidate.material]
        if any(candidate.sentence in earlier for earlier in quoted):
            continue  # each quote once: a sentence a list announcement already carried is not repeated
        sentence = _with_continuation(candidate.sentence, material.text, candidate.index,
                                      *((LIST_ITEMS, 1_500) if listing else ()))
        quoted.append(sentence)
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
