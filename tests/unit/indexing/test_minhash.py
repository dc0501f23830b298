"""The numpy MinHash of a document's signature (indexing/profile.py) gives Python's integer arithmetic exactly."""

from __future__ import annotations

import random

from indexing.profile import _MASK, SIGNATURE_SIZE, minhash, text_signature


def test_minhash_equals_the_integer_formula() -> None:
    rng = random.Random(7)
    hashes = {rng.getrandbits(64) for _ in range(3000)} | {0, (1 << 64) - 1}
    expected = [min(((h * (2 * k + 1) + k) & _MASK) for h in hashes) for k in range(SIGNATURE_SIZE)]
    assert minhash(hashes) == expected


def test_text_signature_of_equal_texts_is_equal_and_short_text_has_none() -> None:
    text = "营业收入 3,533,710,584.98 元，同比增长 24.69%。" * 50
    assert text_signature([text]) == text_signature([text.replace(" ", "  ")])
    assert len(text_signature([text])) == SIGNATURE_SIZE
    assert text_signature(["短"]) == []
