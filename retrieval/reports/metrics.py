"""Metric names as users ask for them and as reports print them.

Why a table of synonyms and not only string matching against row labels: users say 归母净利润 for
"归属于上市公司股东的净利润", revenue for "营业总收入" or "Total net sales"; the row label alone would miss
them. Each entry is a canonical name and the spellings that mean it; a question term and a row label
match when both are spellings of one entry (or the label occurs in the question as printed).
"""

from __future__ import annotations

from indexing.reports.labels import label_key

__all__ = ["METRICS", "aliases_in", "canonical_of"]

METRICS: dict[str, tuple[str, ...]] = {
    "revenue": (
        "营业收入",
        "营业总收入",
        "营收",
        "销售收入",
        "revenue",
        "revenues",
        "totalrevenue",
        "totalrevenues",
        "netsales",
        "totalnetsales",
        "sales",
        "turnover",
        "netrevenue",
        "netrevenues",
        "totalnetrevenue",
        "totalnetrevenues",
        "operatingrevenues",
        "totaloperatingrevenues",
        "totalrevenuesnet",
    ),
    "cost_of_revenue": ("营业成本", "销售成本", "costofsales", "costofrevenue", "costofgoodssold"),
    "net_income_parent": (
        "归属于上市公司股东的净利润",
        "归母净利润",
        "归属于母公司股东的净利润",
        "归属于母公司所有者的净利润",
        "netincomeattributabletoshareholders",
        "netincomeattributabletoequityholders",
        "netincomeattributable",
    ),
    "net_income_deducted": ("归属于上市公司股东的扣除非经常性损益的净利润", "扣非净利润", "扣除非经常性损益的净利润"),
    "net_income": (
        "净利润",
        "netincome",
        "netincomeloss",
        "netloss",
        "netearnings",
        "netincome(loss)",
        "netprofit",
        "profitfortheyear",
        "profitlossfortheyear",
        "lossfortheyear",
        "profitfortheperiod",
        "profitaftertax",
    ),
    "operating_cash_flow": (
        "经营活动产生的现金流量净额",
        "经营性现金流",
        "经营现金流",
        "netcashfromoperatingactivities",
        "cashflowsfromoperatingactivities",
        "netcashprovidedbyoperatingactivities",
        "netcashprovidedbyusedinoperatingactivities",
        "netcashusedinprovidedbyoperatingactivities",
        "netcashgeneratedfromoperatingactivities",
        "netcashinflowfromoperatingactivities",
        "netcashflowfromoperatingactivities",
        "netcashflowsfromoperatingactivities",
        "cashflowfromoperations",
        "cashflowsfromoperations",
        "cashflowfromoperatingactivities",
        "operatingcashflow",
        "operatingcashflows",
    ),
    "eps_basic": (
        "基本每股收益",
        "每股收益",
        "basicearningspershare",
        "basicearnings(loss)pershare",
        "earningspershare",
        "basicnetincome(loss)pershare",
        "basic",
    ),
    "eps_diluted": ("稀释每股收益", "dilutedearningspershare", "diluted"),
    "total_assets": ("总资产", "资产总计", "资产总额", "totalassets"),
    "total_liabilities": ("总负债", "负债合计", "负债总额", "totalliabilities"),
    "cash": ("货币资金", "cashandcashequivalents", "cashandequivalents", "cashandcashequivalentsatendofyear"),
    "total_equity": (
        "所有者权益合计",
        "股东权益合计",
        "totalequity",
        "totalshareholdersequity",
        "totalstockholdersequity",
        "totalshareholdersfunds",
    ),
    "equity_parent": (
        "归属于上市公司股东的净资产",
        "归母净资产",
        "归属于母公司所有者权益合计",
        "归属于母公司股东权益合计",
    ),
    "roe_weighted": ("加权平均净资产收益率", "净资产收益率", "roe"),
    "rd_expense": (
        "研发投入金额",
        "研发投入",
        "研发费用",
        "研究开发费",
        "researchanddevelopment",
        "researchanddevelopmentexpense",
    ),
    "selling_expense": ("销售费用", "sellingexpenses", "sellinggeneralandadministrativeexpenses"),
    "admin_expense": ("管理费用", "generalandadministrativeexpenses"),
    "finance_expense": ("财务费用", "financeexpense", "interestexpense"),
    "total_profit": ("利润总额", "incomebeforeincometaxes", "profitbeforetax"),
    "operating_profit": ("营业利润", "operatingincome", "incomefromoperations"),
    "adjusted_ebitda": ("adjustedebitda",),
    "dividend_per_share": (
        "dividendpershare",
        "dividendspershare",
        "dividendsdeclaredpershare",
        "dividendsdeclaredpercommonshare",
        "cashdividendspershare",
        "cashdividendsdeclaredpershare",
        "cashdividendsdeclaredpercommonshare",
        "dividendspercommonshare",
        "每股股利",
        "每股派息",
    ),
    "npl_ratio": (
        "nonperformingloanratio",
        "nonperformingloansratio",
        "nplratio",
        "nonperformingloanstototalloans",
        "nonperformingloanstotalloans",
        "nonperformingloansasapercentageoftotalloans",
        "nonperformingloansasapercentageoftotalloansgross",
        "nonperformingloanstototalgrossloans",
        "不良贷款率",
    ),
    "capex": (
        "capitalexpenditures",
        "capitalexpenditure",
        "资本性支出",
        "购建固定资产、无形资产和其他长期资产支付的现金",
    ),
    "employees": ("在职员工的数量合计", "员工总数", "员工人数", "在职员工"),
}
_INDEX = {label_key(alias): name for name, aliases in METRICS.items() for alias in aliases}


def canonical_of(label: str) -> str | None:
    """The canonical metric a printed row label spells, or None."""
    return _INDEX.get(label_key(label))


def aliases_in(question_key: str) -> list[tuple[str, str]]:
    """(canonical, alias key) for every alias the question (in :func:`label_key` form) contains, longest first."""
    found = [(name, key) for key, name in _INDEX.items() if len(key) >= 2 and key in question_key]
    return sorted(found, key=lambda item: -len(item[1]))
