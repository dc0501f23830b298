"""Refuse rule regexes that could backtrack catastrophically, and run the rest under a real timeout.

Two layers, because rules are user-editable data and Python's ``re`` cannot be interrupted
(a pattern like ``(a+)+$`` on a long instruction would hang the query path):

1. Static checks at load time, on the parse tree from ``re._parser``, refused with a reason.
2. Matching with the ``regex`` module, whose ``timeout`` stops a search that runs longer
   than :data:`MATCH_TIMEOUT_S` (:class:`RuleRegex`); the matcher reports the rule as not
   matched ("regex timed out") and goes on. The 50 ms match budget alone was checked only
   between rules, so it could not stop a regex that was already running.

What the static check refuses:

- backreferences (``\\1``, ``(?P=name)``, conditional groups);
- an unbounded repeat of a "match anything" item: ``.*``, ``.+``, ``[\\s\\S]*``, ``\\S*``, ``[^x]*``;
- nested quantifiers: a repeat (max > 1) whose body contains a variable-length repeat, e.g. ``(a+)+``, ``(a?){1,9}``;
- ambiguous alternation inside a repeat: ``(a|aa)*``, ``(x|)+`` (overlapping first characters or an empty branch);
- more than one unbounded quantifier in a pattern (adjacent ``\\d+\\d+`` is polynomial backtracking);
- stacked variable repeats over overlapping characters (``a{0,2000}a{0,2000}a{0,2000}b``, once
  minutes of ``officeqa route``): in a sequence, consecutive variable-width repeats whose
  characters overlap -- directly or through the items between them, which the earlier repeat
  can also consume -- can split the same text in (range1 x range2 x ...) ways, all tried at
  every start position. A chain whose product of ranges (an unbounded repeat counting as
  :data:`MAX_SUBJECT_CHARS`) is above :data:`MAX_CHAIN_CHOICES` is refused. Measured on a
  2,000-character worst-case instruction: ``a{0,50}a{0,50}$`` (2,601 ways) 60 ms with ``re``;
  ``.{0,30}x.{0,30}`` (961) stays under a few ms on ordinary text;
- patterns longer than :data:`MAX_PATTERN_CHARS`.
Bounded repeats such as ``.{0,20}`` are allowed, and so are chains like ``(提取|列出).{0,20}(电话|手机)``.
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_parse
from typing import Any

import regex

MAX_PATTERN_CHARS = 500
#: Instructions are cut to this many characters before matching (the default of rules.max_input_chars).
MAX_SUBJECT_CHARS = 2_000
#: A chain of stacked variable repeats may split a text in at most this many ways.
MAX_CHAIN_CHOICES = 1_000
#: One regex search may run this long before it is stopped and counted as no match.
#: Wall-clock limit of one regex search. Legitimate rule regexes on a capped instruction take microseconds;
#: a short limit (50 ms was tried) misroutes questions when the machine is busy, so this only stops
#: pathological cases the static check let through.
MATCH_TIMEOUT_S = 0.5

_REPEATS = {sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT}
_NOT_CATEGORIES = {sre_c.CATEGORY_NOT_SPACE, sre_c.CATEGORY_NOT_DIGIT, sre_c.CATEGORY_NOT_WORD,
                   sre_c.CATEGORY_NOT_LINEBREAK}


class UnsafeRegex(ValueError):
    """A pattern the safety check refuses; the message says why."""


def check_regex(pattern: str) -> None:
    """Raise :class:`UnsafeRegex` if ``pattern`` is invalid or could backtrack catastrophically."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsafeRegex(f"pattern longer than {MAX_PATTERN_CHARS} characters")
    try:
        tree = sre_parse.parse(pattern)
    except re.error as exc:
        raise UnsafeRegex(f"invalid regex: {exc}") from exc
    unbounded = _walk(list(tree), inside_repeat=False)
    if unbounded > 1:
        raise UnsafeRegex(
            f"{unbounded} unbounded quantifiers (+, *, {{n,}}); at most one is allowed, bound the others as {{m,n}}"
        )
    _check_chains(list(tree))


class RegexTimeout(Exception):
    """A rule regex ran longer than :data:`MATCH_TIMEOUT_S` on one instruction."""


class RuleRegex:
    """A checked rule pattern compiled with the ``regex`` module, searched under a timeout.

    ``regex`` runs the same syntax as ``re`` here (its V0 mode is the ``re``-compatible one);
    unlike ``re`` it can stop a search that runs too long.
    """

    __slots__ = ("_compiled", "pattern", "timeout_s")

    def __init__(self, pattern: str, timeout_s: float = MATCH_TIMEOUT_S) -> None:
        self.pattern = pattern
        self.timeout_s = timeout_s
        self._compiled = regex.compile(pattern, flags=regex.V0)

    def search(self, text: str) -> Any:
        """The first match in ``text`` or None; raises :class:`RegexTimeout` when the search runs too long."""
        try:
            return self._compiled.search(text, timeout=self.timeout_s)
        except TimeoutError as exc:
            raise RegexTimeout(f"/{self.pattern}/ ran longer than {self.timeout_s * 1000:g} ms") from exc


def compile_rule_regex(pattern: str) -> RuleRegex:
    """A rule pattern ready to match (call :func:`check_regex` first: loading rules does)."""
    return RuleRegex(pattern)


# ---------------------------------------------------------------- stacked variable repeats


class _Chain:
    """A run of variable repeats that can consume the same characters, and how many ways it can split a text."""

    def __init__(self) -> None:
        self.product = 1
        self.length = 0
        self.last_class: list[tuple[Any, Any]] | None = None  # what the chain's last repeat can consume

    def breaks_on(self, cls: list[tuple[Any, Any]]) -> None:
        """A fixed item the chain cannot absorb ends it."""
        if self.last_class is not None and not _overlap(self.last_class, cls):
            self.product, self.length, self.last_class = 1, 0, None

    def extend(self, cls: list[tuple[Any, Any]], choices: int) -> None:
        """A variable repeat over ``cls`` with ``choices`` lengths joins the chain, or starts a new one."""
        if self.last_class is not None and _overlap(self.last_class, cls):
            self.product *= choices
            self.length += 1
        else:
            self.product, self.length = choices, 1
        self.last_class = cls
        if self.length > 1 and self.product > MAX_CHAIN_CHOICES:
            raise UnsafeRegex(
                f"stacked repeats over the same characters can split a text in {self.product:,} ways "
                f"(at most {MAX_CHAIN_CHOICES:,}); e.g. a{{0,2000}}a{{0,2000}}b: merge them into one repeat "
                "or bound them tighter"
            )


def _check_chains(items: list[tuple[Any, Any]]) -> None:
    """Refuse a sequence (at any depth) holding a chain of overlapping variable repeats with too many splits."""
    chain = _Chain()
    for op, av in _flatten(items):
        if op in _REPEATS:
            low, high, body = av
            body = list(body)
            _check_chains(body)
            if low == high:
                chain.breaks_on(_item_chars(body))
            else:
                chain.extend(_item_chars(body), min(high, MAX_SUBJECT_CHARS) - low + 1)
            continue
        if op is sre_c.BRANCH:
            for alt in av[1]:
                _check_chains(list(alt))
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            _check_chains(list(av[1]))
            continue  # a lookaround consumes nothing: it neither breaks nor extends a chain
        if op is not sre_c.AT:
            chain.breaks_on(_item_chars([(op, av)]))


def _flatten(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """A sequence with plain groups opened up ((a{0,9})(a{0,9}) is the same chain as a{0,9}a{0,9})."""
    out: list[tuple[Any, Any]] = []
    for op, av in items:
        if op is sre_c.SUBPATTERN:
            out.extend(_flatten(list(av[-1])))
        elif op is sre_c.ATOMIC_GROUP:
            out.extend(_flatten(list(av)))
        else:
            out.append((op, av))
    return out


def _item_chars(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The single-character classes ``items`` can consume (LITERAL, NOT_LITERAL, ANY, IN), as a union."""
    out: list[tuple[Any, Any]] = []
    for op, av in items:
        if op in (sre_c.LITERAL, sre_c.NOT_LITERAL, sre_c.ANY, sre_c.IN):
            out.append((op, av))
        elif op in _REPEATS:
            out.extend(_item_chars(list(av[2])))
        elif op is sre_c.SUBPATTERN:
            out.extend(_item_chars(list(av[-1])))
        elif op is sre_c.ATOMIC_GROUP:
            out.extend(_item_chars(list(av)))
        elif op is sre_c.BRANCH:
            for alt in av[1]:
                out.extend(_item_chars(list(alt)))
    return out


# Characters tried when two classes are compared: one of each kind a class can be made of.
_PROBES = "aZ_0９ \t\n.-,:;!?@#/\\中文。，é１ⅷ\u00a0\u3000"


def _overlap(first: list[tuple[Any, Any]], second: list[tuple[Any, Any]]) -> bool:
    """Whether some character is matched by both unions (probed on their literals, range starts and samples)."""
    if not first or not second:
        return False
    candidates = set(_PROBES)
    for op, av in first + second:
        if op in (sre_c.LITERAL, sre_c.NOT_LITERAL):
            candidates.add(chr(av))
        elif op is sre_c.IN:
            for sub_op, sub_av in av:
                if sub_op is sre_c.LITERAL:
                    candidates.add(chr(sub_av))
                elif sub_op is sre_c.RANGE:
                    candidates.update((chr(sub_av[0]), chr(sub_av[1])))
    for a_ranges in _ranges(first):
        for b_ranges in _ranges(second):
            low = max(a_ranges[0], b_ranges[0])
            if low <= min(a_ranges[1], b_ranges[1]):
                candidates.add(chr(low))
    return any(_matches(first, ch) and _matches(second, ch) for ch in candidates)


def _ranges(items: list[tuple[Any, Any]]) -> list[tuple[int, int]]:
    return [
        sub_av for op, av in items if op is sre_c.IN for sub_op, sub_av in av if sub_op is sre_c.RANGE
    ]


_CATEGORY_TESTS = {
    sre_c.CATEGORY_DIGIT: lambda ch: ch.isdecimal(),
    sre_c.CATEGORY_NOT_DIGIT: lambda ch: not ch.isdecimal(),
    sre_c.CATEGORY_SPACE: lambda ch: ch.isspace(),
    sre_c.CATEGORY_NOT_SPACE: lambda ch: not ch.isspace(),
    sre_c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    sre_c.CATEGORY_NOT_WORD: lambda ch: not (ch.isalnum() or ch == "_"),
    sre_c.CATEGORY_LINEBREAK: lambda ch: ch == "\n",
    sre_c.CATEGORY_NOT_LINEBREAK: lambda ch: ch != "\n",
}


def _matches(items: list[tuple[Any, Any]], ch: str) -> bool:
    """Whether ``ch`` is matched by any of the single-character classes in ``items``."""
    code = ord(ch)
    for op, av in items:
        if op is sre_c.LITERAL and av == code:
            return True
        if op is sre_c.NOT_LITERAL and av != code:
            return True
        if op is sre_c.ANY and ch != "\n":
            return True
        if op is sre_c.IN:
            negate = any(sub_op is sre_c.NEGATE for sub_op, _ in av)
            hit = False
            for sub_op, sub_av in av:
                if sub_op is sre_c.LITERAL:
                    hit = sub_av == code
                elif sub_op is sre_c.RANGE:
                    hit = sub_av[0] <= code <= sub_av[1]
                elif sub_op is sre_c.CATEGORY:
                    test = _CATEGORY_TESTS.get(sub_av)
                    hit = test(ch) if test is not None else True
                if hit:
                    break
            if hit != negate:
                return True
    return False


def _is_broad(op: Any, av: Any) -> bool:
    """True for single-character items that match (almost) anything: ., [^x], \\S, [\\s\\S]."""
    if op in (sre_c.ANY, sre_c.NOT_LITERAL):
        return True
    if op is sre_c.IN:
        cats = {a for o, a in av if o is sre_c.CATEGORY}
        if any(o is sre_c.NEGATE for o, _ in av) or cats & _NOT_CATEGORIES:
            return True
    return False


def _walk(items: list[tuple[Any, Any]], *, inside_repeat: bool) -> int:
    """Check a sequence of parse items; return how many unbounded repeats it holds."""
    unbounded = 0
    for op, av in items:
        if op in (sre_c.GROUPREF, sre_c.GROUPREF_EXISTS):
            raise UnsafeRegex("backreferences are not allowed")
        if op in _REPEATS:
            _low, high, body = av
            body = list(body)
            is_unbounded = high == sre_c.MAXREPEAT
            if is_unbounded:
                unbounded += 1
                if len(body) == 1 and _is_broad(*body[0]):
                    raise UnsafeRegex("unbounded repeat of a match-anything item (.*, .+, [\\s\\S]*, \\S*); "
                                      "use a bounded repeat such as .{0,20}")
            if high > 1 or is_unbounded:
                if _has_variable_repeat(body):
                    raise UnsafeRegex("nested quantifiers (a repeat inside a repeat, e.g. (a+)+) are not allowed")
                _check_alternation(body)
            unbounded += _walk(body, inside_repeat=True)
        elif op is sre_c.SUBPATTERN:
            unbounded += _walk(list(av[-1]), inside_repeat=inside_repeat)
        elif op is sre_c.BRANCH:
            for alt in av[1]:
                unbounded += _walk(list(alt), inside_repeat=inside_repeat)
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            unbounded += _walk(list(av[1]), inside_repeat=inside_repeat)
        elif op is sre_c.ATOMIC_GROUP:
            unbounded += _walk(list(av), inside_repeat=inside_repeat)
    return unbounded


def _has_variable_repeat(items: list[tuple[Any, Any]]) -> bool:
    for op, av in items:
        if op in _REPEATS:
            low, high, body = av
            if low != high or _has_variable_repeat(list(body)):
                return True
        elif op is sre_c.SUBPATTERN:
            if _has_variable_repeat(list(av[-1])):
                return True
        elif op is sre_c.BRANCH:
            if any(_has_variable_repeat(list(alt)) for alt in av[1]):
                return True
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT) and _has_variable_repeat(list(av[1])):
            return True
    return False


def _check_alternation(items: list[tuple[Any, Any]]) -> None:
    """Inside a repeat, alternatives must start with distinct literal characters and never be empty."""
    for op, av in items:
        if op is sre_c.SUBPATTERN:
            _check_alternation(list(av[-1]))
        elif op is sre_c.BRANCH:
            seen: set[int] = set()
            for alt in av[1]:
                alt = list(alt)
                if not alt:
                    raise UnsafeRegex("an empty alternative inside a repeat (e.g. (a|aa)*, (x|)+) is ambiguous")
                first = _first_chars(alt[0])
                if first is None or first & seen:
                    raise UnsafeRegex("alternatives inside a repeat overlap (e.g. (a|aa)*); make them distinct")
                seen |= first
                _check_alternation(alt)


def _first_chars(item: tuple[Any, Any]) -> set[int] | None:
    """The literal characters an item can start with, or None when not a small literal set."""
    op, av = item
    if op is sre_c.LITERAL:
        return {av}
    if op is sre_c.IN and all(o is sre_c.LITERAL for o, _ in av):
        return {a for _, a in av}
    if op is sre_c.SUBPATTERN:
        body = list(av[-1])
        return _first_chars(body[0]) if body else None
    return None
