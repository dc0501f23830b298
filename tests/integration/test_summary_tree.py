"""The summary tree end to end: a generated 40-page annual report (docx with real page breaks), the
knowledge base (hash embedder), ``officeqa summarize`` and the fake Ollama server counting model calls.

What must hold: the tree follows the report's heading tree; a run killed mid-document
(SIGKILL) resumes with exactly the missing model calls; editing one section regenerates only
that branch; an unchanged document costs no call; with no server the tree is extractive, of
the same shape, answers a global question with section citations, and is upgraded by a later
run with a model.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from summary_docs import write_report

from eval.fake_ollama import FakeOllama, Reply
from indexing.storage import open_knowledge_base
from indexing.summary import (
    SummaryBuilder,
    SummaryStore,
    SummaryTree,
    document_source,
    summary_materials,
    summary_store_path,
)
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings, SummarySettings
from officeqa.tokens import default_token_counter
from retrieval.citations import citation_from_metadata
from server.cli import main

REPO = Path(__file__).resolve().parents[2]
DEAD_HOST = "http://127.0.0.1:9"
EDIT = "补充说明：第三章第二节新增投资项目一项，金额为8800万元，由董事会于2023年12月批准。"


def make_settings(data_dir: Path, host: str = DEAD_HOST) -> Settings:
    return Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(backend="hash"),
        ollama=OllamaSettings(host=host, num_ctx=4096, connect_timeout_s=1.0, read_timeout_s=10.0, retries=0),
        summary=SummarySettings(group_size=2),
    )


def write_config(path: Path, settings: Settings) -> Path:
    path.write_text(
        f'data_dir = "{settings.data_dir.as_posix()}"\n'
        '[embedding]\nbackend = "hash"\n'
        f'[ollama]\nhost = "{settings.ollama.host}"\nnum_ctx = 4096\nconnect_timeout_s = 1.0\nretries = 0\n'
        "read_timeout_s = 10.0\n"
        "[summary]\ngroup_size = 2\n",
        encoding="utf-8",
    )
    return path


def summarising_server(fake: FakeOllama) -> None:
    """Replies derived from the prompt (so different inputs give different summaries), with the
    prompt's token count reported as the real server would."""
    count = default_token_counter().count

    def reply(body: dict) -> Reply:
        user = body["messages"][-1]["content"]
        digest = hashlib.sha256(user.encode("utf-8")).hexdigest()[:8]
        tokens = sum(count(m["content"]) + 8 for m in body["messages"])
        return Reply(pieces=[f"模型摘要{digest}：营业收入与毛利率保持增长，需关注原材料价格波动。"],
                     prompt_eval_count=tokens)

    fake.reply_fn = reply


def run_cli(config: Path, *args: str) -> int:
    return main(["--config", str(config), "summarize", *args])


def load_tree(settings: Settings, path: Path) -> SummaryTree:
    with open_knowledge_base(settings) as kb:
        record = kb.registry.get(str(path.resolve()))
        assert record is not None
        doc_id = record.doc_id
    with SummaryStore(summary_store_path(settings)) as store:
        tree = store.tree(doc_id)
    assert tree is not None
    return tree


def model_nodes(tree: SummaryTree) -> int:
    """Nodes that need a model call: all but those with exactly one child (they take the child's summary)."""
    return sum(1 for n in tree.nodes if len(n.children) != 1)


@pytest.fixture
def report(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    path = folder / "星辰集团2023年年度报告.docx"
    outline = write_report(path, pages=40)
    return path, outline


@pytest.mark.slow
def test_tree_follows_the_heading_tree_of_a_40_page_report(tmp_path: Path, report, fake_ollama: FakeOllama) -> None:
    path, outline = report
    summarising_server(fake_ollama)
    settings = make_settings(tmp_path / "data", fake_ollama.url)
    config = write_config(tmp_path / "officeqa.toml", settings)
    out = tmp_path / "out"

    assert run_cli(config, str(path), "--out", str(out), "--format", "json") == 0

    tree = load_tree(settings, path)
    root = tree.root
    assert root.level == 0 and root.parent is None and root.span.pages() == [1, 40]
    sections = [n for n in tree.nodes if n.kind == "section"]
    # every heading of the report is one section node, at its heading level, under its chapter
    expected = [(c.title, 1, None) for c in outline] + [
        (s.title, 2, c.title) for c in outline for s in c.sections
    ]
    got = [(n.title, n.level, tree.node(n.parent).title if n.level == 2 else None) for n in sections]
    assert sorted(got) == sorted(expected)
    assert [tree.node(c).title for c in root.children] == [c.title for c in outline]
    # leaves cover every chunk once, in document order; a group's chunks lie in its parent's section
    with open_knowledge_base(settings) as kb:
        source = document_source(kb, tree.doc_id, str(path.resolve()))
    leaves = [n for n in tree.nodes if not n.children]
    assert [cid for leaf in leaves for cid in leaf.chunk_ids] == [c.id for c in source.chunks]
    for node in tree.nodes:
        if node.kind == "group":
            assert node.heading_path == tree.node(node.parent).heading_path
    # the long section (chapter 3, section 1: 8 pages) is read as several groups of 2 chunks
    long_section = next(n for n in sections if n.title == outline[2].sections[0].title)
    assert len(long_section.children) >= 2
    assert all(tree.node(c).kind == "group" for c in long_section.children)
    # page ranges nest: a parent spans its children
    for node in tree.nodes:
        for child in tree.children(node):
            assert node.span.page <= child.span.page <= child.span.page_end <= node.span.page_end
    # one model call per node that has to be written (single-child nodes copy their child)
    assert len(fake_ollama.chat_requests()) == model_nodes(tree)
    assert tree.extractive_nodes == 0
    assert all(r["options"]["num_ctx"] == 4096 and r["options"]["num_predict"] > 0
               for r in fake_ollama.chat_requests())
    # the JSON report: the contract's fields for every node
    (json_file,) = out.glob("*.json")
    data = json.loads(json_file.read_text(encoding="utf-8"))
    assert data["document"] == str(path.resolve())
    assert len(data["nodes"]) == len(tree.nodes)
    for node in data["nodes"]:
        assert {"id", "parent", "level", "title", "pages", "summary", "extractive"} <= set(node)
    assert data["nodes"][0]["pages"] == [1, 40]

    # a second run: nothing to generate
    before = len(fake_ollama.chat_requests())
    assert run_cli(config, str(path), "--out", str(out)) == 0
    assert len(fake_ollama.chat_requests()) == before
    (md_file,) = out.glob("*.md")
    markdown = md_file.read_text(encoding="utf-8")
    assert markdown.startswith("# 星辰集团2023年年度报告")
    assert f"### {outline[3].title} (p. " in markdown


@pytest.mark.slow
def test_a_killed_batch_resumes_with_only_the_missing_model_calls(
    tmp_path: Path, report, fake_ollama: FakeOllama
) -> None:
    path, _ = report
    settings = make_settings(tmp_path / "data", fake_ollama.url)
    config = write_config(tmp_path / "officeqa.toml", settings)
    with open_knowledge_base(settings) as kb:  # indexed beforehand: the subprocess only summarises
        assert not kb.index_paths([path]).failed
    summarising_server(fake_ollama)
    answer = fake_ollama.reply_fn
    kill_at = 7
    process: dict[str, subprocess.Popen] = {}
    killed = threading.Event()

    def kill_on_call(body: dict) -> Reply:
        if len(fake_ollama.chat_requests()) == kill_at:
            os.kill(process["p"].pid, signal.SIGKILL)  # while call 7 is in flight: calls 1-6 are answered
            killed.set()
        return answer(body)

    fake_ollama.reply_fn = kill_on_call
    code = "import sys; from server.cli import main; sys.exit(main())"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_") and k != "OLLAMA_HOST"}
    process["p"] = subprocess.Popen(
        [sys.executable, "-c", code, "--config", str(config), "summarize", str(path), "--out", str(tmp_path / "out")],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    process["p"].communicate(timeout=300)
    assert killed.is_set() and process["p"].returncode == -signal.SIGKILL
    assert len(fake_ollama.chat_requests()) == kill_at
    with SummaryStore(summary_store_path(settings)) as store:
        assert store.summary_count() == kill_at - 1  # every answered call was stored at once
        assert store.trees() == []

    fake_ollama.reply_fn = answer
    fake_ollama.requests.clear()
    assert run_cli(config, str(path), "--out", str(tmp_path / "out")) == 0
    tree = load_tree(settings, path)
    assert len(fake_ollama.chat_requests()) == model_nodes(tree) - (kill_at - 1)
    assert tree.extractive_nodes == 0


@pytest.mark.slow
def test_editing_one_section_rebuilds_only_its_branch(tmp_path: Path, report, fake_ollama: FakeOllama) -> None:
    path, outline = report
    summarising_server(fake_ollama)
    settings = make_settings(tmp_path / "data", fake_ollama.url)
    config = write_config(tmp_path / "officeqa.toml", settings)
    assert run_cli(config, str(path), "--out", str(tmp_path / "out")) == 0
    before = load_tree(settings, path)

    write_report(path, pages=40, edit=(3, 2, EDIT))  # chapter 3, section 2
    fake_ollama.requests.clear()
    assert run_cli(config, str(path), "--out", str(tmp_path / "out")) == 0
    after = load_tree(settings, path)
    assert after.doc_id != before.doc_id  # a new version of the file

    edited = next(n for n in after.nodes if n.title == outline[2].sections[1].title and n.kind == "section")
    branch = {edited.id}
    branch |= {n.id for n in after.nodes if n.id.startswith(edited.id + ".")}
    parent = edited.parent
    while parent is not None:
        branch.add(parent)
        parent = after.node(parent).parent
    old_keys = {n.id: n.key for n in before.nodes}
    changed = {n.id for n in after.nodes if old_keys.get(n.id) != n.key}
    assert changed == branch
    calls = fake_ollama.chat_requests()
    assert len(calls) == sum(1 for i in branch if len(after.node(i).children) != 1)
    assert any(EDIT[:10] in r["messages"][-1]["content"] for r in calls)
    # the old version's tree is dropped (the registry no longer lists it); the new one is complete
    with SummaryStore(summary_store_path(settings)) as store:
        assert store.tree(before.doc_id) is None
        assert [t.doc_id for t in store.trees()] == [after.doc_id]


@pytest.mark.slow
def test_model_failure_mid_document_falls_back_then_a_rerun_makes_only_the_missing_calls(
    tmp_path: Path, report, fake_ollama: FakeOllama
) -> None:
    """A generator that fails after N calls (server error): the tree is finished extractively, the
    answered calls are kept, and the next run with a healthy server generates only the rest."""
    path, _ = report
    settings = make_settings(tmp_path / "data", fake_ollama.url)
    summarising_server(fake_ollama)
    answer = fake_ollama.reply_fn
    fail_after = 5

    def failing(body: dict) -> Reply:
        if len(fake_ollama.chat_requests()) > fail_after:
            return Reply(status=500, error="model crashed")
        return answer(body)

    fake_ollama.reply_fn = failing
    from officeqa.generation import OllamaGenerator

    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([path]).failed
        record = kb.registry.get(str(path.resolve()))
        source = document_source(kb, record.doc_id, record.path)
    with SummaryStore(summary_store_path(settings)) as store:
        generator = OllamaGenerator(settings.ollama)
        with SummaryBuilder(settings, store, generator) as builder:
            first = builder.build(source)
        generator.close()
        assert first.model_calls == fail_after
        assert first.fallback is not None and "server_error" in first.fallback
        assert first.tree is not None and 0 < first.tree.extractive_nodes < len(first.tree.nodes)

        fake_ollama.reply_fn = answer
        fake_ollama.requests.clear()
        generator = OllamaGenerator(settings.ollama)
        with SummaryBuilder(settings, store, generator) as builder:
            second = builder.build(source)
        generator.close()
    assert second.tree is not None and second.tree.extractive_nodes == 0
    assert len(fake_ollama.chat_requests()) == second.model_calls == model_nodes(second.tree) - fail_after


@pytest.mark.slow
def test_without_a_server_the_tree_is_extractive_same_shape_and_answers_a_global_question(
    tmp_path: Path, report, fake_ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    path, outline = report
    settings = make_settings(tmp_path / "data")  # nothing listens there
    config = write_config(tmp_path / "offline.toml", settings)
    assert run_cli(config, str(path), "--out", str(tmp_path / "out")) == 0
    assert "no model" in capsys.readouterr().err
    extractive = load_tree(settings, path)
    assert extractive.extractive_nodes == len(extractive.nodes)
    assert all(n.model.startswith("extractive") and n.summary for n in extractive.nodes)

    # same shape as the model's tree of the same file
    summarising_server(fake_ollama)
    reference = make_settings(tmp_path / "reference", fake_ollama.url)
    assert run_cli(write_config(tmp_path / "online.toml", reference), str(path), "--out", str(tmp_path / "o2")) == 0
    shape = [(n.id, n.parent, n.level, n.kind, n.title) for n in load_tree(reference, path).nodes]
    assert [(n.id, n.parent, n.level, n.kind, n.title) for n in extractive.nodes] == shape

    # a global question answered from the extractive tree names the chapter and its pages
    chapter = outline[3].title  # 第四章 公司治理
    with SummaryStore(summary_store_path(settings)) as store:
        context = summary_materials(store, "概括第四章的主要内容", [extractive.doc_id], budget_tokens=2500)
    assert context.named == [chapter]
    assert context.extractive and not context.missing
    assert context.materials[0].meta["node_id"] == "0"  # the document summary first
    assert context.materials[1].meta["heading_path"] == [chapter]
    citations = [citation_from_metadata(n, m.chunk_id, m.meta["doc_id"], m.meta)
                 for n, m in enumerate(context.materials, start=1)]
    chapter_citation = citations[1]
    node = next(n for n in extractive.nodes if n.title == chapter)
    assert (chapter_citation.page, chapter_citation.page_end) == (node.span.page, node.span.page_end)
    assert chapter_citation.heading_path == [chapter]
    assert chapter_citation.document == path.name
    assert f"{chapter}（p. {node.span.page}-{node.span.page_end}）" in context.answer
    assert "[1]" in context.answer and "[2]" in context.answer
    assert all(c.heading_path[0] == chapter for c in citations[1:])  # the chapter, then its sections

    # a model appears: the next run replaces every extractive node
    fake_ollama.requests.clear()
    online = make_settings(tmp_path / "data", fake_ollama.url)
    assert run_cli(write_config(tmp_path / "upgrade.toml", online), str(path), "--out", str(tmp_path / "out")) == 0
    upgraded = load_tree(online, path)
    assert upgraded.extractive_nodes == 0
    assert len(fake_ollama.chat_requests()) == model_nodes(upgraded)


def _sections(n: int) -> list:
    from indexing.summary import SourceChunk

    return [SourceChunk(id=f"d-{i:05d}", text=f"第{i}节：营业收入{100 + i}亿元，同比增长{i % 9 + 1}%。",
                        heading_path=[f"第{i}节"], tokens=30, page=i + 1) for i in range(n)]


@pytest.mark.parametrize("concurrency", [1, 2])
def test_model_calls_in_flight_never_exceed_the_concurrency(
    tmp_path: Path, fake_ollama: FakeOllama, concurrency: int
) -> None:
    from indexing.summary import DocumentSource
    from officeqa.generation import OllamaGenerator

    summarising_server(fake_ollama)
    answer = fake_ollama.reply_fn
    lock = threading.Condition()
    state = {"active": 0, "max": 0, "paired": False}

    def tracking(body: dict) -> Reply:
        with lock:
            state["active"] += 1
            state["max"] = max(state["max"], state["active"])
            lock.notify_all()
            if concurrency == 2 and not state["paired"]:  # hold the first call until a second one arrives
                lock.wait_for(lambda: state["max"] >= 2, timeout=30)
                state["paired"] = True
        try:
            return answer(body)
        finally:
            with lock:
                state["active"] -= 1

    fake_ollama.reply_fn = tracking
    settings = make_settings(tmp_path / "data", fake_ollama.url)
    source = DocumentSource(doc_id="d", path="/docs/d.docx", title="报告", language="zh", chunks=_sections(6))
    generator = OllamaGenerator(settings.ollama)
    with SummaryStore(summary_store_path(settings)) as store, SummaryBuilder(
        settings, store, generator, concurrency=concurrency
    ) as builder:
        result = builder.build(source)
    generator.close()
    assert result.model_calls == 7  # six sections (leaves) and the document
    assert state["max"] == concurrency


@pytest.mark.slow
def test_the_batch_lists_failures_goes_on_and_exits_non_zero(
    tmp_path: Path, report, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = report
    broken = path.parent / "损坏.docx"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    settings = make_settings(tmp_path / "data")
    config = write_config(tmp_path / "officeqa.toml", settings)
    out = tmp_path / "out"
    code = run_cli(config, str(path.parent), str(tmp_path / "missing.pdf"), "--out", str(out), "--no-model")
    captured = capsys.readouterr()
    assert code == 4
    assert len(list(out.glob("*.md"))) == 1
    failures = captured.err.split("failures:\n", 1)[1].splitlines()
    assert any("损坏.docx: cannot be indexed: corrupt" in line for line in failures)
    assert any("missing.pdf: not found" in line for line in failures)
    assert "1 of 3 documents have a tree" in captured.err
    assert "model calls 0" in captured.err
