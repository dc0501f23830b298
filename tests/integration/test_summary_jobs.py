"""Summary trees through the job queue: a document indexed by a summarising worker pool gets its tree in the
background (no question asked), after the index work and yielding to new index work; a removed or replaced
document loses its tree; a stopped pool's summary resumes from its stored nodes.

Real files, SQLite, Chroma and BM25 (hash embedder); the fake Ollama server writes model summaries, slowly
where a test needs a build to be in progress.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from summary_docs import write_report

from eval.fake_ollama import FakeOllama, Reply
from indexing.jobs import DONE, KIND_INDEX, KIND_SUMMARISE, PENDING, RUNNING, Job
from indexing.knowledge_base import KnowledgeBase
from indexing.service import IngestService
from indexing.summary import SummaryStore, SummaryTree, summary_store_path
from officeqa.generation import OllamaGenerator
from officeqa.settings import EmbeddingSettings, JobsSettings, OllamaSettings, Settings, SummarySettings

DEAD_HOST = "http://127.0.0.1:9"
HANDBOOK = (
    "# 员工手册\n\n## 第一章 考勤\n\n工作日上午九点上班，迟到三次扣除全勤奖。\n\n"
    "## 第二章 休假\n\n年假按工龄计算，满一年五天。\n"
)
NOTICE = "关于召开年度总结大会的通知\n\n公司定于2025年1月18日召开年度总结大会，请各部门于1月15日前报送名单。\n"


def make_settings(tmp_path: Path, on_index: str = "extractive", host: str = DEAD_HOST) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        embedding=EmbeddingSettings(backend="hash"),
        jobs=JobsSettings(workers=1, retry_backoff_s=0.0),
        ollama=OllamaSettings(host=host, num_ctx=4096, connect_timeout_s=0.5, read_timeout_s=30.0, retries=0),
        summary=SummarySettings(group_size=2, on_index=on_index),
    )


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 180.0) -> None:
    """Poll ``condition``; the deadline only guards against a hang (CI is a busy 2-core machine)."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.05)


def settled(service: IngestService) -> bool:
    return not any(j.live for j in service.jobs(limit=None))


def tree_of(settings: Settings, path: Path) -> tuple[str, SummaryTree | None]:
    with KnowledgeBase(settings) as kb:
        record = kb.registry.get(str(path.resolve()))
        assert record is not None
        doc_id = record.doc_id
    with SummaryStore(summary_store_path(settings)) as store:
        return doc_id, store.tree(doc_id)


def trees(settings: Settings) -> set[str]:
    with SummaryStore(summary_store_path(settings)) as store:
        return {t.doc_id for t in store.trees()}


def jobs_of(service: IngestService, path: Path, kind: str) -> list[Job]:
    return [j for j in service.jobs(paths=[path], limit=None) if j.kind == kind]


def model_nodes(tree: SummaryTree) -> int:
    """Nodes that cost a model call (a node with one child takes its child's summary)."""
    return sum(1 for n in tree.nodes if len(n.children) != 1)


@pytest.fixture
def service_factory() -> Iterator[Callable[..., IngestService]]:
    started: list[IngestService] = []

    def make(settings: Settings, **kwargs: object) -> IngestService:
        service = IngestService(settings, workers=1, summarise=True, **kwargs)  # type: ignore[arg-type]
        service.start()
        started.append(service)
        return service

    yield make
    for service in started:
        service.stop()


def slow_summaries(fake: FakeOllama, delay_s: float) -> None:
    """Each summary takes ``delay_s`` and depends on its prompt (different inputs, different summaries)."""

    def reply(body: dict) -> Reply:
        digest = hashlib.sha256(body["messages"][-1]["content"].encode()).hexdigest()[:8]
        return Reply(pieces=[f"模型摘要{digest}：收入增长，需关注成本。"], delay_s=delay_s)

    fake.reply_fn = reply


def test_indexed_documents_get_trees_in_the_background_and_lose_them_when_removed_or_replaced(
    tmp_path: Path, service_factory: Callable[..., IngestService]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    handbook, notice = docs / "员工手册.md", docs / "通知.txt"
    handbook.write_text(HANDBOOK, encoding="utf-8")
    notice.write_text(NOTICE, encoding="utf-8")
    settings = make_settings(tmp_path)
    events: list[dict] = []
    service = service_factory(settings, on_event=events.append)
    service.enqueue([handbook, notice])
    wait_for(lambda: settled(service) and len(jobs_of(service, handbook, KIND_SUMMARISE)) == 1, "the summaries")

    for path in (handbook, notice):
        summary = jobs_of(service, path, KIND_SUMMARISE)[0]
        assert (summary.state, summary.outcome, summary.source) == (DONE, "summarised", "indexed")
        assert "0 model calls" in (summary.error_message or "")
        _doc_id, tree = tree_of(settings, path)
        assert tree is not None and tree.nodes and all(n.extractive for n in tree.nodes), path
    handbook_id, handbook_tree = tree_of(settings, handbook)
    assert handbook_tree is not None
    assert handbook_tree.title == "员工手册" and any("年假" in n.summary for n in handbook_tree.nodes)
    # low priority: no summary started before the index work queued with it was done
    order = [(e["kind"], e["state"]) for e in events]
    assert order.index((KIND_SUMMARISE, DONE)) > max(i for i, e in enumerate(order) if e[0] == KIND_INDEX)

    # a new version: its tree is built, the old version's tree goes
    handbook.write_text(HANDBOOK.replace("五天", "七天"), encoding="utf-8")
    service.enqueue([handbook])
    wait_for(lambda: settled(service) and len(jobs_of(service, handbook, KIND_SUMMARISE)) == 2, "the new summary")
    new_id, new_tree = tree_of(settings, handbook)
    assert new_id != handbook_id and new_tree is not None
    assert any("七天" in n.summary for n in new_tree.nodes)
    notice_id, _ = tree_of(settings, notice)
    assert trees(settings) == {new_id, notice_id}

    # removed: its tree goes, the other stays
    service.enqueue_removal([notice])
    wait_for(lambda: settled(service), "the removal")
    assert trees(settings) == {new_id}


def test_with_on_index_off_nothing_is_summarised(
    tmp_path: Path, service_factory: Callable[..., IngestService]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "员工手册.md").write_text(HANDBOOK, encoding="utf-8")
    settings = make_settings(tmp_path, on_index="off")
    service = service_factory(settings)
    service.enqueue([docs / "员工手册.md"])
    wait_for(lambda: settled(service), "the index job")
    assert [j.kind for j in service.jobs(limit=None)] == [KIND_INDEX]
    assert not summary_store_path(settings).exists() or not trees(settings)


def test_model_mode_without_a_reachable_model_builds_extractively(
    tmp_path: Path, service_factory: Callable[..., IngestService]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "员工手册.md").write_text(HANDBOOK, encoding="utf-8")
    settings = make_settings(tmp_path, on_index="model")  # the generator points at a dead port
    generator = OllamaGenerator(settings.ollama)
    try:
        service = service_factory(settings, generator=generator)
        service.enqueue([docs / "员工手册.md"])
        wait_for(lambda: settled(service) and jobs_of(service, docs / "员工手册.md", KIND_SUMMARISE), "the summary")
        _, tree = tree_of(settings, docs / "员工手册.md")
        assert tree is not None and all(n.extractive for n in tree.nodes)
    finally:
        generator.close()


def test_a_summary_yields_to_new_index_work_and_resumes_without_repeating_a_model_call(
    tmp_path: Path, service_factory: Callable[..., IngestService], fake_ollama: FakeOllama
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    report = docs / "年度报告.docx"
    write_report(report, pages=40)
    slow_summaries(fake_ollama, delay_s=0.2)
    settings = make_settings(tmp_path, on_index="model", host=fake_ollama.url)
    generator = OllamaGenerator(settings.ollama)
    try:
        service = service_factory(settings, generator=generator)
        service.enqueue([report])

        def summarising() -> bool:
            jobs = jobs_of(service, report, KIND_SUMMARISE)
            return bool(jobs) and jobs[0].state == RUNNING and len(fake_ollama.chat_requests()) >= 2

        wait_for(summarising, "the report's summary to be under way")
        notice = docs / "通知.txt"
        notice.write_text(NOTICE, encoding="utf-8")
        [notice_job] = service.enqueue([notice])
        wait_for(lambda: settled(service) and len(jobs_of(service, notice, KIND_SUMMARISE)) == 1, "everything")

        indexed = next(j for j in jobs_of(service, notice, KIND_INDEX) if j.id == notice_job)
        summary = jobs_of(service, report, KIND_SUMMARISE)[0]
        assert summary.state == DONE and summary.attempts == 0
        assert summary.started_at is not None and indexed.finished_at is not None
        assert summary.started_at >= indexed.finished_at  # it gave way, and was taken up again after
        _, report_tree = tree_of(settings, report)
        _, notice_tree = tree_of(settings, notice)
        assert report_tree is not None and notice_tree is not None
        assert not any(n.extractive for n in report_tree.nodes)
        # the resumed build reused every node made before it yielded: no call was made twice
        assert len(fake_ollama.chat_requests()) == model_nodes(report_tree) + model_nodes(notice_tree)
    finally:
        generator.close()


def test_a_stopped_pool_gives_the_summary_back_and_the_next_one_finishes_it(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    report = docs / "年度报告.docx"
    write_report(report, pages=40)
    slow_summaries(fake_ollama, delay_s=0.2)
    settings = make_settings(tmp_path, on_index="model", host=fake_ollama.url)
    generator = OllamaGenerator(settings.ollama)
    try:
        first = IngestService(settings, workers=1, summarise=True, generator=generator)
        first.start()
        try:
            first.enqueue([report])
            wait_for(lambda: len(fake_ollama.chat_requests()) >= 3, "the summary to be under way")
        finally:
            first.stop()
        [summary] = jobs_of(first, report, KIND_SUMMARISE)
        assert (summary.state, summary.attempts) == (PENDING, 0)  # given back, not counted as a failure
        made = len(fake_ollama.chat_requests())
        assert tree_of(settings, report)[1] is None

        second = IngestService(settings, workers=1, summarise=True, generator=generator)
        second.start()
        try:
            wait_for(lambda: settled(second), "the summary to finish")
        finally:
            second.stop()
        _, tree = tree_of(settings, report)
        assert tree is not None and not any(n.extractive for n in tree.nodes)
        assert made < model_nodes(tree)
        assert len(fake_ollama.chat_requests()) == model_nodes(tree)  # the second pool made only the missing calls
    finally:
        generator.close()


def test_removing_a_document_while_its_tree_is_built_cancels_the_build_and_leaves_no_tree(
    tmp_path: Path, service_factory: Callable[..., IngestService], fake_ollama: FakeOllama
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    report = docs / "年度报告.docx"
    write_report(report, pages=40)
    slow_summaries(fake_ollama, delay_s=0.2)
    settings = make_settings(tmp_path, on_index="model", host=fake_ollama.url)
    generator = OllamaGenerator(settings.ollama)
    try:
        service = service_factory(settings, generator=generator)
        service.enqueue([report])
        wait_for(lambda: len(fake_ollama.chat_requests()) >= 2, "the summary to be under way")
        service.enqueue_removal([report])
        wait_for(lambda: settled(service), "the removal")
        summary = jobs_of(service, report, KIND_SUMMARISE)[0]
        assert (summary.state, summary.outcome) == (DONE, "superseded")  # the removal waited for it to stop
        calls = len(fake_ollama.chat_requests())
        time.sleep(0.5)  # a build that went on would make more calls (one every 0.2 s)
        assert len(fake_ollama.chat_requests()) == calls
        assert trees(settings) == set()
    finally:
        generator.close()
