"""What went into the model's prompt for each Enterprise RAG Challenge question, and whether it is the right company's.

Why: issue 27's acceptance asks that "with the fake model the prompt holds the right company's pages". The
extractive run (``bench/bench_erc.py``) measures the answer's scope; this measures the material the model was
given. It reads only what the answer already reports: the assembly report in the answer's metadata lists the
chunk id of every material that went into the prompt (``assembly.included``); each chunk id is read back from
the knowledge base (``kb.fetch``) for its document and pages. Materials that are not chunks (a rule's result, a
summary-tree node) are counted apart as "not a chunk".

The section it writes replaces the one of the same heading in ``bench/results/erc.md``, so the
extractive run's numbers above it stay as they were measured.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SECTION = "## With the fake model: what the prompt holds"


@dataclass(frozen=True)
class PromptMaterial:
    """One material of a prompt: its chunk id, and (for a chunk) its document's stem and 0-based page indexes."""

    chunk_id: str
    document: str = ""
    pages: tuple[int, ...] = ()


def prompt_materials(answer: Any, kb: Any) -> list[PromptMaterial] | None:
    """The materials the model's prompt held for ``answer``; None when no prompt was assembled (another
    answerer answered before the model)."""
    assembly = answer.metadata.get("assembly")
    if not assembly:
        return None
    ids = [str(item["chunk_id"]) for item in assembly.get("included", [])]
    fetched = kb.fetch(ids) if ids else {}
    out = []
    for chunk_id in ids:
        if chunk_id not in fetched:
            out.append(PromptMaterial(chunk_id))
            continue
        meta = fetched[chunk_id][1]
        first = meta.get("page")
        last = meta.get("page_end") or first
        pages = tuple(range(int(first) - 1, int(last))) if isinstance(first, int | float) else ()
        out.append(PromptMaterial(chunk_id, Path(str(meta.get("path", ""))).stem, pages))
    return out


def says_not_found(answer: Any) -> bool:
    """The answer says the documents do not hold it: the model's or a rule's "Not found", or a report-fact
    refusal (not in this report)."""
    if answer.text.lstrip().lower().startswith("not found"):
        return True
    facts = answer.metadata.get("report_facts") or {}
    return bool(facts) and facts.get("kind") != "figure"


def record(answer: Any, kb: Any) -> dict[str, Any]:
    """The JSON-ready record of one question's prompt: its materials (document, pages) and how it was answered."""
    found = prompt_materials(answer, kb)
    return {
        "prompt": None if found is None else [{"chunk_id": m.chunk_id, "document": m.document, "pages": list(m.pages)}
                                               for m in found],
        "mode": answer.mode,
        "not_found": says_not_found(answer),
    }


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f} %)" if whole else "0/0"


def section(rows: list[dict[str, Any]], gold_pages: dict[str, set[str]], answerable: set[str],
            na_questions: set[str], indexed: set[str], how: str) -> list[str]:
    """The markdown section: for named-present questions the company share of the prompt material and gold pages
    held; for absent-company and N/A questions whether the answer still says not found."""
    present = [r for r in rows if any(s in indexed for s in r["named"])]
    prompted = [r for r in present if r["prompt"] is not None]
    only = mostly = other = chunkless = holds_gold = 0
    with_gold = [r for r in prompted if r["question"] in answerable]
    for r in prompted:
        docs = [m["document"] for m in r["prompt"] if m["document"]]
        chunkless += sum(1 for m in r["prompt"] if not m["document"])
        own = sum(1 for d in docs if d in r["named"])
        only += bool(docs) and own == len(docs)
        mostly += bool(docs) and own * 2 > len(docs)
        other += own < len(docs)
    missed = []
    for r in with_gold:
        held = {f"{m['document']}:{p}" for m in r["prompt"] for p in m["pages"]}
        holds_gold += bool(held & gold_pages[r["question"]])
        if not held & gold_pages[r["question"]]:
            missed.append(r["question"])
    absent = [r for r in rows if r["named"] and not any(s in indexed for s in r["named"])]
    leaked = [r for r in absent if r["prompt"] and any(m["document"] for m in r["prompt"])]
    na = [r for r in rows if r["question"] in na_questions]
    modes: dict[str, int] = {}
    for r in rows:
        key = "model" if r["prompt"] is not None else r["mode"]
        modes[key] = modes.get(key, 0) + 1
    return [
        SECTION,
        "",
        how,
        "",
        f"- how the {len(rows)} questions were answered: "
        + ", ".join(f"{k} {v}" for k, v in sorted(modes.items(), key=lambda kv: -kv[1]))
        + " (model: a prompt was assembled and sent; the others were answered before the model, no prompt)",
        f"- questions naming a company whose report is indexed: {len(present)}; a prompt was sent for "
        f"{len(prompted)}",
        f"  - prompt material only from that company's report (from the named ones, for the "
        f"{sum(len(r['named']) > 1 for r in prompted)} naming several): {_share(only, len(prompted))}",
        f"  - mostly (more than half of its chunks) from it: {_share(mostly, len(prompted))}",
        f"  - prompts holding any other company's pages: {other}",
        f"  - materials that are not chunks (rule results, summary nodes; not attributed): {chunkless}",
        f"  - answerable subset (gold not N/A, gold pages indexed) with a prompt: the prompt holds a gold page "
        f"for {_share(holds_gold, len(with_gold))}",
        f"- questions naming a company with no report indexed: the answer says not found for "
        f"{_share(sum(r['not_found'] for r in absent), len(absent))}; prompts sent for them: "
        f"{sum(r['prompt'] is not None for r in absent)}, holding another company's pages: "
        f"{len(leaked)}" + _listed(f"{r['question'][:100]}… (scope: {len(r['scope'])} documents, prompt: "
                                   f"{len({m['document'] for m in r['prompt'] if m['document']})} other companies' "
                                   "reports)" for r in leaked),
        f"  - of these, with no document listed in the answer's scope (the question named no indexed document, so the "
        f"search ran over every report): {sum(1 for r in leaked if not r['scope'])}; the extractive line \"answered "
        "from no other company's report\" above counts an empty scope as clean, so it misses these",
        f"- questions whose gold is N/A (available): the answer says not found for "
        f"{_share(sum(r['not_found'] for r in na), len(na))}",
        "",
        "Answerable questions whose prompt holds no gold page:" + _listed(q[:110] + "…" for q in missed),
        "",
        "Reading the numbers: the fake model quotes the material sentence covering most of the question's terms, "
        "and a company's name is among those terms, so inside the right report it often quotes a sentence that "
        "names the company (a cover page, an auditor's consent) instead of saying \"Not found\"; the N/A share "
        "above measures that quoting rule more than the product. What the prompt holds (its documents and pages) "
        "is the product's, whatever model reads it.",
    ]


def _listed(items: Iterable[str]) -> str:
    return "".join(f"\n  - {item}" for item in items)


def write_section(out: Path, lines: list[str]) -> None:
    """Put ``lines`` (starting with :data:`SECTION`) in place of that section of ``out``, or append them."""
    text = out.read_text(encoding="utf-8") if out.is_file() else ""
    head = text.split(SECTION)[0].rstrip("\n")
    rest = text.split(SECTION)[1] if SECTION in text else ""
    tail = rest[rest.find("\n## "):] if "\n## " in rest else ""
    out.write_text((head + "\n\n" if head else "") + "\n".join(lines) + "\n" + tail, encoding="utf-8")


def keep_section(out: Path) -> list[str]:
    """The fake-model section of ``out`` as it is (an extractive run rewrites the file and keeps it)."""
    text = out.read_text(encoding="utf-8") if out.is_file() else ""
    if SECTION not in text:
        return []
    rest = SECTION + text.split(SECTION)[1]
    end = rest.find("\n## ", len(SECTION))
    return ["", *(rest[:end] if end >= 0 else rest).rstrip("\n").splitlines()]
