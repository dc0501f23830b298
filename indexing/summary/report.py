"""A finished tree as a report: Markdown (the outline with summaries and page ranges) or JSON.

The JSON shape is the ``officeqa summarize --format json`` contract:
``{"document", "nodes": [{"id", "parent", "level", "title", "pages", "summary", "extractive"}, ...]}``
(plus fields beyond the contract: doc_id, title, kind, children, heading path, chunk span,
tokens, model, prompt version).
"""

from __future__ import annotations

import json

from indexing.summary.tree import SummaryNode, SummaryTree

_LABELS = {
    "zh": {"summary": "全文摘要", "outline": "目录与各节摘要", "extractive": "摘录", "nodes": "节点",
           "model": "模型",
           "extractive_note": "标注“摘录”的节点由抽取式摘要生成（当时没有可用的模型），有模型时再次运行会替换它们。"},
    "en": {"summary": "Summary", "outline": "Outline with section summaries", "extractive": "extractive",
           "nodes": "nodes", "model": "model",
           "extractive_note": "Nodes marked \"extractive\" were made by the extractive summariser (no model was "
                              "available); running again with a model replaces them."},
}
MAX_HEADING_DEPTH = 6


def tree_to_json(tree: SummaryTree) -> str:
    return json.dumps(tree.to_json(), ensure_ascii=False, indent=2) + "\n"


def tree_to_markdown(tree: SummaryTree) -> str:
    """The document summary, then every node below it as an outline: title, pages, summary."""
    labels = _LABELS.get(tree.language, _LABELS["en"])
    root = tree.root
    models = sorted({n.model for n in tree.nodes})
    lines = [f"# {tree.title}", ""]
    where = root.span.label()
    lines.append(f"`{tree.path}`" + (f" · {where}" if where else "")
                 + f" · {len(tree.nodes)} {labels['nodes']} · {labels['model']}: {', '.join(models)}"
                 + (f" · {tree.built_at}" if tree.built_at else ""))
    lines += ["", f"## {labels['summary']}", "", _summary_text(root, labels), ""]
    if root.children:
        lines += [f"## {labels['outline']}", ""]
        for child in tree.children(root):
            _outline(tree, child, labels, lines)
    if tree.extractive_nodes:
        lines += ["---", "", labels["extractive_note"], ""]
    return "\n".join(lines).rstrip() + "\n"


def _outline(tree: SummaryTree, node: SummaryNode, labels: dict[str, str], lines: list[str]) -> None:
    depth = min(MAX_HEADING_DEPTH, node.level + 2)
    where = node.span.label()
    title = node.title if not where or where == node.title else f"{node.title} ({where})"
    lines += [f"{'#' * depth} {title}", "", _summary_text(node, labels), ""]
    for child in tree.children(node):
        _outline(tree, child, labels, lines)


def _summary_text(node: SummaryNode, labels: dict[str, str]) -> str:
    text = node.summary.strip()
    return f"*({labels['extractive']})* {text}" if node.extractive else text


__all__ = ["tree_to_json", "tree_to_markdown"]
