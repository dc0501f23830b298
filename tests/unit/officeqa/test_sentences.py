"""The product's one sentence splitter: the chunker and the question path cut at the same places."""

from __future__ import annotations

from itertools import pairwise

import pytest

from indexing.chunking import document as chunker_document
from officeqa.sentences import End, protected_spans, sentence_pieces, split_sentences
from prompts.assembler import cut_at_sentence_end
from prompts.assembler import split_sentences as prompt_split

QUOTED = "他说：“今天付款。明天交货。”随后签字。"
EG = "Pay by wire, e.g. via SWIFT. Then sign. Dr. Smith agrees."
CITED = "根据《关于合同管理。若干问题的规定》第三条执行。双方签字后生效。"


def _chunker_texts(text: str) -> list[str]:
    return [text[s.start : s.end] for s in chunker_document.split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (QUOTED, ["他说：“今天付款。明天交货。”", "随后签字。"]),
        (EG, ["Pay by wire, e.g. via SWIFT.", "Then sign.", "Dr. Smith agrees."]),
        (CITED, ["根据《关于合同管理。若干问题的规定》第三条执行。", "双方签字后生效。"]),
        ("The rate is 3.14 per cent. Next.", ["The rate is 3.14 per cent.", "Next."]),
    ],
)
def test_chunker_and_prompts_split_quotes_and_abbreviations_alike(text: str, expected: list[str]) -> None:
    assert _chunker_texts(text) == expected
    assert [piece.strip() for piece in prompt_split(text)] == expected
    assert "".join(prompt_split(text)) == text  # the prompt form keeps every character


def test_the_chunker_cuts_with_the_one_splitter() -> None:
    """No copy and no re-export: the chunker imports the splitter the question path uses."""
    assert chunker_document.split_sentences is split_sentences
    assert [(s.start, s.end) for s in split_sentences(QUOTED)] == [(0, 15), (15, len(QUOTED))]
    assert protected_spans(QUOTED)


def test_prompt_truncation_never_cuts_inside_a_quote() -> None:
    text = QUOTED + "第二段落。"
    cut, clean = cut_at_sentence_end(text, lambda t: len(t) <= 16)
    assert (cut, clean) == ("他说：“今天付款。明天交货。”", True)


def test_newline_stays_with_the_line_it_ends() -> None:
    assert sentence_pieces("第一行\n第二行。") == ["第一行\n", "第二行。"]
    assert [s.end_kind for s in split_sentences("第一行\n第二行。")] == [End.NEWLINE, End.BLOCK]


@pytest.mark.parametrize(
    "text",
    [
        "x" + "." * 200_000 + "y",  # once a quadratic backtrack in the ASCII sentence-end regex
        "x" + "!?" * 100_000 + "y",
        "（" * 100_000 + "》" * 100_000,  # closers that match no opener: once a scan of the whole stack each
        "（a）。" * 100_000,  # many protected spans, many candidates
    ],
)
def test_hostile_punctuation_runs_split_in_linear_time(text: str) -> None:
    """Correctness only (no wall-clock limit): the split finishes and its spans tile the text."""
    spans = split_sentences(text)
    assert spans and spans[0].start >= 0 and spans[-1].end <= len(text)
    assert all(a.end <= b.start for a, b in pairwise(spans))


def test_bracket_matching_pairs_the_nearest_opener_of_its_kind() -> None:
    assert protected_spans("（注：见附件。）「引文。」") == [(0, 7), (8, 12)]
    assert protected_spans("《a（b》c）") == [(0, 4)]  # 》 closes 《 and abandons the （ opened inside it
    assert protected_spans("a）b") == []
