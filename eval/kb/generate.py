"""Generate the eval knowledge base: ``python -m eval.kb.generate [--out DIR]`` (default ``eval/kb/files``).

The files are committed; regenerating them with the same library versions gives the same
bytes (fixed zip times and document timestamps, reportlab's invariant mode), and the tests
check that a regeneration parses to the same text as the committed files whatever the
versions. File names are relative paths under the knowledge-base folder, as tasks name them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path

from eval.kb import KB_DIR
from eval.kb.other_docs import notice_gbk, sales_workbook, slide_deck, supplier_csv
from eval.kb.pdf_docs import annual_report, employee_handbook
from eval.kb.word_docs import contract, english_guidelines, meeting_minutes, security_policy

__all__ = ["FILES", "generate"]

CONTRACT = "合同/星河智能-蓝海物流技术服务合同.docx"
HANDBOOK = "人事/星河智能员工手册（2024版）.pdf"
SALES = "销售/2024年上半年销售数据.xlsx"
MINUTES = "会议纪要/2024-03-18 产品评审会会议纪要.docx"
POLICY_NEW = "制度/信息安全管理制度.docx"
POLICY_OLD = "制度/归档/信息安全管理制度.docx"
ANNUAL_REPORT = "财务/星河智能2023年年度报告.pdf"
SLIDES = "市场/智能仓储调度系统V2.3发布会.pptx"
NOTICE = "通知/关于2024年国庆节放假安排的通知.txt"
SUPPLIERS = "采购/供应商名录.csv"
GUIDELINES = "IT/Remote_Work_Guidelines.docx"

FILES: dict[str, Callable[[], bytes]] = {
    CONTRACT: contract,
    HANDBOOK: employee_handbook,
    SALES: sales_workbook,
    MINUTES: meeting_minutes,
    POLICY_NEW: partial(security_policy, "V3.0"),
    POLICY_OLD: partial(security_policy, "V2.1"),
    ANNUAL_REPORT: annual_report,
    SLIDES: slide_deck,
    NOTICE: notice_gbk,
    SUPPLIERS: supplier_csv,
    GUIDELINES: english_guidelines,
}


def generate(out: Path = KB_DIR) -> list[Path]:
    """Write every file under ``out``; returns the paths written."""
    written = []
    for name, build in FILES.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(build())
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description="Generate the eval knowledge base.")
    parser.add_argument("--out", type=Path, default=KB_DIR, help=f"target folder (default {KB_DIR})")
    args = parser.parse_args()
    for path in generate(args.out):
        print(f"{path.stat().st_size:>9,d}  {path.relative_to(args.out)}")


if __name__ == "__main__":
    main()
