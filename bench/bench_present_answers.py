"""Questions whose answer one sentence of a real corpus file states (and a few whose subject no file holds):
is the no-model answer right, a refusal, or wrong?

Why: the extractive "does a passage answer it" check once refused "What did IBM develop for American Airlines
in 1961?" while the SABRE sentence was there; a fix for that must not turn right refusals into wrong answers.
The questions (``bench/present_answers.jsonl``) were written before the fix, over files of ../shared/corpus:
``expect`` lists strings one of which the answer must quote; ``null`` means the files do not answer it.

* **exact**: an answerable question answered (not "not found") with an expected string in the answer;
  an unanswerable one refused;
* **refused**: an answerable question answered "not found" (a miss);
* **wrong**: an answer without the expected string, or an unanswerable question answered.

An answerable question whose file (``doc``) the knowledge base lacks is skipped.

Index the files first into a knowledge base of their own (``OFFICEQA_DATA_DIR=DIR officeqa index FILES``
and ``officeqa embed``), then:

    OFFICEQA_DATA_DIR=DIR python bench/bench_present_answers.py [--set bench/present_answers.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path, PurePath

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from officeqa.settings import load_settings
from retrieval.messages import text as message
from retrieval.service import QuestionService

NOT_FOUND = tuple(message(key, lang) for key in ("not_found", "no_hits") for lang in ("en", "zh"))


def verdict(answer: str, expect: list[str] | None) -> str:
    """exact / refused / wrong for one answer (see the module)."""
    refused = any(line in answer for line in NOT_FOUND)
    if expect is None:
        return "exact" if refused else "wrong"
    if refused:
        return "refused"
    return "exact" if any(e.lower() in answer.lower() for e in expect) else "wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path(__file__).with_name("present_answers.jsonl"))
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.set.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts: Counter[tuple[str, str]] = Counter()
    with QuestionService.open(load_settings(), generator=None) as service:
        indexed = {PurePath(entry.path).name for entry in service.catalog().values()}
        for row in rows:
            if row.get("doc") and row["doc"] not in indexed:  # its file is not in this knowledge base
                continue
            answer = service.ask(row["q"]).text
            kind = "answerable" if row["expect"] is not None else "unanswerable"
            result = verdict(answer, row["expect"])
            counts[(kind, result)] += 1
            first = answer.strip().splitlines()[0] if answer.strip() else ""
            print(f"{result:8} {kind:12} {row['q']}\n         {first[:150]}")
    for kind in ("answerable", "unanswerable"):
        print(kind, {r: counts[(kind, r)] for r in ("exact", "refused", "wrong")})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
