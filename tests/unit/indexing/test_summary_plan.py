"""The summary tree's shape from literal chunks: heading tree, groups, fallback parts, fan-in."""

from __future__ import annotations

from indexing.summary import PlanLimits, SourceChunk, plan_tree


def chunk(n: int, *path: str, page: int | None = None, tokens: int = 100) -> SourceChunk:
    return SourceChunk(id=f"d-{n:05d}", text=f"第{n}段内容。", heading_path=list(path), tokens=tokens,
                       page=page if page is not None else n + 1)


def shape(nodes) -> list[tuple[str, str | None, int, str, str, list[str]]]:
    return [(n.id, n.parent, n.level, n.kind, n.title, n.chunk_ids) for n in nodes]


def test_sections_follow_the_heading_paths_and_text_is_grouped_inside_each_section() -> None:
    chunks = [
        chunk(0, "第一章 总则"),  # the chapter's own text before its first section
        chunk(1, "第一章 总则", "第一节 目的"),
        chunk(2, "第一章 总则", "第一节 目的"),
        chunk(3, "第一章 总则", "第一节 目的"),
        chunk(4, "第一章 总则", "第二节 范围"),
        chunk(5, "第二章 职责"),
        chunk(6, "第二章 职责"),
    ]
    nodes = plan_tree(chunks, "管理办法", PlanLimits(group_size=2))
    assert shape(nodes) == [
        ("0", None, 0, "document", "管理办法", []),
        ("0.1", "0", 1, "section", "第一章 总则", []),
        ("0.1.1", "0.1", 2, "group", "p. 1", ["d-00000"]),
        ("0.1.2", "0.1", 2, "section", "第一节 目的", []),
        ("0.1.2.1", "0.1.2", 3, "group", "p. 2-3", ["d-00001", "d-00002"]),
        ("0.1.2.2", "0.1.2", 3, "group", "p. 4", ["d-00003"]),
        ("0.1.3", "0.1", 2, "section", "第二节 范围", ["d-00004"]),  # one group, no subsection: the leaf itself
        ("0.2", "0", 1, "section", "第二章 职责", ["d-00005", "d-00006"]),
    ]
    root = nodes[0]
    assert root.children == ["0.1", "0.2"]
    assert (root.span.page, root.span.page_end) == (1, 7)
    assert (root.span.chunk_first, root.span.chunk_last) == ("d-00000", "d-00006")
    assert nodes[4].heading_path == ["第一章 总则", "第一节 目的"]


def test_a_heading_path_that_comes_back_later_is_a_new_section() -> None:
    chunks = [chunk(0, "小结"), chunk(1, "正文"), chunk(2, "小结")]
    nodes = plan_tree(chunks, "T", PlanLimits(group_size=4))
    assert [(n.id, n.title, n.chunk_ids) for n in nodes[1:]] == [
        ("0.1", "小结", ["d-00000"]), ("0.2", "正文", ["d-00001"]), ("0.3", "小结", ["d-00002"]),
    ]


def test_without_headings_consecutive_leaves_become_parts() -> None:
    chunks = [chunk(i) for i in range(20)]
    nodes = plan_tree(chunks, "纪要", PlanLimits(group_size=2, fallback_leaves=6))
    root = nodes[0]
    parts = [n for n in nodes if n.parent == "0"]
    assert [n.kind for n in parts] == ["part", "part"]  # 10 leaves > 6: two balanced parts of 5
    assert [len(p.children) for p in parts] == [5, 5]
    assert [p.title for p in parts] == ["p. 1-10", "p. 11-20"]
    leaves = [n for n in nodes if n.is_leaf]
    assert [c for leaf in leaves for c in leaf.chunk_ids] == [c.id for c in chunks]
    assert root.children == ["0.1", "0.2"]


def test_no_node_gets_more_children_than_the_window_allows() -> None:
    chunks = [chunk(i, f"第{i}条") for i in range(45)]
    nodes = plan_tree(chunks, "条例", PlanLimits(max_children=4))
    assert max(len(n.children) for n in nodes) <= 4
    sections = [n for n in nodes if n.kind == "section"]
    assert [s.title for s in sections] == [f"第{i}条" for i in range(45)]
    assert all(n.kind == "part" for n in nodes if n.children and n.parent is not None)


def test_leaf_input_budget_splits_groups_and_a_big_chunk_stands_alone() -> None:
    chunks = [chunk(0, "A", tokens=300), chunk(1, "A", tokens=300), chunk(2, "A", tokens=900), chunk(3, "A")]
    nodes = plan_tree(chunks, "T", PlanLimits(group_size=4, leaf_input_tokens=700))
    assert [n.chunk_ids for n in nodes if n.is_leaf] == [["d-00000", "d-00001"], ["d-00002"], ["d-00003"]]


def test_a_one_group_document_is_read_by_the_root_and_a_title_heading_adds_no_level() -> None:
    small = plan_tree([chunk(0, "通知"), chunk(1, "通知")], "通知", PlanLimits(group_size=4))
    assert shape(small) == [("0", None, 0, "document", "通知", ["d-00000", "d-00001"])]

    titled = plan_tree(
        [chunk(0, "年度报告", "第一章"), chunk(1, "年度报告", "第二章")], "年度报告", PlanLimits(group_size=4)
    )
    assert [(n.id, n.level, n.title) for n in titled] == [
        ("0", 0, "年度报告"), ("0.1", 1, "第一章"), ("0.2", 1, "第二章"),
    ]


def test_the_plan_is_deterministic_and_ids_are_positional() -> None:
    chunks = [chunk(i, f"章{i // 3}") for i in range(9)]
    first, second = plan_tree(chunks, "T"), plan_tree(chunks, "T")
    assert shape(first) == shape(second)
    assert [n.id for n in first] == ["0", "0.1", "0.2", "0.3"]
