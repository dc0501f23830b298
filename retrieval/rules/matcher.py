"""Compile rules once into matchers and evaluate them against one normalised instruction.

Why a keyword set scan instead of one regex per keyword: every keyword of every rule
goes into one dictionary keyed by length, and the instruction is scanned once
(positions x distinct lengths set look-ups), so the cost grows with the instruction,
not with the number of rules. Overlapping keywords ("电话" inside "电话会议") are all
found, which negative keywords rely on. ASCII keywords match whole words only, so
"sum" does not fire on "summary".
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from retrieval.rules.loader import Rule, RuleFile
from retrieval.rules.normalize import normalize
from retrieval.rules.safety import RegexTimeout, RuleRegex, compile_rule_regex

_ASCII_WORD = re.compile(r"[a-z0-9]")


@dataclass(slots=True)
class MatchContext:
    """What is known about the scope when routing; None means unknown (a precondition then passes)."""

    file_type: str | None = None
    columns: list[str] | None = None


@dataclass(slots=True)
class RuleEvaluation:
    """Why one rule matched or not, for arbitration and --explain."""

    rule_id: str
    route: str
    priority: int
    confidence: float
    order: int
    matched: bool
    reason: str
    trigger: int | None = None
    terms: list[str] = field(default_factory=list)
    # The rule's words were present but an exclusion or a precondition vetoed it: the second stage must not pick
    # its route.
    vetoed: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule_id": self.rule_id, "route": self.route, "matched": self.matched,
                               "reason": self.reason, "priority": self.priority, "confidence": self.confidence}
        if self.trigger is not None:
            out["trigger"] = self.trigger
        if self.terms:
            out["terms"] = self.terms
        return out


class KeywordScanner:
    """Find every keyword of a fixed set that occurs in a text (overlaps included)."""

    def __init__(self, keywords: set[str]) -> None:
        self._by_first: dict[str, list[int]] = {}
        self._keywords = {k for k in keywords if k}
        lengths: dict[str, set[int]] = {}
        for kw in self._keywords:
            lengths.setdefault(kw[0], set()).add(len(kw))
        self._by_first = {c: sorted(ls) for c, ls in lengths.items()}

    def scan(self, text: str) -> set[str]:
        found: set[str] = set()
        n = len(text)
        keywords = self._keywords
        by_first = self._by_first
        for i, ch in enumerate(text):
            lengths = by_first.get(ch)
            if lengths is None:
                continue
            for length in lengths:
                end = i + length
                if end > n:
                    break
                piece = text[i:end]
                if piece in keywords and _word_bounded(text, i, end, piece):
                    found.add(piece)
        return found


def _word_bounded(text: str, start: int, end: int, piece: str) -> bool:
    """ASCII-alphanumeric edges of a keyword must sit on word boundaries."""
    if _ASCII_WORD.match(piece[0]) and start > 0 and _ASCII_WORD.match(text[start - 1]):
        return False
    return not (_ASCII_WORD.match(piece[-1]) and end < len(text) and _ASCII_WORD.match(text[end]))


@dataclass(slots=True)
class _CompiledTrigger:
    any: list[str]
    all: list[str]
    none: list[str]
    regex: list[RuleRegex]


@dataclass(slots=True)
class CompiledRule:
    rule: Rule
    order: int
    triggers: list[_CompiledTrigger]
    exclude: list[str]
    gate: frozenset[str] | None = None  # a rule can only fire if one of these words is found; None = always check


class RuleMatcher:
    """All rules of a rule file, compiled once; :meth:`evaluate` is the hot path."""

    def __init__(self, rule_file: RuleFile) -> None:
        self.vocab: dict[str, frozenset[str]] = {name: frozenset(words) for name, words in rule_file.vocab.items()}
        keywords: set[str] = set()
        for words in self.vocab.values():
            keywords |= words
        self.rules: list[CompiledRule] = []
        for order, rule in enumerate(rule_file.rules):
            triggers = []
            for t in rule.triggers:
                ct = _CompiledTrigger(
                    any=[self._term(x) for x in t.any], all=[self._term(x) for x in t.all],
                    none=[self._term(x) for x in t.none], regex=[compile_rule_regex(p) for p in t.regex],
                )
                keywords |= {x for x in ct.any + ct.all + ct.none if not x.startswith("@")}
                triggers.append(ct)
            exclude = [self._term(x) for x in rule.exclude]
            keywords |= {x for x in exclude if not x.startswith("@")}
            self.rules.append(CompiledRule(rule=rule, order=order, triggers=triggers, exclude=exclude,
                                           gate=self._gate(triggers)))
        self.scanner = KeywordScanner(keywords)
        # Inverted index word -> rules it can fire, so dispatch cost follows the words found, not the rule count.
        self._by_word: dict[str, list[int]] = {}
        self._always: list[int] = []
        for position, cr in enumerate(self.rules):
            if cr.gate is None:
                self._always.append(position)
            else:
                for word in cr.gate:
                    self._by_word.setdefault(word, []).append(position)

    def _gate(self, triggers: list[_CompiledTrigger]) -> frozenset[str] | None:
        """Words one of which must be present for any trigger to fire (None if a trigger is regex-only)."""
        words: set[str] = set()
        for t in triggers:
            positive = t.all or t.any
            if not positive:
                return None
            for term in positive:
                words |= self.vocab[term[1:]] if term.startswith("@") else {term}
        return frozenset(words)

    @staticmethod
    def _term(term: str) -> str:
        return term if term.startswith("@") else normalize(term)

    def _present(self, term: str, found: set[str]) -> bool:
        if term.startswith("@"):
            return not self.vocab[term[1:]].isdisjoint(found)
        return term in found

    def _hits(self, terms: list[str], found: set[str]) -> list[str]:
        return [t for t in terms if self._present(t, found)]

    def evaluate(
        self, text: str, context: MatchContext, *, deadline: float | None = None, explain: bool = True
    ) -> tuple[list[RuleEvaluation], bool]:
        """Evaluate every rule on a normalised text; returns (evaluations, budget_exceeded).

        ``deadline`` is a ``time.perf_counter()`` value; rules not reached before it are
        reported as not evaluated rather than silently dropped. With ``explain=False``
        rules none of whose trigger words occur are left out of the result (they cannot
        match), which keeps dispatch cost flat as rules are added.
        """
        found = self.scanner.scan(text)
        out: list[RuleEvaluation] = []
        exceeded = False
        if explain:
            candidates = self.rules
        else:
            positions = set(self._always)
            for word in found:
                positions.update(self._by_word.get(word, ()))
            candidates = [self.rules[i] for i in sorted(positions) if self.rules[i].rule.enabled]
        for cr in candidates:
            rule = cr.rule
            base = dict(rule_id=rule.id, route=rule.route, priority=rule.priority,
                        confidence=rule.confidence, order=cr.order)
            if not rule.enabled:
                out.append(RuleEvaluation(**base, matched=False, reason="disabled"))
                continue
            if exceeded or (deadline is not None and time.perf_counter() > deadline):
                exceeded = True
                out.append(RuleEvaluation(**base, matched=False, reason="not evaluated: time budget exceeded"))
                continue
            out.append(self._evaluate_rule(cr, text, found, context, base))
        return out, exceeded

    def _evaluate_rule(
        self, cr: CompiledRule, text: str, found: set[str], context: MatchContext, base: dict[str, Any]
    ) -> RuleEvaluation:
        excluded = self._hits(cr.exclude, found)
        if excluded:
            shown = ", ".join(_show(excluded, self.vocab, found))
            # vetoed when the rule's own words are present ("电话" with "电话会议"), as the fast path sees it
            about = cr.gate is None or not cr.gate.isdisjoint(found)
            return RuleEvaluation(**base, matched=False, reason=f"excluded by {shown}", vetoed=about)
        reasons: list[str] = []
        for index, t in enumerate(cr.triggers):
            ok, why, terms = self._trigger(t, text, found)
            if ok:
                failed = _precondition_failure(cr.rule, context)
                if failed:
                    return RuleEvaluation(**base, matched=False, reason=f"trigger {index} matched ({why}) but {failed}",
                                          trigger=index, terms=terms, vetoed=True)
                return RuleEvaluation(**base, matched=True, reason=f"trigger {index}: {why}", trigger=index,
                                      terms=terms)
            reasons.append(f"trigger {index}: {why}")
        return RuleEvaluation(**base, matched=False, reason="; ".join(reasons))

    def _trigger(self, t: _CompiledTrigger, text: str, found: set[str]) -> tuple[bool, str, list[str]]:
        terms: list[str] = []
        if t.all:
            missing = [x for x in t.all if not self._present(x, found)]
            if missing:
                return False, f"missing {', '.join(missing)}", []
            terms += _show(t.all, self.vocab, found)
        if t.any:
            hits = self._hits(t.any, found)
            if not hits:
                return False, f"none of {_preview(t.any)}", []
            terms += _show(hits, self.vocab, found)
        if t.regex:
            for pattern in t.regex:
                try:
                    m = pattern.search(text)  # under a real timeout (safety.RuleRegex)
                except RegexTimeout as exc:
                    return False, f"regex timed out: {exc}", []
                if m:
                    terms.append(f"/{pattern.pattern}/ -> {m.group(0)!r}")
                    break
            else:
                return False, f"no regex matched ({len(t.regex)})", []
        if t.none:
            blocked = self._hits(t.none, found)
            if blocked:
                return False, f"blocked by {', '.join(_show(blocked, self.vocab, found))}", []
        return True, "matched " + ", ".join(terms), terms


def _show(terms: list[str], vocab: dict[str, frozenset[str]], found: set[str]) -> list[str]:
    """Terms as shown in explanations: "@phone=电话" names the word that hit."""
    shown = []
    for t in terms:
        if t.startswith("@"):
            hit = sorted(vocab[t[1:]] & found, key=len, reverse=True)
            shown.append(f"{t}={hit[0]}" if hit else t)
        else:
            shown.append(t)
    return shown


def _preview(terms: list[str], limit: int = 4) -> str:
    head = ", ".join(terms[:limit])
    return head + (f", ... ({len(terms)})" if len(terms) > limit else "")


def _precondition_failure(rule: Rule, context: MatchContext) -> str | None:
    """The failed precondition in words, or None; unknown scope never fails a precondition."""
    pre = rule.preconditions
    if pre.file_types and context.file_type is not None:
        ft = context.file_type.lower().lstrip(".")
        if ft not in pre.file_types:
            return f"precondition failed: file type {ft!r} not in {pre.file_types}"
    if pre.table_columns_like and context.columns is not None:
        from retrieval.handlers.columns import best_column

        if not any(best_column(want, context.columns) is not None for want in pre.table_columns_like):
            return f"precondition failed: no column named like {pre.table_columns_like}"
    return None
