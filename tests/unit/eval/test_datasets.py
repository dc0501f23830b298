"""The held-out set converters on literal SQuAD/SciFact-shaped data (the real sources are not committed)."""

from __future__ import annotations

import csv
import io
import json
import random
import zipfile
from pathlib import Path

from eval.datasets import mlqa_sets, numpy_repr_strings, scifact_set, squad_set
from eval.retrieval_eval import read_jsonl


def squad(paragraphs: list[tuple[str, list[tuple[str, str, str]]]]) -> dict:
    """SQuAD json from [(context, [(qid, question, answer)])], one article per paragraph."""
    return {
        "data": [
            {"title": f"t{i}", "paragraphs": [{"context": context, "qas": [
                {"id": qid, "question": question, "answers": [{"text": answer, "answer_start": 0}]}
                for qid, question, answer in qas
            ]}]}
            for i, (context, qas) in enumerate(paragraphs)
        ]
    }


def test_squad_set_makes_one_document_per_paragraph_and_keeps_questions_answerable() -> None:
    data = squad([(f"段落{i}", [(f"q{i}", f"问题{i}", f"答{i}")]) for i in range(10)])
    full = squad_set("s", data, "zh", None, None, random.Random(1), "src")
    assert [d["id"] for d in full.corpus] == [f"s-{i:05d}" for i in range(10)]
    assert full.questions[3] == {"id": "q3", "question": "问题3", "answers": ["答3"], "gold_doc_ids": ["s-00003"],
                                 "lang": "zh", "doc_lang": "zh"}
    sliced = squad_set("s", data, "zh", 3, 5, random.Random(1), "src")
    assert len(sliced.questions) == 3 and len(sliced.corpus) == 5
    kept = {d["id"] for d in sliced.corpus}
    assert all(q["gold_doc_ids"][0] in kept for q in sliced.questions)


def test_mlqa_sets_pair_languages_by_question_id(tmp_path: Path) -> None:
    zh = squad([("中文段落甲", [("a", "甲是什么", "甲")]), ("中文段落乙", [("b", "乙是什么", "乙")])])
    en = squad([("English paragraph A", [("a", "What is A", "A")]), ("Other", [("x", "Unpaired?", "no")]),
                ("English paragraph B", [("b", "What is B", "B")])])
    sets = {s.name: s for s in mlqa_sets(en, zh, "src")}
    assert set(sets) == {"mlqa_zh", "mlqa_en", "mlqa_en2zh", "mlqa_zh2en", "mlqa_mixed"}
    assert [d["text"] for d in sets["mlqa_en"].corpus] == ["English paragraph A", "English paragraph B"]
    en2zh = {q["id"]: q for q in sets["mlqa_en2zh"].questions}
    assert en2zh["a"]["question"] == "What is A" and en2zh["a"]["gold_doc_ids"] == ["mlqa_zh-00000"]
    assert (en2zh["a"]["lang"], en2zh["a"]["doc_lang"]) == ("en", "zh")
    zh2en = {q["id"]: q for q in sets["mlqa_zh2en"].questions}
    assert zh2en["b"]["question"] == "乙是什么" and zh2en["b"]["gold_doc_ids"] == ["mlqa_en-00002"]
    mixed = {q["id"]: q for q in sets["mlqa_mixed"].questions}
    assert set(mixed) == {"a-zh", "b-zh", "a-en", "b-en"}
    assert mixed["a-en"]["gold_doc_ids"] == ["mlqa_zh-00000", "mlqa_en-00000"]
    folder = sets["mlqa_en2zh"].write(tmp_path)
    assert len(read_jsonl(folder / "corpus.jsonl")) == 2
    assert json.loads((folder / "meta.json").read_text(encoding="utf-8"))["questions"] == 2


def test_numpy_printed_string_arrays_are_read_back() -> None:
    printed = "['First sentence.'\n 'It\\'s the second, with \"quotes\".' \"Third's.\"]"
    assert numpy_repr_strings(printed) == ["First sentence.", "It's the second, with \"quotes\".", "Third's."]


def test_scifact_set_from_the_csv_archive(tmp_path: Path) -> None:
    def table(rows: list[dict]) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()

    corpus = [{"doc_id": str(i), "title": f"T{i}", "abstract": f"['Abstract {i}.' 'More.']", "structured": "False"}
              for i in range(6)]
    claims = [
        {"id": "1", "claim": "Claim one.", "cited_doc_ids": "[2]"},
        {"id": "1", "claim": "Claim one.", "cited_doc_ids": "[2 4]"},  # one claim, several rows
        {"id": "2", "claim": "Claim two.", "cited_doc_ids": "[99]"},  # cites nothing in the corpus: dropped
    ]
    archive = tmp_path / "scifact.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("corpus_train.csv", table(corpus))
        zf.writestr("claims_validation.csv", table(claims))
    result = scifact_set(archive, 4, random.Random(0))
    assert [q["id"] for q in result.questions] == ["scifact-1"]
    assert result.questions[0]["gold_doc_ids"] == ["2", "4"]
    assert len(result.corpus) == 4 and {"2", "4"} <= {d["id"] for d in result.corpus}
    assert next(d for d in result.corpus if d["id"] == "2")["text"] == "Abstract 2. More."
