"""End to end on questions written by others: does the answer a user sees quote the gold answer?

The eval harness's 30 tasks are our own phrasing; this measures the same path (``QuestionService.ask``,
no model: the extractive answer with its citations) on public reading-comprehension sets from
``../shared/qa`` (CMRC2018 dev slice, XQuAD-zh), whose questions and gold answers were written by others.
Each paragraph is one document (its title a heading, the paragraph one chunk), indexed the way the
product stores documents (registry, stored parsed document, Chroma, BM25); vectors are the "use"
embedder's (cached by bench/qa_cache.py). Per question:

* ``answer has gold``: one of the gold answer strings appears in the answer text (the quoted sentences);
* ``first quote has gold``: ... in the first citation's quote (what a reader checks first);
* ``cites gold doc``: the first citation is a gold paragraph;
* ``not found``: the answer says the documents do not answer (the gold answer is always there, so
  every "not found" is a miss, and every answer without the gold string is a quote of the wrong passage).

The questions are split in two fixed halves (first / second), reported apart: any tuning done on what this
bench shows must be judged on the half it was not done on.

    python bench/bench_answers.py [--sets cmrc2018_dev xquad_zh] [--questions 200] [--out bench/results/answers.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import SETS, SHARED_QA, cached_vectors, load_set
from indexing.knowledge_base import KnowledgeBase
from indexing.registry import INDEXED, DocumentRecord, now_iso
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.embeddings import Embedder, create_embedder
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from officeqa.text_tokens import bm25_terms
from retrieval.service import QuestionService


def build(kb: KnowledgeBase, doc_ids: list[str], texts: list[str], vectors: np.ndarray) -> None:
    """One document per paragraph: a title heading and the paragraph as its one chunk."""
    model = kb.model
    for start in range(0, len(texts), 200):
        part = range(start, min(len(texts), start + 200))
        ids = [f"{doc_ids[i]}-000" for i in part]
        bodies = [texts[i] for i in part]
        metas = []
        for i in part:
            title = texts[i].split("\n", 1)[0][:40]
            metas.append({"doc_id": doc_ids[i], "path": f"/qa/{doc_ids[i]}.docx", "file_type": "docx",
                          "heading_path": title, "kind": "text", "position": 0, "overlap_chars": 0,
                          "tokens": len(texts[i])})
        kb.vectors.add(ids, vectors[list(part)].astype(np.float32), bodies, metas, model)
        kb.bm25.add_tokenized(ids, [bm25_terms(t) for t in bodies])
        with kb.registry.transaction():
            for i, cid in zip(part, ids, strict=True):
                title, _, body = texts[i].partition("\n")
                path = f"/qa/{doc_ids[i]}.docx"
                kb.registry.upsert(DocumentRecord(path=path, doc_id=doc_ids[i], file_type="docx", status=INDEXED,
                                                  chunk_count=1, embedding_model=model[0], indexed_at=now_iso()))
                kb.registry.replace_chunks(doc_ids[i], [(cid, 0)])
                blocks = [Block(type=BlockType.HEADING, text=title, level=1),
                          Block(type=BlockType.PARAGRAPH, text=body or title)]
                kb.documents.put(doc_ids[i], ParsedDocument(path=path, file_type="docx", blocks=blocks))
    kb._bm25_dirty = True
    kb.save()


def squash(text: str) -> str:
    return "".join(text.split()).lower()


def gold_answers(name: str) -> dict[str, list[str]]:
    questions_file = SHARED_QA / SETS[name][1]
    out: dict[str, list[str]] = {}
    with open(questions_file, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                out[q["id"]] = [a for a in q["answers"] if a.strip()]
    return out


def run_set(name: str, limit: int, embedder: Embedder) -> list[dict]:
    qa = load_set(name)
    vectors, _, _ = cached_vectors(qa, embedder)
    answers = gold_answers(name)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="officeqa-answers-") as tmp:
        settings = Settings(data_dir=Path(tmp), ollama=OllamaSettings(host="http://127.0.0.1:9"))
        kb = KnowledgeBase(settings, embedder=embedder)
        began = time.perf_counter()
        build(kb, qa.doc_ids, qa.doc_texts, vectors)
        print(f"# {name}: {len(qa.doc_ids)} paragraphs indexed in {time.perf_counter() - began:.1f}s", file=sys.stderr)
        service = QuestionService(settings, kb, generator=None)
        for n, (qid, question) in enumerate(zip(qa.qids[:limit], qa.questions[:limit], strict=True)):
            answer = service.ask(question)
            golds = [squash(a) for a in answers.get(qid, [])]
            text = squash(answer.text)
            first = answer.citations[0] if answer.citations else None
            rows.append({
                "set": name, "half": "first" if n < limit // 2 else "second", "id": qid, "question": question,
                "answer_has_gold": any(g in text for g in golds),
                "first_quote_has_gold": first is not None and any(g in squash(first.quote or "") for g in golds),
                "cites_gold_doc": first is not None and first.doc_id in qa.gold[qid],
                "not_found": text.startswith(squash("文档中未找到")),
                "route": (answer.metadata.get("route") or {}).get("route"),
            })
            if (n + 1) % 50 == 0:
                print(f"#   {n + 1} questions", file=sys.stderr)
        kb.close()
    return rows


def table(rows: list[dict]) -> list[str]:
    lines = ["| set | half | questions | answer has gold | first quote has gold | cites gold doc | not found |",
             "|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["set"] for r in rows):
        for half in ("first", "second", "all"):
            part = [r for r in rows if r["set"] == name and (half == "all" or r["half"] == half)]
            if not part:
                continue
            n = len(part)

            def share(key: str, part: list[dict] = part, n: int = n) -> str:
                hits = sum(1 for r in part if r[key])
                return f"{hits / n:.3f} ({hits})"

            lines.append(f"| {name} | {half} | {n} | {share('answer_has_gold')} | {share('first_quote_has_gold')} | "
                         f"{share('cites_gold_doc')} | {share('not_found')} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["cmrc2018_dev", "xquad_zh"])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--misses", type=Path, default=None, help="Write the missed questions here (JSONL).")
    args = parser.parse_args()
    embedder = create_embedder(EmbeddingSettings(backend="use"))
    rows = [r for name in args.sets for r in run_set(name, args.questions, embedder)]
    lines = table(rows)
    text = "\n".join(lines)
    print(text)
    if args.misses is not None:
        with open(args.misses, "w", encoding="utf-8") as fh:
            for r in rows:
                if not r["answer_has_gold"]:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    if args.out is not None:
        head = (__doc__ or "").split("\n\n")[0]
        args.out.write_text(f"# {head}\n\n`python bench/bench_answers.py` (extractive, no model, \"use\" "
                            f"vectors)\n\n{text}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
