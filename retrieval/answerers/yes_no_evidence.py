"""The sentence that decides a yes/no question: it states every part of the question's topic, plainly.

Why a sentence, not the best three together: "Did X mention any mergers or acquisitions?" is answered by one
sentence saying X acquired something; three sentences that each hold one word of the topic say nothing. The rules:

* the topic is read as *slots*: "mergers or acquisitions" is one slot either word fills (an "or" list names
  alternatives, not words that must all be there); every other topic word is a slot of its own;
* a word fills its slot by its first :data:`STEM` letters ("acquisitions" ~ "acquired"), or by two neighbouring
  words of the sentence written together ("buyback" in "share buy-back"; not by a substring: "merger" is not in
  "from Emergent");
* a sentence holds the topic when it fills at least :data:`MIN_SLOTS` of the slots' weight (a slot weighs its
  rarest word's idf in the knowledge base: a sentence may lack "changes", not "dividend");
* a *hedged* sentence is no evidence: a modal, a condition or a restriction ("provisions that could delay or prevent
  a merger", "we may pursue acquisitions", "covenants restricting … acquisitions", "如果…可能…") says what might
  happen, which is what risk factors and loan covenants are made of;
* a title or a bullet's label ("Dividend policy", "Acquisitions") states nothing: fewer than :data:`MIN_WORDS` words;
* a *negated* sentence ("no acquisitions were made in the year", "公司未进行回购") answers "No";
* a plain sentence holding the topic answers "Yes"; none answers "not found".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prompts.assembler import Material
from retrieval.extractive.scoring import Candidate, quotable

Tokenize = Callable[[str], list[str]]

#: Latin words are compared by their first letters ("acquisitions" ~ "acquisition" ~ "acquired").
STEM = 5
#: Share of the topic's slot weight one sentence must fill (two equal slots: both; three: the two rarer ones).
MIN_SLOTS = 0.6
#: Words a sentence needs to state something (a heading "Dividend policy" does not).
MIN_WORDS = 5
#: Materials whose sentences are read, best first.
TOP_MATERIALS = 8
#: Tokens between a negation and the topic word it negates ("no material acquisitions", "did not pay any dividend").
NEGATION_SPAN = 6

#: A word standing for "or" between alternatives, replaced by this marker before tokenizing.
_OR_MARKER = "qqorqq"
_OR = re.compile(r"\s*,?\s+(?:or|and/or)\s+|或者|或是|或(?=[\u4e00-\u9fff])", re.IGNORECASE)
#: A modal, a condition or a restriction: the sentence says what might be (or may not be), not what was ("covenants
#: restricting mergers, acquisitions, dividends"). A plan or an intention is no hedge: "the
#: board intends to buy back shares" announces a buyback plan.
_HEDGE = re.compile(
    r"\b(?:may|might|could|would|cannot|if|unless|whether|potential(?:ly)?|possible|possibly|"
    r"restrict\w*|prohibit\w*|preclud\w*)\b|可能|如果|假如|一旦|限制|禁止",
    re.IGNORECASE,
)
#: Negation words, Latin and Chinese.
_NEGATIONS = frozenset(["no", "not", "none", "never", "neither", "nor", "without", "didn't", "wasn't", "weren't",
                        "hasn't", "haven't", "未", "没有", "无", "不", "并未", "尚未"])


Weigh = Callable[[str], float]


@dataclass(frozen=True, slots=True)
class Slot:
    """One part of the topic: the word keys any one of which fills it, and the words as the question spells them."""

    keys: frozenset[str]
    words: tuple[str, ...]
    required: bool = False  # a change asked about ("any changes to its dividend policy"): the sentence must state one

    def weight(self, weigh: Weigh) -> float:
        """The slot's weight: its rarest word's (the knowledge base's idf; 1 without one)."""
        return max(weigh(w) for w in self.words)


@dataclass(frozen=True, slots=True)
class Evidence:
    """The deciding sentence: ``verdict`` "yes" or "no", and the sentence as a candidate to render."""

    verdict: str
    candidate: Candidate
    filled: float


#: Words that ask whether something changed: their slot is filled by any word of a change, and is required.
CHANGE_WORDS = ("change", "changes", "changed", "amend", "amended", "amendment", "revise", "revised", "modify",
                "modified", "adjust", "adjusted", "update", "updated", "increase", "increased", "decrease",
                "decreased", "raise", "raised", "cut", "reduce", "reduced", "变更", "调整", "修改", "变化", "改变")
_CHANGE_KEYS = frozenset(t.lower()[:STEM] if t.isascii() else t for t in CHANGE_WORDS)


def topic_slots(topic_text: str, tokenize: Tokenize, dropped: Callable[[str], bool]) -> list[Slot]:
    """The topic's slots (module docstring)."""
    tokens = tokenize(_OR.sub(f" {_OR_MARKER} ", topic_text))
    slots: list[tuple[set[str], list[str]]] = []
    join = False
    for token in tokens:
        if token == _OR_MARKER:
            join = bool(slots)
            continue
        key = word_key(token)
        if dropped(token) or (len(key) < 2 and key.isascii()):
            continue
        if join:
            slots[-1][0].add(key)
            slots[-1][1].append(token.lower())
        else:
            slots.append(({key}, [token.lower()]))
        join = False
    unique: list[Slot] = []
    for keys, words in slots:
        change = bool(keys & _CHANGE_KEYS)
        slot = Slot(frozenset(keys | _CHANGE_KEYS) if change else frozenset(keys), tuple(words), required=change)
        if all(other.keys != slot.keys for other in unique):
            unique.append(slot)
    return unique


def word_key(token: str) -> str:
    """How a word is compared: a Latin word by its first :data:`STEM` letters, any other as it is."""
    token = token.lower()
    return token[:STEM] if token.isascii() and token.isalpha() else token


def filled_share(slots: Sequence[Slot], sentence: str, tokenize: Tokenize, weigh: Weigh = lambda _: 1.0) -> float:
    """Share of the slots' weight the sentence fills (module docstring): a sentence lacking the rarest word of the
    topic ("a more flexible capital policy in response to a changing business environment" for "changes to its
    dividend policy") fills less than one lacking a common one ("management of capital structure" for "changes to
    its capital structure")."""
    total = sum(slot.weight(weigh) for slot in slots)
    if not total:
        return 0.0
    tokens = [t.lower() for t in tokenize(sentence)]
    keys = {word_key(t) for t in tokens} | {word_key(a + b) for a, b in itertools.pairwise(tokens)}
    if any(slot.required and not slot.keys & keys for slot in slots):
        return 0.0
    return sum(slot.weight(weigh) for slot in slots if _fills(slot, keys, sentence)) / total


def _fills(slot: Slot, keys: set[str], sentence: str) -> bool:
    """A word of the sentence is one of the slot's, or (Chinese, which jieba cuts differently in a question and in a
    document: "坐" / "乘坐", "报销" / "报销单") the slot's word is printed inside the sentence."""
    return bool(slot.keys & keys) or any(not key.isascii() and key in sentence for key in slot.keys)


def statement(sentence: str) -> bool:
    """A sentence long enough to state something: at least :data:`MIN_WORDS` words (Chinese: twice as many
    characters); a title or a bullet's label ("Dividend policy", "Acquisitions", "股份回购") states nothing."""
    words = re.findall(r"[A-Za-z0-9'’-]+", sentence)
    han = len(re.findall(r"[\u4e00-\u9fff]", sentence))
    return len(words) + han // 2 >= MIN_WORDS


def hedged(sentence: str) -> bool:
    """A modal or a condition: the sentence says what might happen, not what did."""
    return _HEDGE.search(sentence) is not None


def negated(slots: Sequence[Slot], sentence: str, tokenize: Tokenize) -> bool:
    """A negation at most :data:`NEGATION_SPAN` tokens before a word that fills a slot ("no acquisitions")."""
    words = {w for slot in slots for w in slot.keys}
    tokens = [t.lower() for t in re.findall(r"[A-Za-z']+|[\u4e00-\u9fff]+|\S", sentence)]
    tokens = [piece for t in tokens for piece in (tokenize(t) if not t.isascii() else [t])]
    last_negation = -NEGATION_SPAN - 1
    for i, token in enumerate(tokens):
        if token in _NEGATIONS or token.endswith("n't"):
            last_negation = i
        elif word_key(token) in words and i - last_negation <= NEGATION_SPAN:
            return True
    return False


def find_evidence(slots: Sequence[Slot], materials: Sequence[Material], tokenize: Tokenize,
                  weigh: Weigh = lambda _: 1.0) -> Evidence | None:
    """The best plain sentence holding the topic ("yes"), else the best negated one ("no"), else None.

    Best: the most slots filled, then the higher-ranked material, then the earlier sentence."""
    if not slots:
        return None
    found: list[tuple[float, int, int, str, bool]] = []
    for mi, material in enumerate(materials[:TOP_MATERIALS]):
        for si, sentence in quotable(material):
            share = filled_share(slots, sentence, tokenize, weigh)
            if share < MIN_SLOTS or hedged(sentence) or not statement(sentence):
                continue
            found.append((share, mi, si, sentence, negated(slots, sentence, tokenize)))
    for wanted in (False, True):
        ranked = sorted((f for f in found if f[4] is wanted), key=lambda f: (-f[0], f[1], f[2]))
        if ranked:
            share, mi, si, sentence, _ = ranked[0]
            return Evidence("no" if wanted else "yes", Candidate(share, share, mi, si, sentence), share)
    return None


__all__ = ["MIN_SLOTS", "Evidence", "Slot", "filled_share", "find_evidence", "hedged", "negated", "topic_slots",
           "word_key"]
