"""Refuse rule regexes that could backtrack catastrophically, before they ever run.

Why static checks and not a timeout: Python's ``re`` cannot be interrupted, so a
pattern like ``(a+)+$`` on a long instruction would hang the query path. Rules are
user-editable data, so every regex is inspected at load time (on the parse tree from
``re._parser``) and refused with a reason. What is refused:

- backreferences (``\\1``, ``(?P=name)``, conditional groups);
- an unbounded repeat of a "match anything" item: ``.*``, ``.+``, ``[\\s\\S]*``, ``\\S*``, ``[^x]*``;
- nested quantifiers: a repeat (max > 1) whose body contains a variable-length repeat, e.g. ``(a+)+``, ``(a?){1,9}``;
- ambiguous alternation inside a repeat: ``(a|aa)*``, ``(x|)+`` (overlapping first characters or an empty branch);
- more than one unbounded quantifier in a pattern (adjacent ``\\d+\\d+`` is polynomial backtracking);
- patterns longer than :data:`MAX_PATTERN_CHARS`.
Bounded repeats such as ``.{0,20}`` are allowed.
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_parse
from typing import Any

MAX_PATTERN_CHARS = 500

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
