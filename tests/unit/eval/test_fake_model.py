"""The fake model answers from the prompt the product built: quotes with [n] markers, or the exact not-found text."""

from __future__ import annotations

from eval.fake_model import grounded_reply, grounded_text, parse_prompt, rewrite_text
from prompts.assembler import Material, assemble
from prompts.loader import load_qa_template


def _prompt(question: str, texts: list[tuple[str, str]], language: str = "zh") -> str:
    materials = [Material(text=text, source=source, score=1.0 - i / 10, chunk_id=f"c{i}", document=source)
                 for i, (source, text) in enumerate(texts)]
    prompt = assemble(load_qa_template(language), question, materials, window=8192, answer_reserve=1024,
                      count=lambda s: len(s))
    return prompt.user


MATERIALS = [
    ("员工手册.pdf · p. 2", "第四条 工作时间为周一至周五9:00—18:00。第五条 研发中心可实行弹性工作制。"),
    ("合同.docx · 第十条", "协商不成的，任何一方均可将争议提交杭州仲裁委员会仲裁。"),
    ("员工手册.pdf · p. 3", "城市 | 城市类别 | 部门经理（元/晚）\n北京 | 一类 | 700\n成都 | 二类 | 530"),
]


def test_the_prompt_is_read_back_with_its_numbers() -> None:
    question, materials, not_found, language = parse_prompt(_prompt("仲裁机构是哪个？", MATERIALS))
    assert question == "仲裁机构是哪个？" and language == "zh" and not_found == "文档中未找到相关内容"
    assert [m.n for m in materials] == [1, 2, 3]
    assert materials[1].text.startswith("协商不成的")


def test_it_quotes_the_best_sentence_with_its_marker() -> None:
    text = grounded_text(_prompt("争议提交哪个仲裁委员会？", MATERIALS))
    assert text.startswith("根据资料：") and "杭州仲裁委员会" in text and "[2]" in text
    row = grounded_text(_prompt("部门经理去成都出差，每晚住宿标准是多少？", MATERIALS))
    assert row == "根据资料：城市 | 城市类别 | 部门经理（元/晚）；成都 | 二类 | 530[3]"


def test_it_says_the_templates_not_found_text_when_nothing_covers_the_question() -> None:
    assert grounded_text(_prompt("2025年年终奖的发放标准是什么？", MATERIALS)) == "文档中未找到相关内容"
    english = _prompt("What is the monthly parking fee?", [("notice.txt", "Parking is free for visitors.")], "en")
    assert grounded_text(english) == "Not found in the documents."


def test_follow_up_rewrites_carry_the_previous_question() -> None:
    user = ("对话历史：\nQ: 2024年第一季度华东区销售额是多少？\nA: 92.84万元\n\n"
            "追问：那第二季度呢？\n\n请只输出改写后的完整问题")
    assert rewrite_text(user) == "2024年第二季度华东区销售额是多少？"
    reply = grounded_reply({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": user}]})
    assert "".join(reply.pieces) == "2024年第二季度华东区销售额是多少？"
    assert reply.prompt_eval_count and reply.prompt_eval_count > 10
