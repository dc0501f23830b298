"""No absolute server path in what a user reads: answer texts, notices, citations and refusals name files
relative to the knowledge base's root, whoever wrote the text (catalog list, table refusal, rule handler,
extractive quotes, summary note, a model that echoes its prompt). The full path stays in the metadata.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.answering import Answer
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

FILES = {
    "销售/2023/orders.csv": "订单号,销售员,金额\nSO-0001,张伟,1200\nSO-0002,李娜,800\nSO-0003,张伟,300\n",
    "销售/2024/orders.csv": "订单号,销售员,金额\nSO-1001,张伟,5000\nSO-1002,王芳,700\n",
    "人事/员工手册.md": "# 员工手册\n\n## 第一章 假期\n\n员工入职满一年后享有带薪年休假五天，满十年享有十天。\n\n"
                     "## 第二章 联系方式\n\n人事部咨询电话：0571-88001122，邮箱 hr@mingyuan.cn。\n",
    "en/onboarding-guide.md": "# Onboarding Guide\n\n## IT accounts\n\nNew employees receive a laptop on their "
                              "first day. The IT help desk can be reached at extension 8200.\n",
}
QUESTIONS = [
    "知识库里有哪些文档？",  # the catalog list
    "张伟的金额合计是多少？",  # two tables fit equally: the refusal lists them
    "orders.csv 里张伟的金额合计是多少？",  # two documents of one name
    "员工手册里的电话号码有哪些？",  # a rule handler, values cited
    "员工入职满一年后有几天年假？",  # extractive quotes with the no-model notice
    "总结一下员工手册",  # no summary tree yet: the queued note
    "公司的注册资本是多少？",  # not found
    "What is the IT help desk extension?",
    "Which documents do you have?",
]
#: An absolute path: "/" at the start or after a space or an opening mark, then at least two parts.
ABSOLUTE = re.compile(r"(?:^|[\s(（《“\"'：:，,=])/[^/\s]+/[^\s]+", re.MULTILINE)


def _texts(answer: Answer) -> list[str]:
    texts = [answer.text, answer.notice or ""]
    for citation in answer.citations:
        texts += [citation.label(), citation.document, citation.quote, citation.label_note]
    return texts


def _assert_no_server_path(answer: Answer, *folders: Path) -> None:
    for text in _texts(answer):
        for folder in folders:
            assert str(folder) not in text, (answer.question, text)
        assert not ABSOLUTE.search(text), (answer.question, text)


@pytest.fixture
def knowledge_base(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "files"
    for name, content in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    data = tmp_path / "data"
    with open_knowledge_base(_settings(data)) as kb:
        assert not kb.index_paths([root]).failed
    return root, data


def _settings(data: Path, host: str = "http://127.0.0.1:9") -> Settings:
    return Settings(data_dir=data, embedding=EmbeddingSettings(backend="hash"),
                    ollama=OllamaSettings(host=host, connect_timeout_s=0.5, retries=0))


def test_no_answer_citation_or_refusal_without_a_model_shows_a_server_path(knowledge_base: tuple[Path, Path]) -> None:
    root, data = knowledge_base
    with QuestionService.open(_settings(data), generator=None) as service:
        answers = [service.ask(q) for q in QUESTIONS]
        answers.append(service.ask("张伟的金额合计是多少？", documents=[str(root / "销售/2024/orders.csv")]))
    for answer in answers:
        _assert_no_server_path(answer, root, data, root.parent)
    listed, refused = answers[0], answers[1]
    assert "- 销售/2023/orders.csv（CSV）" in listed.text
    # the tied tables are named by the shortest part of their path that tells them apart, never the server path
    assert refused.metadata["handler"]["outcome"] == "refused" and "2024/orders.csv · 表1" in refused.text
    assert str(root) in str(refused.metadata["scope"])  # owners still find the full path in the metadata
    assert any(c.path.startswith(str(root)) for a in answers for c in a.citations)


def test_a_model_that_echoes_its_prompt_shows_no_server_path(knowledge_base: tuple[Path, Path], fake_ollama) -> None:
    from eval.fake_ollama import Reply
    from officeqa.generation import OllamaGenerator

    fake_ollama.reply_fn = lambda body: Reply(pieces=[body["messages"][-1]["content"]])
    root, data = knowledge_base
    settings = _settings(data, fake_ollama.url)
    generator = OllamaGenerator(settings.ollama)
    try:
        with QuestionService.open(settings, generator=generator) as service:
            answers = [service.ask(q) for q in QUESTIONS]
    finally:
        generator.close()
    assert any(a.mode == "model" for a in answers)
    for answer in answers:
        _assert_no_server_path(answer, root, data, root.parent)
