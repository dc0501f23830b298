"""Questions that name a section of a real corpus file, by its exact or a loose name, by position ("the first
section", "the last section of en_wiki.md"), or a section no file has: is the no-model answer right, a refusal, or
wrong?

Why: a user test over four real files (an English Markdown wiki article, an English Markdown file of code blocks, a
Chinese outline-style Markdown file and a Chinese meeting-notice template) answered "Summarize the 1960s–1980s
section" with "Not found" (Markdown headings were not read as sections without a summary tree), and "Summarize the
Awards section" / "Summarize the first section" by quoting the Chinese meeting notice. The questions
(``bench/section_questions.jsonl``) were written before the fix. A row's ``expect`` is:

* a list of strings: the section exists; **exact** when the answer cites ``doc`` and quotes one of the strings,
  **refused** when it says "not found" or "no section", else **wrong**;
* ``null``: no file has the section; **exact** when the answer says so and quotes nothing, else **wrong**;
* ``"which"``: "the first section" of no named document over several; **exact** when it neither quotes ``not_doc``
  nor says "not found" / "no such section", **refused** when it says so, **wrong** when it quotes ``not_doc``.

Index the files into a knowledge base of their own (``OFFICEQA_DATA_DIR=DIR officeqa index FILES``, optionally
``officeqa embed`` and ``officeqa summarize --no-model FILES``), then:

    OFFICEQA_DATA_DIR=DIR python bench/bench_sections.py [--set bench/section_questions.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path, PurePath
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from officeqa.settings import load_settings
from retrieval.messages import text as message
from retrieval.service import QuestionService

NOT_FOUND = tuple(message(key, lang) for key in ("not_found", "no_hits") for lang in ("en", "zh"))
NO_SECTION = ("Not found", "未找到", "has no section", "没有问题所说的这一章节")


def verdict(text: str, cited: list[str], row: dict[str, Any]) -> str:
    """exact / refused / wrong for one answer (see the module)."""
    expect = row["expect"]
    if expect is None:
        return "exact" if not cited and any(s in text for s in NO_SECTION) else "wrong"
    if expect == "which":
        if row["not_doc"] in cited:
            return "wrong"
        return "refused" if any(s in text for s in (*NOT_FOUND, *NO_SECTION)) else "exact"
    if any(s in text for s in (*NOT_FOUND, *NO_SECTION)):
        return "refused"
    quoted = any(e.lower() in text.lower() for e in expect)
    return "exact" if row["doc"] in cited and quoted else "wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path(__file__).with_name("section_questions.jsonl"))
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.set.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts: Counter[str] = Counter()
    with QuestionService.open(load_settings(), generator=None) as service:
        for row in rows:
            answer = service.ask(row["q"])
            cited = [PurePath(c.path).name for c in answer.citations]
            result = verdict(answer.text, cited, row)
            counts[result] += 1
            lines = [line for line in answer.text.strip().splitlines() if line.strip()]
            print(f"{result:8} {row['q']}\n         {' | '.join(lines[:2])[:160]}\n         cites {sorted(set(cited))}")
    print({r: counts[r] for r in ("exact", "refused", "wrong")}, f"of {len(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
