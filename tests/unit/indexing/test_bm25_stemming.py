"""English stems in the BM25 index, and an index written by the older tokenizer brought up to date on open.

The old format here is the real one: a snapshot saved with jieba tokens and meta without ``tokenizer``
(what the previous version wrote), plus a log of the same epoch holding old tokens.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from indexing.bm25_index import BM25Index
from indexing.bm25_store import BM25Store
from officeqa.text_tokens import BM25_TOKENIZER_VERSION, bm25_terms, stem_term, tokenize_for_bm25

TEXTS = {
    "fin-0": "Total revenue rose to 12 million; the revenue of the east region doubled.",
    "run-0": "The plant runs three shifts and the warehouse ran out of pallets.",
    "zh-0": "营业收入同比增长百分之十二，违约金按日支付。",
    "mix-0": "Q3 营业收入 revenues grew; COVID19 costs fell.",
    "other-0": "Employees are entitled to ten days of annual leave.",
}


def old_index(texts: dict[str, str]) -> BM25Index:
    """An index as the previous version built it: jieba tokens, words not stemmed."""
    index = BM25Index(tokenizer=tokenize_for_bm25, word_term=lambda word: word)
    index.add(list(texts), list(texts.values()))
    return index


def write_old_store(folder: Path, snapshot: dict[str, str], logged: dict[str, str], deleted: list[str]) -> None:
    """Snapshot + log exactly as the previous version wrote them (no tokenizer version in the meta)."""
    epoch = "0123456789ab"
    old_index(snapshot).save(folder / "bm25", meta={"epoch": epoch})
    records = [{"op": "epoch", "format": "officeqa-bm25-log/1", "epoch": epoch}]
    if logged:
        records.append({"op": "add", "ids": list(logged), "tokens": [tokenize_for_bm25(t) for t in logged.values()]})
    if deleted:
        records.append({"op": "del", "ids": deleted})
    (folder / "bm25.log").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")


def snapshot_meta(path: Path) -> dict[str, object]:
    with np.load(path, allow_pickle=False) as data:
        return dict(json.loads(bytes(data["header"]).decode("utf-8"))["meta"])


def test_english_words_are_stemmed_and_chinese_tokens_unchanged() -> None:
    assert bm25_terms("Revenues were RUNNING") == ["revenu", "run"]
    assert bm25_terms("revenue runs") == ["revenu", "run"]
    chinese = "中华人民共和国合同法规定违约金按日支付"
    assert bm25_terms(chinese) == tokenize_for_bm25(chinese)
    # only ASCII words: digits, mixed tokens and full-width folding stay as the jieba tokens were
    mixed = "COVID19 营业收入 Ｒｅｖｅｎｕｅｓ 2024 a1b2"
    plain = tokenize_for_bm25(mixed)
    assert bm25_terms(mixed) == [stem_term(t) for t in plain]
    assert [t for t in bm25_terms(mixed) if not t.isalpha() or not t.isascii()] == [
        t for t in plain if not t.isalpha() or not t.isascii()]
    assert "revenu" in bm25_terms(mixed)
    assert stem_term("x" * 65) == "x" * 65  # not a word: kept


def test_an_inflected_query_finds_the_chunk_and_word_lookups_take_words() -> None:
    index = BM25Index()
    index.add(list(TEXTS), list(TEXTS.values()))
    assert index.search("revenues", 3)[0][0] == "fin-0"
    assert index.search("running", 3)[0][0] == "run-0"
    assert index.search("违约金", 3)[0][0] == "zh-0"
    # quoting weighs question words as written: "revenues" is the term "revenu" (two chunks hold it)
    assert index.document_frequency("revenues") == index.document_frequency("revenue") == 2
    assert index.idf("revenues") == index.idf("revenu")
    assert index.mentions("revenues") and index.mentions("营业") and not index.mentions("dividends")
    assert old_index(TEXTS).search("revenues", 3)[0][0] == "mix-0"  # without stems only the exact word


def test_re_terming_an_old_index_equals_building_it_with_stems() -> None:
    rng = random.Random(7)
    words = ["revenue", "revenues", "run", "runs", "running", "ran", "cost", "costs", "营业", "收入", "合同", "2024"]
    texts = {f"c{i:03d}": " ".join(rng.choices(words, k=rng.randint(1, 30))) for i in range(300)}
    old, fresh = old_index(texts), BM25Index()
    fresh.add(list(texts), list(texts.values()))
    gone = rng.sample(list(texts), 60)
    old.remove(gone)
    fresh.remove(gone)
    upgraded = old.with_terms(stem_term)
    assert upgraded.ids() == fresh.ids() and len(upgraded) == len(fresh)
    for query in ["revenues", "running cost", "营业 收入", "ran ran revenue", "2024", "never"]:
        assert upgraded.search(query, 20) == fresh.search(query, 20), query
    assert upgraded.script_shares() == pytest.approx(fresh.script_shares())
    assert upgraded.document_scripts(sorted(texts)) == fresh.document_scripts(sorted(texts))
    assert {d: (c, n) for d, c, n in upgraded.export()} == {d: (c, n) for d, c, n in fresh.export()}


def test_an_old_store_is_re_termed_on_open_and_written_back_once(tmp_path: Path) -> None:
    snapshot = {k: v for k, v in TEXTS.items() if k != "run-0"}
    write_old_store(tmp_path, snapshot, {"run-0": TEXTS["run-0"]}, deleted=["other-0"])
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    reader = BM25Store(tmp_path)
    assert reader.ids() == {"fin-0", "run-0", "zh-0", "mix-0"}  # snapshot + the old log, replayed in old terms
    assert reader.upgrade_pending
    assert reader.index.search("revenues", 3)[0][0] == "fin-0"
    assert reader.index.search("running", 3)[0][0] == "run-0"  # the chunk only the log held
    # a reader that stops here (a crash, or no lock) changed nothing on disk: the next open redoes it
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    (tmp_path / "bm25.tmp").write_bytes(b"half a snapshot")  # and a writer killed mid-save leaves only this
    again = BM25Store(tmp_path)
    assert again.index.search("revenues", 3)[0][0] == "fin-0" and again.upgrade_pending

    assert again.persist_upgrade()
    assert snapshot_meta(tmp_path / "bm25")["tokenizer"] == BM25_TOKENIZER_VERSION
    fresh = BM25Store(tmp_path)
    assert fresh.ids() == reader.ids()
    assert not fresh.upgrade_pending
    assert fresh.index.search("revenues running", 5) == reader.index.search("revenues running", 5)
    reader.refresh()  # the old reader sees the new snapshot and reloads it as it is
    assert not reader.upgrade_pending


def test_a_writer_writes_the_upgrade_before_it_appends(tmp_path: Path) -> None:
    write_old_store(tmp_path, dict(TEXTS), {}, deleted=[])
    writer = BM25Store(tmp_path)
    writer.add(["new-0"], ["Dividends were paid in March."])
    assert not writer.upgrade_pending
    assert snapshot_meta(tmp_path / "bm25")["tokenizer"] == BM25_TOKENIZER_VERSION
    writer.remove(["other-0"])
    reader = BM25Store(tmp_path)
    assert reader.ids() == (set(TEXTS) - {"other-0"}) | {"new-0"}
    assert not reader.upgrade_pending
    assert reader.index.search("dividend", 3)[0][0] == "new-0"
    assert reader.index.search("revenues", 3)[0][0] == "fin-0"


def test_a_new_store_records_the_current_tokenizer(tmp_path: Path) -> None:
    store = BM25Store(tmp_path)
    store.add(["a-0"], ["revenues"])
    store.fold(force=True)
    assert snapshot_meta(tmp_path / "bm25")["tokenizer"] == BM25_TOKENIZER_VERSION
    reopened = BM25Store(tmp_path)
    assert reopened.ids() == {"a-0"} and not reopened.upgrade_pending
