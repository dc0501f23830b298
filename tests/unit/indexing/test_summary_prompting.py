"""Node keys and prompts: every input changes the key, nothing positional does; prompts fit the window."""

from __future__ import annotations

from dataclasses import replace

from indexing.summary.prompting import NodeInput, node_key, render_messages
from officeqa.tokens import default_token_counter
from prompts.loader import load_summary_template

count = default_token_counter().count
LEAF = NodeInput("leaf", "年度报告", "第三章 风险管理", ("原材料价格上涨5%。", "汇率波动。"))


def key(node_input: NodeInput = LEAF, **overrides: str) -> str:
    values = {"method": "qwen2.5:7b-instruct", "language": "zh", "prompt_version": "1", "template": "abc"}
    values.update(overrides)
    return node_key(node_input, **values)


def test_the_key_changes_with_every_input_of_the_summary() -> None:
    base = key()
    assert key() == base
    variants = [
        key(replace(LEAF, texts=("原材料价格上涨6%。", "汇率波动。"))),
        key(replace(LEAF, heading_path="第三章 风险")),
        key(replace(LEAF, document="年报")),
        key(replace(LEAF, prompt="section", titles=("a", "b"))),
        key(method="extractive:textrank-1"),
        key(language="en"),
        key(prompt_version="2"),
        key(template="abd"),
    ]
    assert base not in variants and len(set(variants)) == len(variants)


def test_a_prompt_fits_its_window_and_long_inputs_are_cut_at_sentence_ends() -> None:
    template = load_summary_template("zh")
    messages, estimate, cut = render_messages(template, LEAF, max_tokens=200, window=4096, language="zh", count=count)
    assert not cut
    assert "原材料价格上涨5%。" in messages[1]["content"] and "第三章 风险管理" in messages[1]["content"]
    assert messages[0]["content"] == template.system

    long = NodeInput("section", "年度报告", "第三章", tuple("营业收入增长。" * 200 for _ in range(4)),
                     ("一", "二", "三", "四"))
    messages, estimate, cut = render_messages(template, long, max_tokens=300, window=2048, language="zh", count=count)
    assert cut
    assert estimate <= 2048 - 300
    user = messages[1]["content"]
    assert all(f"【{title}】" in user for title in ("一", "二", "三", "四"))  # every child keeps a share
    assert "营业收入增长。\n" in user or user.rstrip().endswith("。")
