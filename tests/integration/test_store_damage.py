"""A truncated or garbled store file: one clear line naming the file and the fix; after the fix, search works.

Each case copies one indexed knowledge base, damages one file, and drives the real CLI in
subprocesses (a garbled HNSW file can crash the process that loads it, which is what the
product must turn into a message instead).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from indexing.knowledge_base import KnowledgeBase
from officeqa.settings import ChunkingSettings, EmbeddingSettings, JobsSettings, Settings

OFFICEQA = str(Path(sys.executable).with_name("officeqa"))

CASES = [
    ("registry.sqlite3", "truncate"),
    ("registry.sqlite3", "garble"),
    ("chroma/chroma.sqlite3", "truncate"),
    ("chroma/chroma.sqlite3", "garble"),
    ("chroma/*/header.bin", "garble"),
    ("chroma/*/data_level0.bin", "garble"),
    ("chroma/*/index_metadata.pickle", "truncate"),
    ("bm25", "truncate"),
    ("bm25", "garble"),
    ("bm25.log", "garble"),
]


def settings_for(data_dir: Path) -> Settings:
    return Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(backend="hash"),
        chunking=ChunkingSettings(table_rows_per_chunk=1),  # >1000 chunks: Chroma writes all its HNSW files
        jobs=JobsSettings(workers=1),
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damage")
    docs = root / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text("# 员工手册\n\n## 请假制度\n\n员工每年享有带薪年假十天。\n", encoding="utf-8")
    (docs / "contract.txt").write_text("第一章 总则\n\n乙方逾期交付的，应当按日支付违约金。\n", encoding="utf-8")
    rows = "\n".join(f"华东区{i},产品{i},{i * 10}" for i in range(1200))
    (docs / "sales.csv").write_text("地区,产品,销售额\n" + rows + "\n", encoding="utf-8")
    (docs / "extra.txt").write_text("一份稍后移除的文件。\n", encoding="utf-8")
    with KnowledgeBase(settings_for(root / "data")) as kb:
        report = kb.index_paths([docs])
        assert len(report.added) == 4
        kb.remove(str(docs / "extra.txt"))  # leaves a record in the BM25 log
    return root


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        path.write_bytes(bytes(data[: len(data) // 2]))
        return
    rng = random.Random(7)
    start = 100 if path.name.endswith(".sqlite3") else 0  # keep the SQLite magic: damage inside, not a stranger file
    step = max(1, (len(data) - start) // 50)
    for offset in range(start, len(data), step):
        data[offset : offset + 64] = bytes(rng.randrange(256) for _ in range(min(64, len(data) - offset)))
    path.write_bytes(bytes(data))


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([OFFICEQA, *args], env=env, capture_output=True, text=True, timeout=900, check=False)


@pytest.mark.slow
@pytest.mark.parametrize(("target", "how"), CASES, ids=[f"{t}-{h}" for t, h in CASES])
def test_a_damaged_store_file_is_named_with_its_fix_and_the_fix_works(
    template: Path, tmp_path: Path, target: str, how: str
) -> None:
    data = tmp_path / "data"
    shutil.copytree(template / "data", data)
    victims = sorted(data.glob(target))
    assert len(victims) == 1, f"{target} not found in {sorted(p.name for p in data.rglob('*'))}"
    damage(victims[0], how)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update(
        OFFICEQA_DATA_DIR=str(data),
        OFFICEQA_EMBEDDING__BACKEND="hash",
        OFFICEQA_CHUNKING__TABLE_ROWS_PER_CHUNK="1",
        OFFICEQA_JOBS__WORKERS="1",
    )

    # `index` over the unchanged folder must not call a store it cannot read "unchanged"
    refused = run(["index", str(template / "docs")], env)
    assert refused.returncode == 4, refused.stdout + refused.stderr
    assert "unchanged" not in refused.stdout and "Traceback" not in refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("officeqa: error: "), refused.stderr
    named = victims[0] if victims[0].parent.parent.name != "chroma" else victims[0].parent
    assert str(named) in lines[0] and "is damaged" in lines[0]
    fix = re.search(r"run `(officeqa [a-z -]+)`", lines[0])
    assert fix is not None, lines[0]

    # a search never crashes: it answers, or it says the same one line
    searched = run(["search", "年假", "--mode", "hybrid", "--json"], env)
    assert searched.returncode in (0, 4) and "Traceback" not in searched.stderr, searched.stderr

    fixed = run(fix.group(1).split()[1:], env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Traceback" not in fixed.stderr

    after = run(["search", "年假", "--mode", "hybrid", "--json"], env)
    assert after.returncode == 0, after.stderr
    assert any("年假" in json.loads(line)["text"] for line in after.stdout.splitlines())
    dense = run(["search", "产品1199", "--mode", "dense", "--json"], env)
    assert dense.returncode == 0 and dense.stdout.strip(), dense.stderr
    checked = run(["check", "--json"], env)
    assert checked.returncode == 0 and json.loads(checked.stdout)["clean"] is True, checked.stdout + checked.stderr
    again = run(["index", str(template / "docs"), "--json"], env)
    assert again.returncode == 0 and json.loads(again.stdout.splitlines()[-1])["skipped"] == 3, again.stdout
