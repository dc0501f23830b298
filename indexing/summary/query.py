"""The question side of the summary tree: materials and a no-model answer for global questions.

Contract for the question service (the ``summary_tree`` L0 route: "总结", "概括", "核心结论",
"overview", "main risks", "概括第四章的主要内容"):

    context = summary_materials(store, question, doc_ids, budget_tokens)

* ``store``: the :class:`SummaryStore` of the knowledge base
  (``settings.data_dir / settings.summary.store_file``); ``doc_ids``: the documents in
  scope, most relevant first; ``budget_tokens``: what the materials may use (the
  assembler's materials budget). Pure reads; never calls a model; never raises for a
  document without a tree — it is listed in ``context.missing`` (the service then
  answers that document from retrieval, or queues its summary job).
* ``context.materials``: :class:`prompts.assembler.Material` list, in this order: each
  document's summary (root node), then for a section the question names ("第四章",
  "chapter 4", or a heading's own words) that section and its children (zooming in), then
  the other sections most related to the question; for a question naming nothing
  specific (a plain "总结一下"), the top-level sections in document order. All within
  ``budget_tokens`` as counted by ``count`` (the source label included). Each material's
  ``meta`` holds ``doc_id``, ``path``, ``heading_path`` (list), ``page``/``page_end`` (when
  the format has pages), ``slide``, ``node_id``, ``level``, ``kind="summary"``,
  ``extractive``, ``model``, ``chunk_first``/``chunk_last`` — what
  ``retrieval.citations.citation_from_metadata`` reads, so citations name sections and
  pages. ``chunk_id`` is ``"summary:<doc_id>:<node_id>"``.
* ``context.answer``: an answer text with no model: the document summaries and the
  selected sections' summaries, each followed by its ``[n]`` marker (n = position in
  ``materials``, from 1), in the question's language. ``context.extractive`` is True when
  any material was made by the extractive summariser (the service should say so).
* ``context.named``: titles of the sections the question named (empty when none matched:
  a question naming a chapter the documents lack gets the document summaries only).
* ``sections``: section-title phrases the caller read from the question's topic, best first
  ("有哪些风险" -> "面临的风险", "风险因素", …; ``retrieval.report_sections``). The sections whose titles
  hold one (at most :data:`TOPIC_SECTIONS` per document, the best phrase first, then the earliest)
  count as named; when any is found the document summaries are left out, so the answer is the
  sections' own (a report's root summary says little about its risks), with no other related section.
  ``context.topic`` lists their titles, ``context.topic_chunks`` their chunk ids (to quote their text).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from indexing.summary.store import SummaryStore
from indexing.summary.tree import SummaryNode, SummaryTree
from officeqa.scripts import detect_language
from officeqa.text_tokens import normalise_text, tokenize_for_bm25
from officeqa.tokens import default_token_counter
from prompts.assembler import Material, cut_at_sentence_end, source_label

TokenCount = Callable[[str], int]

#: Tokens a material costs beyond its label and text (numbering, separators), as the assembler lays it out.
MATERIAL_OVERHEAD_TOKENS = 8
MAX_SECTIONS = 12
MIN_TRUNCATED_TOKENS = 32
#: Sections per document a topic question is answered from (the best title matches).
TOPIC_SECTIONS = 2

#: Words that say "summarise" and nothing about what to look at.
_GENERIC = frozenset([
    "总结", "概括", "归纳", "概要", "概述", "综述", "摘要", "提炼", "简述", "主旨", "大意", "中心思想", "核心",
    "结论", "核心结论", "主要", "内容", "主要内容", "要点", "重点", "文档", "报告", "文件", "全文", "整个", "整份",
    "这份", "这篇", "本文", "年报", "一下", "讲", "说", "什么", "哪些", "请", "帮", "我", "的", "章", "节", "部分",
    "summarize", "summarise", "summary", "overview", "main", "key", "points", "point", "takeaways", "conclusions",
    "conclusion", "document", "report", "whole", "entire", "gist", "tl", "dr", "recap", "please", "give", "me",
    "what", "are", "is", "the", "of", "this",
])
_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9}
_UNIT = {"章": "chapter", "节": "section", "部分": "part", "篇": "part", "部": "part",
         "chapter": "chapter", "section": "section", "part": "part"}
_ORDINAL = r"[零〇一二两三四五六七八九十百\d]{1,6}"
_REF = rf"第\s*({_ORDINAL})\s*(章|节|部分|篇|部)|\b(chapter|section|part)\s+(\d{{1,3}}|[ivxl]{{1,6}})\b"
#: "第四章", "chapter 4", "Part II" in a question
_QUESTION_REF = re.compile(_REF, re.IGNORECASE)
#: the same at the start of a heading, or a bare heading number ("4.", "4 ", "4、")
_TITLE_REF = re.compile(rf"^\s*(?:{_REF}|(\d{{1,3}})(?:[.、．\s]|$))", re.IGNORECASE)
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}


@dataclass(slots=True)
class SummaryContext:
    """What ``summary_materials`` returns (see the module docstring for the contract)."""

    materials: list[Material]
    answer: str
    language: str
    named: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    topic: list[str] = field(default_factory=list)
    topic_chunks: list[str] = field(default_factory=list)
    extractive: bool = False
    tokens: int = 0


def summary_materials(
    store: SummaryStore,
    question: str,
    doc_ids: Sequence[str],
    budget_tokens: int,
    *,
    count: TokenCount | None = None,
    max_sections: int = MAX_SECTIONS,
    sections: Sequence[str] = (),
) -> SummaryContext:
    """Materials and a no-model answer for a global question over ``doc_ids`` (contract: module docstring)."""
    count = count or default_token_counter().count
    language = detect_language(question)
    trees: list[SummaryTree] = []
    missing: list[str] = []
    for doc_id in dict.fromkeys(doc_ids):
        tree = store.tree(doc_id)
        if tree is None:
            missing.append(doc_id)
        else:
            trees.append(tree)
    picker = _Picker(budget_tokens, count)
    topic = _titled_nodes(trees, sections)
    if not topic:
        for tree in trees:
            picker.add(tree, tree.root, force=True)
    named = _outermost([*topic, *(n for n in _named_nodes(question, trees) if n not in topic)])
    for tree, node in named:
        picker.add(tree, node, force=True)
    for tree, node in named:
        for child in tree.children(node):
            picker.add(tree, child)
    exclude = {(t.doc_id, n.id) for t, n in named}
    named_words = " ".join(node.title for _, node in named)
    related = [] if topic else _related_nodes(question, trees, exclude, named_words)  # a topic's sections suffice
    for tree, node in related[:max_sections]:
        picker.add(tree, node)
    materials = [m for m, _ in picker.chosen]
    return SummaryContext(
        materials=materials,
        answer=_answer(picker.chosen, language),
        language=language,
        named=[node.title for _, node in named],
        missing=missing,
        topic=[node.title for _, node in topic],
        topic_chunks=[chunk for tree, node in topic for chunk in _chunks_under(tree, node)],
        extractive=any(m.meta.get("extractive") for m in materials),
        tokens=picker.used,
    )


class _Picker:
    """Adds materials in order while they fit the budget (a forced one is cut at a sentence end to fit)."""

    def __init__(self, budget: int, count: TokenCount) -> None:
        self.budget = budget
        self.count = count
        self.used = 0
        self.chosen: list[tuple[Material, SummaryNode]] = []
        self._seen: set[str] = set()

    def add(self, tree: SummaryTree, node: SummaryNode, force: bool = False) -> None:
        material = _material(tree, node)
        if material.chunk_id in self._seen:
            return
        base = self.count(material.source) + MATERIAL_OVERHEAD_TOKENS
        cost = base + self.count(material.text)
        if self.used + cost > self.budget:
            room = self.budget - self.used - base
            if not force or room < MIN_TRUNCATED_TOKENS:
                return
            text, _ = cut_at_sentence_end(material.text, lambda t: self.count(t) <= room)
            if not text:
                return
            material = Material(text=text, source=material.source, score=material.score, chunk_id=material.chunk_id,
                                document=material.document, meta={**material.meta, "truncated": True})
            cost = base + self.count(text)
        self._seen.add(material.chunk_id)
        self.used += cost
        self.chosen.append((material, node))


def _material(tree: SummaryTree, node: SummaryNode) -> Material:
    document = PurePath(tree.path).name or tree.title
    heading_path = list(node.heading_path) or ([] if node.parent is None else [node.title])
    span = node.span
    meta: dict[str, object] = {
        "doc_id": tree.doc_id, "path": tree.path, "document": document, "heading_path": heading_path,
        "node_id": node.id, "level": node.level, "kind": "summary", "node_kind": node.kind,
        "title": node.title, "extractive": node.extractive, "model": node.model,
        "chunk_first": span.chunk_first, "chunk_last": span.chunk_last,
    }
    for key in ("page", "page_end", "slide"):
        value = getattr(span, key)
        if value is not None:
            meta[key] = value
    label = source_label(document, page=span.page, page_end=span.page_end, slide=span.slide,
                         heading_path=heading_path)
    score = 1.0 / (1 + node.level)
    return Material(text=node.summary, source=label, score=score, chunk_id=f"summary:{tree.doc_id}:{node.id}",
                    document=document, meta=meta)


# -- which sections ------------------------------------------------------------------------------


def _cn_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    total, current = 0, 0
    for ch in text:
        if ch in _CN_DIGITS:
            current = _CN_DIGITS[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
        else:
            return None
    return total + current


def _roman(text: str) -> int | None:
    values = [_ROMAN.get(ch) for ch in text.lower()]
    if not values or None in values:
        return None
    total = 0
    for i, value in enumerate(values):
        total += -value if i + 1 < len(values) and value < values[i + 1] else value  # type: ignore[operator]
    return total


def _ordinal(groups: tuple[str | None, ...]) -> tuple[int, str] | None:
    """(number, unit) from a match of _QUESTION_REF or _TITLE_REF; unit "" for a bare "4." heading number."""
    zh_number, zh_unit, en_unit, en_number = groups[:4]
    if zh_number and zh_unit:
        number = _cn_number(zh_number)
        return (number, _UNIT[zh_unit]) if number is not None else None
    if en_unit and en_number:
        number = int(en_number) if en_number.isdigit() else _roman(en_number)
        return (number, _UNIT[en_unit.lower()]) if number is not None else None
    if len(groups) > 4 and groups[4]:
        return int(groups[4]), ""
    return None


def _named_nodes(question: str, trees: list[SummaryTree]) -> list[tuple[SummaryTree, SummaryNode]]:
    """Sections the question names: by ordinal ("第四章", "chapter 4") or by a heading's own words."""
    refs = [o for m in _QUESTION_REF.finditer(question) if (o := _ordinal(m.groups()))]
    folded = _fold(question)
    found: list[tuple[SummaryTree, SummaryNode]] = []
    for tree in trees:
        for node in tree.nodes:
            if node.parent is None or node.kind != "section":
                continue
            match = _TITLE_REF.match(node.title)
            ordinal = _ordinal(match.groups()) if match else None
            by_ordinal = ordinal is not None and any(
                number == ordinal[0] and (unit == ordinal[1] or (ordinal[1] == "" and node.level == 1
                                                                 and unit == "chapter"))
                for number, unit in refs
            )
            words = _fold(_TITLE_REF.sub("", node.title))
            by_words = len(words) >= 2 and words in folded and words not in _GENERIC
            if by_ordinal or by_words:
                found.append((tree, node))
    return _outermost(found)


def _outermost(found: list[tuple[SummaryTree, SummaryNode]]) -> list[tuple[SummaryTree, SummaryNode]]:
    """A named section's own named descendants add nothing: keep the outermost."""
    ids = {(t.doc_id, n.id) for t, n in found}
    return [(t, n) for t, n in found if not _has_ancestor_in(t, n, ids)]


_ORDINAL_PREFIX = re.compile(
    r"^\s*(?:第\s*[零〇一二两三四五六七八九十百\d]+\s*[章节部分篇]|[零〇一二三四五六七八九十]+\s*[、.．]|"
    r"[（(]\s*[一二三四五六七八九十\d]+\s*[)）]|\d+(?:\.\d+)*\s*[、.．]?|item\s+\d+[a-z]?\s*[.:]?)\s*",
    re.IGNORECASE,
)


_NUMERAL = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})"
_PART_START = rf"(?:^|[。;\s])\s*(?:{_NUMERAL}\s*[、.]|[(（]\s*{_NUMERAL}\s*[)）])\s*[^。;\s]{{0,6}}"


def _chunks_under(tree: SummaryTree, node: SummaryNode) -> list[str]:
    """The chunk ids of ``node`` and of its descendants, in document order, each once."""
    chunks: list[str] = list(node.chunk_ids)
    for child in tree.children(node):
        chunks.extend(_chunks_under(tree, child))
    return sorted(dict.fromkeys(chunks), key=_chunk_order)


def _chunk_order(chunk_id: str) -> tuple[str, int]:
    """"<doc>-00036" sorts by its number (chunk ids are numbered in document order)."""
    head, _, number = chunk_id.rpartition("-")
    return (head, int(number)) if number.isdigit() else (chunk_id, 0)


def _heads_a_part(text: str, phrase: str) -> bool:
    """``phrase`` opens a numbered part of ``text`` ("。 4、未来可能面对的风险…"), not a mention of one
    ("详见“九、4、未来可能面对的风险”")."""
    pattern = _PART_START + re.escape(unicodedata.normalize("NFKC", phrase))
    return re.search(pattern, unicodedata.normalize("NFKC", text), re.IGNORECASE) is not None


def _titled_nodes(trees: list[SummaryTree], phrases: Sequence[str]) -> list[tuple[SummaryTree, SummaryNode]]:
    """Per document, the sections whose titles hold one of ``phrases``: best phrase first, then the earliest page,
    at most :data:`TOPIC_SECTIONS` (a section inside a chosen one is not counted). A section whose summary holds
    a phrase comes after every title match (its heading was not detected: "4、未来可能面对的风险" inside a chunk)."""
    folded = [p for p in (_fold(x) for x in phrases) if p]
    found: list[tuple[SummaryTree, SummaryNode]] = []
    for tree in trees if folded else []:
        ranked = []
        for node in tree.nodes:
            if node.parent is None or node.kind != "section":
                continue
            title = _fold(_ORDINAL_PREFIX.sub("", node.title))
            rank = next((i for i, phrase in enumerate(folded) if phrase in title), None)
            if rank is None:
                parts = (len(folded) + i for i, phrase in enumerate(phrases) if _heads_a_part(node.summary, phrase))
                rank = next(parts, None)
            if rank is not None:
                ranked.append((rank, node.span.page or 0, node.level, node))
        chosen: list[tuple[SummaryTree, SummaryNode]] = []
        for *_, node in sorted(ranked, key=lambda item: item[:3]):
            ids = {(tree.doc_id, n.id) for _, n in chosen}
            if not _has_ancestor_in(tree, node, ids) and len(chosen) < TOPIC_SECTIONS:
                chosen.append((tree, node))
        found.extend(chosen)
    return found


def _has_ancestor_in(tree: SummaryTree, node: SummaryNode, ids: set[tuple[str, str]]) -> bool:
    parent = node.parent
    while parent is not None:
        if (tree.doc_id, parent) in ids:
            return True
        parent = tree.node(parent).parent
    return False


def _fold(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalise_text(text))


def _related_nodes(question: str, trees: list[SummaryTree], exclude: set[tuple[str, str]],
                   named_words: str) -> list[tuple[SummaryTree, SummaryNode]]:
    """Non-root nodes ranked by the question's content words (BM25-like over title x2 + summary).

    The words that named a section ("公司治理" in "公司治理部分的要点") are not content words.
    When no section is named and no content word matches (a plain "总结一下", or a question in
    another language than the document), the top-level sections in document order: an outline.
    """
    content = _QUESTION_REF.sub(" ", question)  # "第四章" names a section; it says nothing about content
    naming = set(tokenize_for_bm25(named_words)) if named_words else set()
    terms = [t for t in dict.fromkeys(tokenize_for_bm25(content))
             if t not in _GENERIC and t not in naming and len(t) > 1]
    candidates = [(t, n) for t in trees for n in t.nodes if n.parent is not None and (t.doc_id, n.id) not in exclude]
    outline = [] if named_words else [(t, n) for t, n in candidates if n.level == 1]
    if not terms:
        return outline
    docs = [tokenize_for_bm25(f"{n.title} {n.title} {n.summary}") for _, n in candidates]
    frequency = {term: sum(1 for d in docs if term in d) for term in terms}
    scored = []
    for (tree, node), tokens in zip(candidates, docs, strict=True):
        score = 0.0
        for term in terms:
            tf = tokens.count(term)
            if tf:
                idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(tokens) / 60))
        if score > 0:
            scored.append((score - 0.01 * node.level, tree, node))  # ties: the broader section
    scored.sort(key=lambda item: -item[0])
    return [(tree, node) for _, tree, node in scored] or outline


# -- the no-model answer ---------------------------------------------------------------------------


def _answer(chosen: list[tuple[Material, SummaryNode]], language: str) -> str:
    if not chosen:
        return "没有可用的文档摘要。" if language == "zh" else "No document summary is available."
    lines: list[str] = []
    sections_header = False
    for n, (material, node) in enumerate(chosen, start=1):
        where = node.span.label()
        if node.parent is None:
            if lines:
                lines.append("")
            title = str(material.meta.get("document", ""))
            lines.append(f"《{title}》摘要：" if language == "zh" else f"Summary of {title}:")
            lines.append(f"{material.text} [{n}]")
            sections_header = False
            continue
        if not sections_header:
            if lines:
                lines.append("")
            lines.append("相关章节：" if language == "zh" else "Relevant sections:")
            sections_header = True
        if not where or where == node.title:
            label = node.title
        else:
            label = f"{node.title}（{where}）" if language == "zh" else f"{node.title} ({where})"
        lines.append(f"- {label}：{material.text} [{n}]" if language == "zh" else f"- {label}: {material.text} [{n}]")
    return "\n".join(lines)


def section_chunk_ids(tree: SummaryTree, node: SummaryNode) -> list[str]:
    """The chunk ids of a section and its descendants, in reading order."""
    return _chunks_under(tree, node)


def question_ordinals(question: str) -> list[tuple[int, str]]:
    """(number, unit) of each section a question names by ordinal: "第三节" -> (3, "section")."""
    return [o for m in _QUESTION_REF.finditer(question) if (o := _ordinal(m.groups()))]


def title_ordinal(title: str) -> tuple[int, str] | None:
    """(number, unit) a heading starts with ("第三节公司业务概要" -> (3, "section")), else None."""
    match = _TITLE_REF.match(title)
    return _ordinal(match.groups()) if match else None


def fold_title(title: str) -> str:
    """A heading's own words, folded for matching against a question: no ordinal, spacing or punctuation."""
    return _fold(_ORDINAL_PREFIX.sub("", title))


def fold_question(question: str) -> str:
    """A question folded as :func:`fold_title` folds a heading."""
    return _fold(question)


def is_generic(words: str) -> bool:
    """Folded words that say "summarise" or "the document" and name no section."""
    return words in _GENERIC


__all__ = ["SummaryContext", "fold_question", "fold_title", "is_generic", "question_ordinals",
           "section_chunk_ids", "summary_materials", "title_ordinal"]
