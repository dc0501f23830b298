"""Node inputs, their cache keys and the chat messages that summarise them, within the model's window.

The key of a node is the SHA-256 of everything that decides its summary: the prompt
version setting, the template's fingerprint, the model (or the extractive method), the
language, the node's kind of prompt, the document title and heading path shown in the
prompt, and the input texts (source chunks for a leaf; children's titles and summaries
otherwise). Nothing positional goes in: page numbers and chunk ids shift when text is
inserted earlier in the document, and an unchanged section must keep its keys.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prompts.assembler import cut_at_sentence_end
from prompts.loader import SummaryTemplate

TokenCount = Callable[[str], int]

#: Tokens a chat template adds around each message (role markers), as in the assembler.
MESSAGE_OVERHEAD_TOKENS = 8
#: Kept free beyond the answer cap: the counter approximates the model's tokenizer.
SAFETY_TOKENS = 64


@dataclass(frozen=True, slots=True)
class NodeInput:
    """What one node's summary is made from."""

    prompt: str  # "leaf" | "section" | "document"
    document: str
    heading_path: str
    texts: tuple[str, ...]  # leaf: chunk texts; otherwise the children's summaries
    titles: tuple[str, ...] = ()  # the children's titles (empty for a leaf)


def node_key(node_input: NodeInput, *, method: str, language: str, prompt_version: str, template: str) -> str:
    """The cache key: a hex SHA-256 over every input of the summary (see the module docstring)."""
    payload = json.dumps(
        [prompt_version, template, method, language, node_input.prompt, node_input.document,
         node_input.heading_path, list(node_input.titles), list(node_input.texts)],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def word_limit(max_tokens: int, language: str) -> int:
    """The length asked for in the prompt: ~1 token per Chinese character, ~1.4 tokens per English word."""
    return max(20, int(max_tokens * 0.85)) if language == "zh" else max(15, int(max_tokens * 0.6))


def body_text(template: SummaryTemplate, node_input: NodeInput) -> str:
    """The {text} of the prompt: chunk texts, or each child's summary under its title."""
    if node_input.prompt == "leaf":
        return "\n\n".join(node_input.texts)
    return "\n\n".join(
        template.child_item.format(title=title, text=text)
        for title, text in zip(node_input.titles, node_input.texts, strict=True)
    )


def fixed_tokens(template: SummaryTemplate, prompt: str, count: TokenCount, document: str = "",
                 heading_path: str = "") -> int:
    """Tokens of the prompt without its {text}: system, instruction, titles, chat overhead."""
    part = getattr(template, prompt)
    user = part.format(document=document, heading_path=heading_path, limit=999, text="")
    return count(template.system) + count(user) + 2 * MESSAGE_OVERHEAD_TOKENS


def render_messages(
    template: SummaryTemplate,
    node_input: NodeInput,
    *,
    max_tokens: int,
    window: int,
    language: str,
    count: TokenCount,
) -> tuple[list[dict[str, str]], int, bool]:
    """(messages, estimated prompt tokens, cut) for one node, fitted to ``window - max_tokens``.

    The plan keeps inputs inside the window; when they still overflow (a long title, a
    counter that under-counts), the inputs are cut at sentence ends, each child in
    proportion to its length, and ``cut`` says so.
    """
    fixed = fixed_tokens(template, node_input.prompt, count, node_input.document, node_input.heading_path)
    room = max(1, window - max_tokens - SAFETY_TOKENS - fixed)
    text = body_text(template, node_input)
    cut = False
    if count(text) > room:
        cut = True
        node_input = _shrink(template, node_input, room, count)
        text = body_text(template, node_input)
    part = getattr(template, node_input.prompt)
    user = part.format(document=node_input.document, heading_path=node_input.heading_path,
                       limit=word_limit(max_tokens, language), text=text)
    messages = [{"role": "system", "content": template.system}, {"role": "user", "content": user}]
    estimate = count(template.system) + count(user) + 2 * MESSAGE_OVERHEAD_TOKENS
    return messages, estimate, cut


def _fits(text: str, *, count: TokenCount, limit: int) -> bool:
    return count(text) <= limit


def _shrink(template: SummaryTemplate, node_input: NodeInput, room: int, count: TokenCount) -> NodeInput:
    """Cut every input text at a sentence end to its share of ``room`` (shares by length)."""
    sizes = [max(1, count(t)) for t in node_input.texts]
    framing = count(body_text(template, _with_texts(node_input, [""] * len(sizes))))
    available = max(len(sizes), room - framing)
    total = sum(sizes)
    texts: list[str] = []
    for text, size in zip(node_input.texts, sizes, strict=True):
        share = max(1, available * size // total)
        if size <= share:
            texts.append(text)
        else:
            texts.append(cut_at_sentence_end(text, functools.partial(_fits, count=count, limit=share))[0])
    return _with_texts(node_input, texts)


def _with_texts(node_input: NodeInput, texts: Sequence[str]) -> NodeInput:
    return NodeInput(node_input.prompt, node_input.document, node_input.heading_path, tuple(texts),
                     node_input.titles)


__all__ = ["NodeInput", "body_text", "fixed_tokens", "node_key", "render_messages", "word_limit"]
