"""The words a table question is made of: operations, group and negation markers, fillers, column synonyms.

Why a module of word lists and not a grammar: questions about a table are short and
formulaic ("华东区不含已取消订单的金额合计", "total amount by region excluding cancelled"),
and the linker's job is to account for EVERY word. Words named here are understood; a
word that is neither one of these, nor a column, nor a cell value, nor a time expression
makes the question refuse ("不理解：…") rather than be answered without it. Column
synonyms live in ``synonyms.yaml`` (data, extendable without code).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import yaml

from retrieval.rules.normalize import normalize

__all__ = [
    "ADDITIVE_HINTS",
    "ARGMAX_WORDS",
    "ASKS_DATE",
    "COUNT_NOUNS",
    "FILLERS",
    "GROUP_MARKERS",
    "LIST_WORDS",
    "NEGATION_AFTER",
    "NEGATION_BEFORE",
    "OP_WORDS",
    "ROW_NOUNS",
    "ROW_VERBS",
    "SOLD_UNITS",
    "TIME_UNITS",
    "column_synonyms",
    "name_synonyms",
]

# Operation words, by operation; the linker takes the longest match first.
OP_WORDS: dict[str, tuple[str, ...]] = {
    "count_distinct": ("多少种", "几种", "多少个不同", "几个不同", "多少不同", "多少家不同", "多少位不同",
                       "多少名不同", "不同的", "不重复的", "去重后", "去重", "how many distinct",
                       "how many different", "how many unique", "number of distinct", "number of unique",
                       "number of different", "count of distinct", "distinct count", "distinct", "unique"),
    "count": ("多少个人", "几个人", "多少条", "几条", "多少行", "几行", "多少笔", "几笔", "多少单", "几单", "多少个",
              "几个", "多少家", "几家", "多少人", "几人", "多少位", "几位", "多少名", "几名", "多少项", "几项",
              "条数", "行数", "笔数", "单数", "个数", "记录数", "订单数", "计数", "多少订单", "多少个订单",
              "多少笔订单", "多少记录", "多少条记录", "多少交易", "多少笔交易", "订单有多少", "记录有多少",
              "交易有多少", "多少份", "几份", "多少次", "几次", "多少张", "几张", "多少支", "几支", "下了多少单",
              "下了几单", "下了多少笔", "how many", "number of", "count of", "count"),
    "avg": ("平均值", "平均数", "平均", "均值", "average", "mean", "avg"),
    "max": ("最大值", "最高", "最大", "最多", "最贵", "max", "maximum", "highest", "largest", "biggest", "most"),
    "min": ("最小值", "最低", "最小", "最少", "最便宜", "min", "minimum", "lowest", "smallest", "least", "fewest"),
    "sum": ("汇总", "合计", "总计", "总和", "总额", "求和", "加总", "加起来", "合起来", "累计", "一共", "共计",
            "总共", "之和", "总", "sum", "total", "add up", "added up", "combined", "altogether", "in total"),
    "list": ("列出来", "列出", "列一下", "罗列", "有哪些", "都有哪些", "都有谁", "有谁", "哪些", "清单", "名单", "list",
             "show", "which", "what are"),
}
# Measures that make sense summed when a question names one with no operation ("华东区的销售额是多少").
ADDITIVE_HINTS = ("金额", "额", "收入", "销量", "数量", "费用", "成本", "利润", "支出", "回款", "工资", "薪",
                  "次数", "天数", "人数", "件数", "台数", "工时", "小时", "时长", "days", "times", "count", "units",
                  "hours", "mileage", "visits",
                  "amount", "revenue", "sales", "quantity", "qty", "cost", "expense", "profit", "total", "salary")
ARGMAX_WORDS = ("哪一个", "哪个", "哪位", "哪家", "哪一家", "哪种", "哪类", "哪一类", "哪月", "哪个月", "哪一月",
                "哪个季度", "哪年", "which", "what")
LIST_WORDS = OP_WORDS["list"]
#: "卖出了多少台", "how many units were sold": the units sold (a quantity column's sum), not the number of rows.
SOLD_UNITS = re.compile(r"(?:一共|总共|共)?(?:卖出|售出|卖了|销售了|销出|卖掉)了?\s?(?:多少|几)\s?"
                        r"(?:台|件|套|个|箱|部|只|份)?|how many units(?: were| did)?(?: we)? sold|"
                        r"units (?:were |did we )?sold|units sold|(?<![a-z])(?:were |was )?sold(?![a-z])")
#: "几个人", "多少名员工", "how many employees": a count of people (distinct people, when a person has many rows).
PEOPLE_COUNT = re.compile(r"几个人|多少个人|多少人|几人|几位|多少位|多少名|几名|多少员工|几个员工|多少个员工|"
                          r"how many (?:people|employees|staff|persons)")
#: "是哪天入职的", "什么时候签订的", "when": the question asks for a date cell.
ASKS_DATE = ("是哪一天", "是哪天", "哪一天", "哪天", "什么时候", "何时", "几号", "什么日期", "哪个日期", "日期是",
             "when was", "when did", "on what date", "what date", "when")
GROUP_MARKERS = ("按照", "根据", "按各", "按", "各个", "各", "每一个", "每个", "每", "分别按", "分",
                 "grouped by", "group by", "broken down by", "breakdown by", "for each", "for every", "by", "per",
                 "each", "across")
TIME_UNITS: dict[str, tuple[str, ...]] = {
    "month": ("月份", "月度", "个月", "月", "month", "months", "monthly"),
    "quarter": ("季度", "季", "quarter", "quarters", "quarterly"),
    "year": ("年度", "年份", "年", "year", "years", "yearly", "annual"),
}
NEGATION_BEFORE = ("不包含", "不包括", "不含", "不算", "除了", "除去", "除开", "排除", "剔除", "去掉", "去除", "扣除",
                   "不是", "不为", "不等于", "非", "除", "excluding", "exclude", "except", "other than", "not",
                   "without", "besides")
NEGATION_AFTER = ("以外", "之外", "除外", "外")
# Nouns that name the rows themselves: "多少单", "orders" count rows, they do not filter.
ROW_NOUNS = ("订单", "记录", "数据", "条目", "交易", "明细", "行", "单", "笔", "条", "项", "人", "人员", "份",
             "orders", "order", "records", "record", "rows", "row", "entries", "entry", "transactions",
             "transaction", "items", "lines")
COUNT_NOUNS = ROW_NOUNS
# Words that carry no condition: questions may contain them freely.
FILLERS = tuple(sorted({
    "一下", "一列", "一栏", "一笔", "万元", "上", "与", "中", "为", "之", "了", "了吗", "人民币", "什么", "从",
    "以及", "份", "元", "全部", "共", "其", "其中", "内", "几", "分别", "列", "到", "单笔", "及", "发生", "各自",
    "名", "吗", "吧", "呀", "告诉我", "呢", "和", "哪些", "啊", "啥", "在", "块", "块钱", "多大", "多少", "多少钱",
    "如何", "字段", "对应", "工作表", "帮忙", "帮我", "当中", "怎样", "总体", "情况", "想知道", "我想知道", "或",
    "所有", "排", "排名", "排行", "整体", "时候", "时间", "是", "是几", "是多少", "是谁", "显示", "最", "有",
    "有多少", "期间", "本表", "查", "查一下", "查询", "此", "求", "的", "的话", "看一下", "看看", "算", "算一下",
    "算算", "给出", "统计", "至", "表", "表中", "表格", "表里", "计算", "该", "该列", "该表", "请", "请问", "谁",
    "这", "这一列", "这一栏", "这个", "这些", "这列", "这张表", "那", "那个", "那些", "里", "里头", "里面", "麻烦",
    "'s", "a", "across", "all", "among", "amount of", "an", "and", "are", "as", "at", "be", "between", "by",
    "calculate", "column", "columns",
    "compute", "data", "did", "do", "does", "during", "each", "every", "field", "fields", "find", "for", "from",
    "get", "give", "had", "has", "have", "how", "in", "is", "it", "its", "list", "many", "me", "much", "of", "on",
    "one", "ones", "or", "overall", "per", "please", "rank", "ranked", "ranking", "s", "sheet", "show", "table",
    "tell", "than", "that", "the", "their", "there", "these", "this", "those", "to", "top", "up", "value", "values",
    "was", "we", "were", "what", "what's", "whats", "where", "which", "who", "whole", "whose", "with",
    # verbs that only say a count column counts something ("won the Stanley Cup the most times")
    "win", "wins", "won", "times", "earned", "got", "received", "scored", "score", "achieved", "receive",
    "receives", "played", "play", "plays", "any",
    # verbs that say a row exists ("签了多少份合同", "claims filed in March"), and "the whole year" of a total
    "其他", "其余", "其它",  # "除华东外其他区域": the negation already says which rows
    "还在", "仍在", "仍然", "目前", "负责的", "经手的",  # "还在进行中", "周宁负责的项目": the value says it
    "签了", "签订了", "签署了", "共签", "下了", "提交了", "登记了", "录入了", "全年", "全年度", "整年", "全年的",
    "filed", "submitted", "placed", "made", "signed", "recorded", "issued", "created", "logged",
    "still", "currently", "handle", "handled", "handles",  # "still open", "did Maria handle": as 还在, 经手的
    "把", "都",  # "把机械类的备件都列出来": the object marker and "all" carry no condition
    "由", "个",  # "由谁负责", "订单有多少个": a passive marker and a measure word (kept when they begin a column word)
    "全公司", "全体", "整个公司", "公司全体", "company-wide", "companywide",  # "全公司员工的平均工资": every row
}, key=len, reverse=True))
#: Verbs that only say a row exists where the question's values put it ("C区放了几种备件", "cities visited",
#: "新建了多少张工单"): they carry no condition of their own. A verb that is part of a column name ("存放库位",
#: "工作城市") is left for the column; verbs that name a state ("closed", "完成") are not here: they are cell values.
ROW_VERBS = ("放了", "放着", "存放了", "存放", "存了", "存着", "存有", "备有", "放", "新建了", "新建", "创建了", "创建",
             "新增了", "新增", "开了", "录入", "去过", "去了", "到过", "出差", "接了", "处理了", "处理过", "处理",
             "经手", "跟进", "办理了",
             "列出了", "列了", "所列", "列有", "listed", "shown",  # "列出了几个球队", "how many teams are listed"
             "负责", "担任", "属于", "位于", "在职", "工作", "就职", "任职", "入库了", "进了", "有了",
             "visited", "visit", "visits", "went", "go", "traveled", "travelled", "travel", "stored", "kept",
             "stocked", "held", "located", "based", "assigned", "belong", "belongs", "belonging", "work", "works",
             "worked", "working", "employed", "hired", "joined", "opened", "raised", "bought", "purchased",
             "ordered", "booked", "taken", "took")


@functools.lru_cache(maxsize=1)
def column_synonyms() -> tuple[frozenset[str], ...]:
    """Groups of interchangeable column words (normalised), from ``synonyms.yaml``."""
    text = resources.files("retrieval.tables").joinpath("synonyms.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    return tuple(frozenset(normalize(str(w)) for w in group) for group in data.get("columns", []))


@functools.lru_cache(maxsize=1)
def name_synonyms() -> tuple[frozenset[str], ...]:
    """Groups of words that name a table's rows in either language ("工单" / "tickets"), from ``synonyms.yaml``."""
    text = resources.files("retrieval.tables").joinpath("synonyms.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    return tuple(frozenset(normalize(str(w)) for w in group) for group in data.get("names", []))
