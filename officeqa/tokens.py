"""Token counting: one real tokenizer, shipped offline, plus a calibrated upper-bound estimator.

Choice: chunk budgets are counted with the WordPiece tokenizer of all-MiniLM-L6-v2 (BERT
uncased vocabulary, Apache-2.0), shipped as ``officeqa/assets/wordpiece-tokenizer.json`` and
loaded with the Rust ``tokenizers`` library. It is small (466 KB), needs no network, and
counts CJK text at one token per ideograph, which is close to what bge-m3's tokenizer
does for Chinese while over-counting English a little, so budgets stay on the safe side.
When the embedding model's own ``tokenizer.json`` is on disk (bge-m3's folder),
:func:`create_token_counter` loads that one instead.

Speed: encoding every sentence through ``tokenizers`` runs at about 1.5 MB/s here, below
the 5 MB/s the chunker needs. A BERT tokenizer (BertNormalizer + BertPreTokenizer) is
additive over the pieces its pre-tokenizer splits at: whitespace counts 0 tokens, every
punctuation character and every CJK ideograph is exactly one token (in the vocabulary or
``[UNK]``), and every other run of characters is tokenized on its own. So the counter
splits text at whitespace (``str.split``, C speed) and looks each chunk up in a cache; an
unseen chunk is split further with one regex into punctuation/CJK characters (1 token
each) and runs, and unseen runs go through ``encode_batch`` (no special tokens). The
result is exactly the tokenizer's own count for every word up to ``max_input_chars_per_word``
(pinned by tests; longer runs: see below), and the sum over sentences
equals the count of their concatenation, which lets the chunker count each sentence once
and add. Tokenizers that are not BERT-style (SentencePiece, byte-level BPE) are counted
directly and flagged ``additive = False`` so callers recount joined text; a text above
:data:`MAX_ENCODE_CHARS` is encoded in whitespace-cut segments so one huge paragraph cannot
exhaust memory in the tokenizer.

Long runs (hostile or machine-made text: a 100 MB line of one letter, a base64 blob): WordPiece
turns a word above ``max_input_chars_per_word`` (100) into ONE ``[UNK]``, so a 10 MB run would
count as one token and bypass every budget, and encoding it costs gigabytes (and WordPiece
costs about 5 us per character of random letters). Such a run counts ONE TOKEN PER CHARACTER
instead, without calling the tokenizer: what an embedder sees once the chunker has cut the run
into budget-sized pieces is an unknown word, and every sub-word tokenizer (WordPiece, the
SentencePiece models of bge-m3/e5/USE) spends at most one token per character on it (measured:
0.5 tokens/char on one repeated letter, 0.7 on random letters), so budgets stay on the safe
side. Counts stay additive across a cut inside such a run as long as both sides keep more than
``max_input_chars_per_word`` characters of it: :meth:`HFTokenCounter.snap_cut` moves a cut the
chunker wants to make to the nearest such position.

:func:`estimate_tokens` is the no-tokenizer fallback and an upper bound calibrated on the
corpus: CJK 1 token/char, Hangul 3/char, Latin about 1.3 tokens/word plus one per
punctuation mark, long words and digit runs counted by length.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

DEFAULT_TOKENIZER_PATH = Path(__file__).resolve().parent / "assets" / "wordpiece-tokenizer.json"

# The ideograph ranges BERT's "handle_chinese_chars" isolates (tokenizers/src/normalizers/bert.rs).
_CJK_RANGES = (
    "\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff"
    "\U00020000-\U0002a6df\U0002a700-\U0002b73f\U0002b740-\U0002b81f\U0002b820-\U0002ceaf\U0002f800-\U0002fa1f"
)
# Characters the Rust pre-tokenizer treats as whitespace and keeps as separators (control characters such as
# \x0b are deleted by the normalizer instead, so they stay inside runs and the tokenizer sees them there).
_WHITESPACE = " \t\n\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

_MAX_CACHE = 500_000
_MAX_CACHED_CHUNK = 32
#: Non-additive tokenizers encode at most this many characters at once (longer texts: whitespace-cut segments).
MAX_ENCODE_CHARS = 100_000
_ASCII_PUNCT = "".join(chr(c) for c in [*range(33, 48), *range(58, 65), *range(91, 97), *range(123, 127)])
# Control characters str.split() treats as whitespace but BertNormalizer deletes (so "a\x0bb" is one word).
_ODD_SPACE = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
_DELETED = dict.fromkeys(map(ord, "\x0b\x0c\x1c\x1d\x1e\x1f\x85"))


def _has_odd_space(text: str) -> bool:
    """``_ODD_SPACE.search`` at memchr speed (the regex scan costs 1 s on a 20 MB line)."""
    return any(char in text for char in "\x0b\x0c\x1c\x1d\x1e\x1f\x85")


@runtime_checkable
class TokenCounter(Protocol):
    """What the chunker and the prompt assembler need from a tokenizer."""

    name: str
    additive: bool

    def count(self, text: str) -> int:
        """Tokens in ``text`` (no special tokens)."""
        ...

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, in order; faster than calling :meth:`count` in a loop."""
        ...


def snap_cut(counter: TokenCounter, text: str, start: int, cut: int, end: int) -> int:
    """The largest position in (start, cut] where ``text[start:end]`` may be cut so that the counts of the two
    sides add up to the count of the whole; ``start`` when there is none.

    Counters without this notion (the estimator, non-additive tokenizers) accept every cut.
    """
    method = getattr(counter, "snap_cut", None)
    return method(text, start, cut, end) if method is not None else cut


@lru_cache(maxsize=1)
def _bert_separator_class() -> str:
    """A regex class of every BMP punctuation character plus the CJK ideograph ranges.

    Built once: Unicode P* categories as BERT's ``is_bert_punc`` sees them, plus the ASCII
    symbol ranges BERT also treats as punctuation.
    """
    chars = [
        chr(cp)
        for cp in range(0x10000)
        if unicodedata.category(chr(cp)).startswith("P") and not (0xD800 <= cp <= 0xDFFF)
    ]
    chars.extend(chr(cp) for cp in [*range(33, 48), *range(58, 65), *range(91, 97), *range(123, 127)])
    escaped = "".join(re.escape(c) for c in sorted(set(chars)))
    return escaped + _CJK_RANGES


class HFTokenCounter:
    """Counts tokens with a ``tokenizers`` tokenizer.json (no truncation, no padding, no special tokens)."""

    def __init__(self, tokenizer: Any, name: str) -> None:
        self._tok = tokenizer
        self._tok.no_truncation()
        self._tok.no_padding()
        self.name = name
        self.additive = _is_bert_like(tokenizer)
        self._cache: dict[str, int] = {}  # whitespace-separated chunk -> tokens
        self._run_cache: dict[str, int] = {}  # run between punctuation/CJK chars -> tokens
        self._lock = threading.Lock()
        self.max_word_chars = _max_word_chars(tokenizer)
        if self.additive:
            self._vocab = frozenset(tokenizer.get_vocab())
            sep = _bert_separator_class()
            self._sep_re = re.compile(f"[{sep}]")
            self._run_re = re.compile(f"[^{sep}{_WHITESPACE}]+")
            self._boundary_re = re.compile(f"[{sep}{_WHITESPACE}\x0b\x0c\x1c-\x1f\x85]")

    @classmethod
    def from_file(cls, path: str | Path) -> HFTokenCounter:
        from tokenizers import Tokenizer

        return cls(Tokenizer.from_file(str(path)), name=Path(path).name)

    def count(self, text: str) -> int:
        return self.count_many([text])[0]

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        if not self.additive:
            return [self._count_direct(t) for t in texts] if any(len(t) > MAX_ENCODE_CHARS for t in texts) else [
                len(e.ids) for e in self._encode(list(texts))
            ]
        # Whitespace-separated chunks are counted independently (BERT splits there); control characters that
        # Python would split on but BERT deletes are deleted first so both agree.
        chunk_lists = [(t.translate(_DELETED) if _has_odd_space(t) else t).split() for t in texts]
        cache = self._cache
        try:
            return [sum(map(cache.__getitem__, chunks)) for chunks in chunk_lists]
        except KeyError:
            pass  # some chunks are new: count them (set operations run at C speed), then sum again
        fresh = self._count_chunks(set().union(*chunk_lists).difference(cache))
        with self._lock:
            if len(self._cache) + len(fresh) > _MAX_CACHE:
                self._cache = {}
            cache = self._cache
            cache.update(fresh)
            counts = [sum(map(cache.__getitem__, chunks)) for chunks in chunk_lists]
            # Long chunks (a whole CJK sentence has no spaces) rarely repeat: keeping them would only cost memory.
            for chunk in fresh:
                if len(chunk) > _MAX_CACHED_CHUNK:
                    del cache[chunk]
        return counts

    def _count_direct(self, text: str) -> int:
        """A non-additive count of a long text, encoded in segments of at most MAX_ENCODE_CHARS (cut at spaces)."""
        segments: list[str] = []
        start = 0
        while start < len(text):
            stop = min(len(text), start + MAX_ENCODE_CHARS)
            if stop < len(text):
                space = text.rfind(" ", start + MAX_ENCODE_CHARS // 2, stop)
                stop = space + 1 if space > 0 else stop
            segments.append(text[start:stop])
            start = stop
        total = 0
        for at in range(0, len(segments), 16):
            total += sum(len(e.ids) for e in self._encode(segments[at : at + 16]))
        return total

    def snap_cut(self, text: str, start: int, cut: int, end: int) -> int:
        """The largest cut in (start, cut] that keeps ``count(text[start:c]) + count(text[c:end])`` exact.

        Any cut next to whitespace, punctuation or a CJK ideograph is additive (BERT splits there).
        Inside a run of other characters, only a cut that leaves more than ``max_word_chars`` of
        the run on both sides is (both halves count one token per character, as the whole did);
        otherwise the cut moves back to the last such position or to the run's start. Looks at most
        ``2 * (max_word_chars + 1)`` characters around the cut, so it is cheap inside a 100 MB run.
        """
        if not self.additive or cut <= start or cut >= end:
            return cut
        boundary = self._boundary_re
        if boundary.match(text, cut - 1, cut) or boundary.match(text, cut, cut + 1):
            return cut
        near = self.max_word_chars + 1
        run_start = self._run_start_near(text, start, cut, near)
        if run_start is not None:  # at most max_word_chars of the run on the left: cut before the run
            return run_start
        match = boundary.search(text, cut, min(end, cut + near))
        run_end = match.start() if match else (end if cut + near > end else None)
        if run_end is None:  # deep inside a long run
            return cut
        last = run_end - near  # the last cut that leaves more than max_word_chars on the right
        before = self._run_start_near(text, start, last, near)
        return last if before is None else before

    def _run_start_near(self, text: str, start: int, cut: int, near: int) -> int | None:
        """Where the run holding ``cut`` starts (never before ``start``), if within ``near`` characters; else None."""
        last = None
        for match in self._boundary_re.finditer(text, max(start, cut - near), cut):
            last = match.end()
        if last is not None:
            return last
        return start if cut - near < start else None

    def _encode(self, texts: list[str]) -> list[Any]:
        encode = getattr(self._tok, "encode_batch_fast", None) or self._tok.encode_batch
        encodings: list[Any] = encode(texts, add_special_tokens=False)
        return encodings

    def _count_chunks(self, chunks: set[str]) -> dict[str, int]:
        """Tokens of whitespace-free chunks: punctuation and CJK chars are 1 each, other runs are tokenized."""
        plain: list[str] = []  # a plain ASCII word: one run, no separators
        wrapped: dict[str, str] = {}  # "(word)," -> "word": ASCII punctuation (1 token each) around a plain word
        pieces: dict[str, list[str]] = {}
        for chunk in chunks:
            if chunk.isascii():
                if chunk.isalnum():
                    plain.append(chunk)
                    continue
                core = chunk.strip(_ASCII_PUNCT)
                if core.isalnum():
                    wrapped[chunk] = core
                    continue
            pieces[chunk] = self._run_re.findall(chunk)
        runs = self._count_runs({run for found in pieces.values() for run in found}.union(plain, wrapped.values()))
        out = {chunk: runs[chunk] for chunk in plain}
        out.update((chunk, len(chunk) - len(core) + runs[core]) for chunk, core in wrapped.items())
        # Separators are what is left of a chunk besides its runs (it holds no whitespace): no list of 8 million
        # one-character strings for a long line of Chinese.
        out.update(
            (chunk, len(chunk) - sum(map(len, found)) + sum(runs[r] for r in found)) for chunk, found in pieces.items()
        )
        return out

    def _count_runs(self, runs: set[str]) -> dict[str, int]:
        """Tokens of runs without punctuation, CJK or spaces (cached; bounded by the vocabulary of a corpus)."""
        run_cache = self._run_cache
        limit = self.max_word_chars
        out = {run: len(run) for run in runs if len(run) > limit}  # a long run: one token per char (module doc)
        out.update((run, run_cache[run]) for run in runs if run in run_cache)
        unseen = [run for run in runs if run not in out]
        # An ASCII word that is itself in the vocabulary is one WordPiece token (longest match first).
        vocab = self._vocab
        out.update((run, 1) for run in unseen if run.isascii() and len(run) <= 100 and run.lower() in vocab)
        words = sorted(run for run in unseen if run not in out)
        if words:
            out.update(zip(words, (len(e.ids) for e in self._encode(words)), strict=True))
        with self._lock:
            if len(run_cache) + len(unseen) > _MAX_CACHE:
                run_cache.clear()
            run_cache.update((run, out[run]) for run in unseen)
        return out


def _max_word_chars(tokenizer: Any) -> int:
    """WordPiece's ``max_input_chars_per_word`` (longer words become one [UNK]); 100 when not given."""
    import json

    model = json.loads(tokenizer.to_str()).get("model") or {}
    value = model.get("max_input_chars_per_word")
    return int(value) if isinstance(value, int) and value > 0 else 100


def _is_bert_like(tokenizer: Any) -> bool:
    """True when normalizer and pre-tokenizer are BERT's, which makes counts additive over words."""
    import json

    spec = json.loads(tokenizer.to_str())
    normalizer = spec.get("normalizer") or {}
    pre = spec.get("pre_tokenizer") or {}
    model = spec.get("model") or {}
    return (
        normalizer.get("type") == "BertNormalizer"
        and bool(normalizer.get("handle_chinese_chars", True))
        and pre.get("type") == "BertPreTokenizer"
        and model.get("type") == "WordPiece"
    )


class EstimatingCounter:
    """A tokenizer-free counter using :func:`estimate_tokens` (an upper bound)."""

    name = "estimate"
    additive = True

    def count(self, text: str) -> int:
        return estimate_tokens(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [estimate_tokens(t) for t in texts]


@lru_cache(maxsize=8)
def _load_counter(path: str) -> HFTokenCounter:
    return HFTokenCounter.from_file(path)


def create_token_counter(path: str | Path | None = None) -> TokenCounter:
    """The counter for ``path`` (a tokenizer.json, or a model folder containing one); default: the shipped WordPiece.

    Loaded lazily and once per path: the tokenizer is immutable, so sharing it is safe.
    """
    if path is None or str(path) == "":
        return _load_counter(str(DEFAULT_TOKENIZER_PATH))
    candidate = Path(path)
    if candidate.is_dir():
        candidate = candidate / "tokenizer.json"
    return _load_counter(str(candidate.resolve()))


def default_token_counter() -> TokenCounter:
    """The shipped WordPiece counter (loaded on first use)."""
    return create_token_counter(None)


_EST_CJK = re.compile(f"[{_CJK_RANGES}\u3040-\u30ff]")
_EST_HANGUL = re.compile("[\uac00-\ud7af]")
_EST_WORD = re.compile(r"[^\W\d_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+|\d+")
_EST_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


def estimate_tokens(text: str) -> int:
    """An upper bound on the token count without a tokenizer (calibrated on the corpus).

    CJK ideographs and kana: 1 per char; Hangul syllables: 3 per char (BERT splits them into
    jamo); each punctuation/symbol: 1; each Latin word: 1.3 plus one per 3 chars beyond the
    third (rare words split into word pieces); each digit run: one per 2 digits. On the
    corpus' paragraphs it is never below the real count: about 1.0-1.1x for Chinese and
    1.5-1.8x for English (safe, not tight). Identifier soup such as
    "CD161CD8TfrequencyUnstim" can exceed it (the hard bound there is one token per char).
    """
    if not text:
        return 0
    cjk = len(_EST_CJK.findall(text))
    hangul = len(_EST_HANGUL.findall(text))
    punct = len(_EST_PUNCT.findall(text))
    words = 0.0
    for match in _EST_WORD.finditer(text):
        word = match.group()
        if word.isdigit():
            words += math.ceil(len(word) / 2)
            continue
        words += 1.3 + max(0, len(word) - 3) / 3
    return cjk + 3 * hangul + punct + math.ceil(words)


__all__ = [
    "DEFAULT_TOKENIZER_PATH",
    "MAX_ENCODE_CHARS",
    "EstimatingCounter",
    "HFTokenCounter",
    "TokenCounter",
    "create_token_counter",
    "default_token_counter",
    "estimate_tokens",
    "snap_cut",
]
