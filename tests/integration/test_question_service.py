"""The question service end to end, on a small knowledge base of realistic office files.

What a user sees is asserted: the answer text, its citations (document, quote, chunk) and the
scope it reports. The knowledge base is real (SQLite, Chroma, BM25, stored parsed documents)
with the deterministic ``hash`` embedder; no model runs (extractive and rule answers).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import docx
import pytest

from eval.harness import build_summary_trees
from indexing.jobs import DONE, KIND_SUMMARISE, PENDING
from indexing.knowledge_base import KnowledgeBase
from indexing.service import IngestService
from indexing.summary import summary_store_path
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService
from server.cli import main

pytestmark = pytest.mark.slow


def _contract(path: Path) -> None:
    doc = docx.Document()
    doc.add_heading("设备采购合同", level=1)
    doc.add_paragraph("甲方：上海明远科技有限公司，联系电话：021-63218800。")
    doc.add_paragraph("乙方：杭州博达设备有限公司，联系人王磊，手机 13905711234。")
    doc.add_heading("第一条 合同标的", level=2)
    doc.add_paragraph("乙方向甲方提供数控机床三台，型号为BD-5200。")
    doc.add_heading("第二条 合同价款与付款方式", level=2)
    paragraph = doc.add_paragraph("合同总价款为人民币贰佰肆拾万元整（¥2,400,000.00）。")
    doc.add_paragraph("甲方应于设备验收合格后三十日内支付全部价款。")
    doc.add_comment(paragraph.runs, text="付款节点需财务部复核，建议分两期支付。", author="李雷")
    doc.add_heading("第三条 违约责任", level=2)
    doc.add_paragraph("乙方逾期交货的，每逾期一日按合同总价款的千分之三向甲方支付违约金。")
    doc.save(path)


def _policy(path: Path, version: str, date: str, hotel: str) -> None:
    doc = docx.Document()
    doc.add_heading("差旅费管理办法", level=1)
    doc.add_paragraph(f"版本号：{version}")
    doc.add_paragraph(f"生效日期：{date}")
    doc.add_heading("第一章 住宿标准", level=2)
    doc.add_paragraph(f"员工出差住宿费标准为每人每晚不超过{hotel}元。")
    doc.add_heading("第二章 交通", level=2)
    doc.add_paragraph("出差乘坐高铁二等座，八小时以上可乘坐飞机经济舱。")
    doc.save(path)


FILES = {
    "合同/设备采购合同.docx": _contract,
    "人事/员工手册.md": (
        "# 员工手册\n\n## 第一章 假期\n\n员工入职满一年后享有带薪年休假五天，满十年享有十天。\n\n"
        "## 第二章 联系方式\n\n人事部咨询电话：0571-88001122，邮箱 hr@mingyuan.cn。\n"
    ),
    "通知/关于召开年度总结大会的通知.txt": (
        "关于召开年度总结大会的通知\n\n各部门：\n公司定于2025年1月18日下午两点在三楼报告厅召开年度总结大会，"
        "请各部门负责人于1月15日前报送参会名单。\n会务联系人：赵敏，电话 13588886666。\n"
    ),
    "en/onboarding-guide.md": (
        "# Onboarding Guide\n\n## IT accounts\n\nNew employees receive a laptop on their first day. "
        "The IT help desk can be reached at extension 8200.\n"
    ),
}


@pytest.fixture(scope="module")
def kb_settings(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    root = tmp_path_factory.mktemp("files")
    for name, content in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(path)
        else:
            path.write_text(content, encoding="utf-8")
    (root / "制度").mkdir()
    _policy(root / "制度" / "差旅费管理办法（2023版）.docx", "V1.0", "2023年1月1日", "400")
    _policy(root / "制度" / "差旅费管理办法（2024修订）.docx", "V2.0", "2024年3月1日", "550")
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("data"),
        embedding=EmbeddingSettings(backend="hash"),
        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0),
    )
    with KnowledgeBase.open(settings) as kb:
        report = kb.index_paths([root])
        build_summary_trees(kb)  # as the background summariser does after indexing (summary.on_index)
    assert not report.failed, report.failed
    return settings, root


@pytest.fixture(scope="module")
def service(kb_settings: tuple[Settings, Path]):
    settings, _ = kb_settings
    with QuestionService.open(settings, generator=None) as svc:
        yield svc


def test_a_named_document_scopes_the_handler(service: QuestionService) -> None:
    answer = service.ask("提取员工手册中的所有电话号码")
    assert answer.mode == "rule"
    assert answer.metadata["scope"]["method"] == "named"
    assert [d["path"].split("/")[-1] for d in answer.metadata["scope"]["documents"]] == ["员工手册.md"]
    assert "0571-88001122" in answer.text
    assert "13905711234" not in answer.text and "13588886666" not in answer.text  # other files stay out
    assert "员工手册.md" in answer.text.splitlines()[-1]  # the answer says which document it used
    (citation,) = answer.citations
    assert citation.quote == "人事部咨询电话：0571-88001122，邮箱 hr@mingyuan.cn。"
    assert citation.chunk_id and citation.heading_path[-1] == "第二章 联系方式"


def test_deictic_document_type_words_name_the_document(service: QuestionService) -> None:
    answer = service.ask("这份合同里有哪些手机号和电话？")
    assert answer.metadata["scope"]["documents"][0]["path"].endswith("设备采购合同.docx")
    assert "021-63218800" in answer.text and "13905711234" in answer.text
    assert "0571-88001122" not in answer.text


def test_citations_quote_sentences_and_point_at_chunks_that_contain_them(service: QuestionService) -> None:
    answer = service.ask("提取合同中的电话号码")
    kb = service.kb
    for citation in answer.citations:
        text, _ = kb.fetch([citation.chunk_id])[citation.chunk_id]
        assert citation.quote.replace(" ", "") in text.replace(" ", "")
        assert len(citation.quote) > 15  # a sentence, not the bare number
    assert len({c.quote for c in answer.citations}) == len(answer.citations)  # no duplicates


def test_the_newest_version_wins_and_the_answer_says_so(service: QuestionService) -> None:
    answer = service.ask("差旅费管理办法规定的住宿费标准是多少？")
    assert "550" in answer.text and "400元" not in answer.text
    assert "最新版本" in answer.text and "2024修订" in answer.text
    assert all("2024修订" in c.document for c in answer.citations)
    assert answer.metadata["scope"]["superseded"]


def test_a_word_comment_is_shown_with_its_label_and_author(service: QuestionService) -> None:
    answer = service.ask("合同付款条款的批注意见是什么？")
    assert "批注（李雷）：付款节点需财务部复核，建议分两期支付。" in answer.text
    assert any(c.label_note == "批注（李雷）" for c in answer.citations)


def test_a_clause_is_found_by_its_heading(service: QuestionService) -> None:
    answer = service.ask("合同中违约责任是怎么约定的？")
    assert "千分之三" in answer.text
    assert any(c.heading_path and c.heading_path[-1] == "第三条 违约责任" for c in answer.citations)


def test_nothing_in_the_documents_says_not_found(service: QuestionService) -> None:
    answer = service.ask("合同约定的仲裁委员会是哪一家？")
    assert answer.text.splitlines()[0] == "文档中未找到与问题相关的内容。"


def test_english_questions_get_english_fixed_texts(service: QuestionService) -> None:
    rule = service.ask("Extract all phone numbers from the employee handbook")
    assert rule.language == "en" and rule.text.startswith("Found 1 phone number:")
    assert "共找到" not in rule.text and "依据" not in rule.text
    missing = service.ask("Which arbitration commission does the contract name?")
    assert missing.text.startswith("Not found in the documents") or "different languages" in missing.text
    assert "文档中" not in missing.text.splitlines()[0]


def test_follow_up_questions_carry_the_subject(service: QuestionService) -> None:
    history = [{"role": "user", "content": "年度总结大会在哪天召开？"},
               {"role": "assistant", "content": "2025年1月18日。"}]
    answer = service.ask("那参会名单什么时候报送？", history=history)
    assert "1月15日" in answer.text


def test_questions_read_stored_documents_not_source_files(kb_settings: tuple[Settings, Path], tmp_path: Path) -> None:
    """The stored parsed form answers even when the source file is gone (nothing parses at question time)."""
    settings, root = kb_settings
    moved = tmp_path / "moved"
    shutil.copytree(root, moved)
    shutil.rmtree(root)
    try:
        with QuestionService.open(settings, generator=None) as svc:
            answer = svc.ask("提取通知中的电话号码")
        assert "13588886666" in answer.text and answer.citations[0].quote.startswith("会务联系人")
    finally:
        shutil.copytree(moved, root)


def test_explicit_documents_win_over_names(service: QuestionService) -> None:
    contract = next(e.doc_id for e in service.catalog().values() if e.path.endswith("设备采购合同.docx"))
    answer = service.ask("提取员工手册中的电话号码", documents=[contract[:12]])
    assert answer.metadata["scope"]["method"] == "explicit"
    assert "0571-88001122" not in answer.text and "021-63218800" in answer.text


def test_cli_ask_json_has_the_service_shape(kb_settings: tuple[Settings, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    settings, _ = kb_settings
    config = tmp_path / "c.toml"
    config.write_text(f'data_dir = "{settings.data_dir.as_posix()}"\n[embedding]\nbackend = "hash"\n',
                      encoding="utf-8")
    assert main(["--config", str(config), "ask", "员工入职满一年有几天年假？", "--no-model", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["mode"] == "extractive" and "五天" in out["answer"]
    assert {"route", "scope", "retrieval", "timings"} <= set(out["metadata"])
    assert out["citations"][0]["document"] == "员工手册.md"


def test_an_empty_knowledge_base_says_how_to_start(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "empty", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with QuestionService.open(settings, generator=None) as svc:
        zh = svc.ask("年假有几天？")
        en = svc.ask("How many vacation days do I get?")
    assert "officeqa index" in zh.text and "还没有文档" in zh.text and not zh.citations
    assert en.text.startswith("The knowledge base is empty") and "officeqa index" in en.text


def test_a_computation_routed_to_retrieval_is_answered_exactly_from_a_table(tmp_path: Path, corpus_dir: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    shutil.copy(corpus_dir / "csv" / "EDGE_utf16-bom_stanley-cups.csv", files / "stanley-cups.csv")
    (files / "club.md").write_text("# Club history\n\nThe club was founded in 1902 and won the most titles in 1960.\n",
                                   encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with KnowledgeBase.open(settings) as kb:
        assert not kb.index_paths([files]).failed
    with QuestionService.open(settings, generator=None) as svc:
        total = svc.ask("How many Stanley Cups in total?")  # the file is named by the column's own words
        most = svc.ask("Which team won the Stanley Cup the most times?")
        text = svc.ask("When was the club founded?")
    assert total.mode == "rule" and "Result: 16 (exact: 16)" in total.text, total.text
    assert total.citations and total.citations[0].document == "stanley-cups.csv"
    assert "Maple Leafs: 13" in most.text and most.metadata.get("table_probe") == "exact"
    assert text.mode == "extractive" and "1902" in text.text


def test_a_named_document_asked_about_as_a_whole_gets_its_summary(service: QuestionService) -> None:
    answer = service.ask("关于召开年度总结大会的通知.txt 讲了什么？")
    assert answer.metadata["route"]["route"] == "summary_tree", answer.metadata["route"]
    assert "年度总结大会" in answer.text and answer.citations


def test_which_documents_is_answered_from_the_catalog(service: QuestionService,
                                                    kb_settings: tuple[Settings, Path]) -> None:
    zh = service.ask("知识库里有哪些文档？")
    en = service.ask("Which documents do you have?")
    assert zh.mode == en.mode == "rule" and zh.metadata["catalog"] == {"documents": 6, "types": {"DOCX": 3, "MD": 2,
                                                                                              "TXT": 1}}
    assert zh.text.startswith("知识库中共有 6 个文档（DOCX 3、MD 2、TXT 1）：")
    assert "- 合同/设备采购合同.docx（DOCX）" in zh.text.splitlines()
    assert "- 制度/差旅费管理办法（2024修订）.docx (DOCX)" in en.text.splitlines()
    assert en.text.startswith("The knowledge base holds 6 documents (DOCX 3, MD 2, TXT 1):")
    assert str(kb_settings[1]) not in zh.text + en.text
    listed = service.ask("合同里有哪些条款？")  # a list of something else: not the catalog
    assert "catalog" not in listed.metadata


def test_a_missing_summary_tree_is_queued_and_the_question_answered_from_what_exists(tmp_path: Path) -> None:
    """Reading never writes a tree: the summariser gets a job (once), the answer says so and comes from
    retrieval; once the background summariser has run the job, the same question is answered from the tree."""
    name = "关于召开年度总结大会的通知.txt"
    files = tmp_path / "files"
    files.mkdir()
    (files / name).write_text(FILES[f"通知/{name}"], encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with KnowledgeBase.open(settings) as kb:
        assert not kb.index_paths([files]).failed
    with QuestionService.open(settings, generator=None) as svc:
        first = svc.ask(f"{name} 讲了什么？")
        second = svc.ask(f"{name} 讲了什么？")
        doc_id = next(iter(svc.catalog()))
        jobs = svc.kb.jobs.latest(kinds=(KIND_SUMMARISE,))
        assert first.metadata["route"]["route"] == "summary_tree"
        assert first.metadata["summary"] == {"missing": [doc_id], "queued": True}
        assert "摘要树尚未生成，已加入后台生成队列" in first.text and first.mode == "extractive"
        assert second.metadata["summary"] == first.metadata["summary"]
        assert [(j.path, j.state, j.source) for j in jobs] == [(str(files / name), PENDING, "question")]
        assert not summary_store_path(settings).exists()  # the question wrote no tree store
        summariser = IngestService(settings, workers=1, summarise=True)  # the server's background worker
        summariser.start()
        try:
            deadline = time.monotonic() + 180  # guards against a hang only (a busy 2-core machine)
            while any(j.live for j in svc.kb.jobs.latest(kinds=(KIND_SUMMARISE,))):
                assert time.monotonic() < deadline, "the summariser never ran the queued job"
                time.sleep(0.05)
        finally:
            summariser.stop()
        assert [(j.state, j.outcome) for j in svc.kb.jobs.latest(kinds=(KIND_SUMMARISE,))] == [(DONE, "summarised")]
        third = svc.ask(f"{name} 讲了什么？")
    assert "missing" not in third.metadata["summary"] and "摘要树尚未生成" not in third.text
    assert "年度总结大会" in third.text and third.citations and third.notice and "摘要树" in third.notice


def test_a_low_confidence_rule_that_found_nothing_leaves_the_question_to_the_model(tmp_path: Path,
                                                                                    fake_ollama) -> None:
    from fake_ollama import Reply

    from officeqa.generation import OllamaGenerator

    files = tmp_path / "files"
    files.mkdir()
    (files / "orders.csv").write_text("订单号,销售员,金额\nSO-0036,李娜,216000\nSO-0037,张伟,43200\n", encoding="utf-8")
    prompts: list[str] = []

    def reply(body: dict) -> Reply:
        prompts.append(body["messages"][-1]["content"])
        return Reply(pieces=["订单SO-0037由张伟签订，金额为43200[1]。"])

    fake_ollama.reply_fn = reply
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host=fake_ollama.url, connect_timeout_s=0.5, retries=0))
    with KnowledgeBase.open(settings) as kb:
        assert not kb.index_paths([files]).failed
    generator = OllamaGenerator(settings.ollama)
    try:
        with QuestionService.open(settings, generator=generator) as svc:
            answer = svc.ask("订单SO-0037是哪个销售员签的？金额是多少？")
    finally:
        generator.close()
    route = answer.metadata["route"]
    assert (route["route"], route["mode"]) == ("extract_amount", "handler_then_model")
    assert answer.mode == "model" and "未找到金额" not in answer.text, answer.text
    assert answer.metadata.get("handler_skipped") == "low-confidence rule found nothing"
    assert prompts and "43200" in prompts[-1] and "未找到金额" not in prompts[-1]  # the model read the rows
