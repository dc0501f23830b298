"""More held-out retrieval sets, converted to the ``eval-retrieval`` JSONL format, with a frozen split.

Why: the fusion's defaults must hold on sets nobody tuned on. ``eval/datasets.py`` converts the
sets earlier rounds used; this module adds the ones issue 24 asks for, where the default hybrid
had fallen below BM25:

* ``rgb_zh`` - RGB (chen700564/RGB, ``data/zh_refine.json``, CC BY-SA 4.0): 300 Chinese news
  questions, each with positive and negative passages retrieved from the web for it, many of them
  near-duplicates of each other. Corpus = every distinct passage of every question; gold = the
  question's positive passages.
* ``rgb_zh_int`` - RGB's information-integration questions (``data/zh_int.json``): 100 questions
  whose answer is spread over two groups of positives, ~60 passages each.
* ``scifact_full`` - BEIR SciFact test (300 claims) over the full 5,183-abstract corpus (the
  older ``scifact`` slice keeps 1,000 abstracts).
* ``annual_pages`` - the four annual reports of ``../shared/annual-dev`` at page level: each PDF
  page (parsed by the product's parser, blocks joined in order) is a document, gold = the page
  holding the answer (``page``, or ``pages`` for summaries); questions without a page are left out.

Every question falls in a tuning half or a held-out half by a hash of the set name and question id
(:func:`split_of`), fixed before any fusion change was tried: constants may be fitted on ``tune``
only, and results are reported on both halves.

    python -m eval.retrieval_sets [--out bench/results/cache/datasets]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from eval.datasets import DEFAULT_OUT, SEED, RetrievalSet, scifact_set

REPO = Path(__file__).resolve().parents[1]
ANNUAL_DEV = (REPO / ".." / "shared" / "annual-dev").resolve()
MIRRORS = Path("/work/.mirror")
RGB_MIRROR = ("chen700564+RGB", "65ec39e")
SPLITS = ("tune", "heldout")


def split_of(set_name: str, question_id: str) -> str:
    """``tune`` or ``heldout``: a fixed coin flip per question (sha1 of set name and id)."""
    digest = hashlib.sha1(f"{set_name}\x00{question_id}".encode()).digest()
    return SPLITS[digest[0] & 1]


def rgb_set(name: str, rows: list[dict[str, Any]], source: str) -> RetrievalSet:
    """RGB questions over the union of their passages; identical passage texts share one id.

    ``positive`` is a list of passages, or (``zh_int``) a list of groups of passages; a passage
    that is positive for a question and negative for another is one document, gold for the first.
    """
    ids: dict[str, str] = {}
    corpus: list[dict[str, Any]] = []

    def doc_id(text: str) -> str:
        key = text.strip()
        if key not in ids:
            ids[key] = f"{name}-{len(ids):05d}"
            corpus.append({"id": ids[key], "title": "", "text": key})
        return ids[key]

    questions = []
    for row in rows:
        positives = [p for item in row["positive"] for p in (item if isinstance(item, list) else [item])]
        gold = sorted({doc_id(p) for p in positives if str(p).strip()})
        for passage in row.get("negative", []):
            if str(passage).strip():
                doc_id(str(passage))
        answers = row.get("answer", [])
        flat = [a for item in answers for a in (item if isinstance(item, list) else [item])]
        questions.append({"id": f"{name}-{row['id']}", "question": str(row["query"]).strip(),
                          "answers": [str(a) for a in flat], "gold_doc_ids": gold, "lang": "zh", "doc_lang": "zh"})
    return RetrievalSet(name, corpus, [q for q in questions if q["gold_doc_ids"]], source)


def annual_pages_set(folder: Path = ANNUAL_DEV) -> RetrievalSet:
    """Page-level documents of the annual reports and the questions that name a gold page."""
    from indexing.parsing.dispatch import parse_file

    lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions_rows = [json.loads(line) for line in lines if line.strip()]
    corpus: list[dict[str, Any]] = []
    for pdf in sorted({row["file"] for row in questions_rows}):
        document = parse_file(folder / pdf)
        pages: dict[int, list[str]] = {}
        for block in document.blocks:
            if block.page is not None and block.text.strip():
                pages.setdefault(int(block.page), []).append(block.text.strip())
        stem = Path(pdf).stem
        corpus.extend({"id": f"{stem}#p{page}", "title": stem, "text": "\n".join(texts)}
                      for page, texts in sorted(pages.items()))
    known = {row["id"] for row in corpus}
    questions = []
    for number, row in enumerate(questions_rows):
        pages = row.get("pages") or ([row["page"]] if row.get("page") else [])
        gold = [f"{Path(row['file']).stem}#p{p}" for p in pages if f"{Path(row['file']).stem}#p{p}" in known]
        if gold:
            questions.append({"id": f"annual-{number:03d}", "question": row["question"], "answers": [row["answer"]],
                              "gold_doc_ids": gold, "kind": row.get("kind", ""), "lang": "", "doc_lang": ""})
    return RetrievalSet("annual_pages", corpus, questions, "../shared/annual-dev (4 reports, page level)")


def _git_json_lines(mirror: str, rev: str, path: str) -> list[dict[str, Any]]:
    git_dir = MIRRORS / mirror / "repo"
    blob = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{rev}:{path}"], capture_output=True, check=True)
    return [json.loads(line) for line in blob.stdout.decode("utf-8").splitlines() if line.strip()]


def build(names: list[str], raw: Path) -> list[RetrievalSet]:
    """The named sets whose sources are present (RGB from its fetched snapshot, SciFact from ``raw``)."""
    out = []
    rgb_files = {"rgb_zh": "data/zh_refine.json", "rgb_zh_int": "data/zh_int.json"}
    for name in names:
        if name in rgb_files:
            rows = _git_json_lines(*RGB_MIRROR, rgb_files[name])
            out.append(rgb_set(name, rows, f"chen700564/RGB@{RGB_MIRROR[1]} {rgb_files[name]}"))
        elif name == "scifact_full":
            dataset = scifact_set(raw / "scifact.zip", None, random.Random(SEED))
            dataset.name = "scifact_full"
            out.append(dataset)
        elif name == "annual_pages":
            out.append(annual_pages_set())
        else:
            raise SystemExit(f"unknown set {name!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["rgb_zh", "rgb_zh_int", "scifact_full", "annual_pages"])
    parser.add_argument("--raw", type=Path, default=DEFAULT_OUT / "raw")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    for dataset in build(args.sets, args.raw):
        folder = dataset.write(args.out)
        halves = [split_of(dataset.name, q["id"]) for q in dataset.questions]
        print(f"{dataset.name}: {len(dataset.corpus)} documents, {len(dataset.questions)} questions "
              f"({halves.count('tune')} tune / {halves.count('heldout')} held-out) -> {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
