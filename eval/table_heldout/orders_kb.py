"""A fresh knowledge base of ten office files for the table held-out set (issue 23), with the rows kept.

Written before any tuning of the table logic for issue 23 and frozen with ``orders_questions.jsonl``: the files
are generated from fixed seeds (openpyxl, python-docx, csv, plain text), so every run writes the same
cells, and the gold answers in ``orders_questions.jsonl`` were computed from the Python rows here (``orders_gold.py``),
never from the product's reading of the files.

The set mixes what a user's folder holds: an order workbook with three sheets, a staff roster, a
contract register (csv), an English expense sheet, a budget sheet, a supplier list, meeting minutes
with an action-item table, a marketing plan with a bulleted action list, a handbook with a small
leave table, and a holiday notice.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

REGIONS = ["华东", "华北", "华南", "西南"]
PRODUCTS = {
    "智能门锁": ("安防", Decimal("1299.00")),
    "摄像头": ("安防", Decimal("399.00")),
    "扫地机器人": ("家电", Decimal("2499.00")),
    "空气净化器": ("家电", Decimal("1899.00")),
    "智能音箱": ("数码", Decimal("299.00")),
    "路由器": ("数码", Decimal("459.00")),
}
ORDER_STATUSES = ["已完成", "已完成", "已完成", "已发货", "已取消", "待付款"]
DEPARTMENTS = ["研发部", "市场部", "销售部", "财务部", "人事部"]
SURNAMES = "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜"
GIVEN = ["伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "军", "杰", "涛", "明", "超", "霞", "平", "刚", "桂英"]
ACTIONS = [
    ("完成新版官网上线", "陈晓", dt.date(2024, 7, 15)),
    ("整理客户回访名单并逐一回访", "刘婷", dt.date(2024, 7, 20)),
    ("提交第三季度采购预算", "王强", dt.date(2024, 7, 10)),
    ("组织新员工安全培训", "赵丽", dt.date(2024, 7, 31)),
    ("评估仓储系统供应商报价", "孙浩", dt.date(2024, 8, 5)),
]
Q2_PLAN = ["上线会员积分商城", "在华南区开设两家体验店", "完成618大促活动方案", "启动短视频渠道投放"]
LEAVE = [("满1年不满10年", 5), ("满10年不满20年", 10), ("满20年", 15)]
SUPPLIERS = [
    ("华信电子", "深圳", "电子元件", "A"),
    ("顺达物流", "上海", "物流", "B"),
    ("恒通包装", "东莞", "包装材料", "A"),
    ("新锐科技", "杭州", "软件服务", "B"),
    ("鑫源五金", "宁波", "五金配件", "C"),
    ("博雅印务", "北京", "印刷", "B"),
    ("安泰保安", "广州", "安保服务", "A"),
    ("绿源环保", "苏州", "环保设备", "C"),
    ("天成家具", "成都", "办公家具", "B"),
    ("联创网络", "南京", "网络设备", "A"),
    ("金盾消防", "武汉", "消防器材", "B"),
    ("宏达办公", "天津", "办公用品", "C"),
]
EXPENSE_CATEGORIES = ["Travel", "Meals", "Training", "Office Supplies", "Software"]
EXPENSE_DEPTS = ["Sales", "Engineering", "Marketing", "Finance"]
EXPENSE_STATUS = ["Approved", "Approved", "Approved", "Rejected", "Pending"]
EMPLOYEES_EN = ["Alice Chen", "Brian Wu", "Carol Li", "David Zhang", "Emma Liu", "Frank Zhou", "Grace Sun", "Henry Ma"]


@dataclass(slots=True)
class Order:
    order_id: str
    day: dt.date
    customer: str
    region: str
    product: str
    qty: int
    price: Decimal
    amount: Decimal
    status: str


@dataclass(slots=True)
class World:
    """Every row written, by file (the gold is computed from these)."""

    orders: list[Order] = field(default_factory=list)
    customers: list[tuple[str, str, str, int]] = field(default_factory=list)  # name, region, contact, credit
    staff: list[tuple[str, str, str, str, dt.date, int]] = field(
        default_factory=list
    )  # id, name, dept, title, joined, pay
    contracts: list[tuple[str, dt.date, str, str, Decimal, str]] = field(default_factory=list)
    expenses: list[tuple[str, dt.date, str, str, str, Decimal, str]] = field(default_factory=list)
    budget: list[tuple[str, str, int, int]] = field(default_factory=list)  # dept, quarter, budget, actual
    files: list[str] = field(default_factory=list)


def _names(rng: random.Random, n: int) -> list[str]:
    seen: list[str] = []
    while len(seen) < n:
        name = rng.choice(SURNAMES) + rng.choice(GIVEN)
        if name not in seen:
            seen.append(name)
    return seen


def _orders_xlsx(path: Path, world: World) -> None:
    import openpyxl

    rng = random.Random(2301)
    custs = [
        f"{city}{kind}有限公司"
        for city, kind in zip(
            ["上海", "杭州", "北京", "天津", "广州", "深圳", "成都", "重庆", "南京", "苏州"],
            [
                "明远科技",
                "博达贸易",
                "华联商贸",
                "海通实业",
                "粤海电器",
                "南山数码",
                "蜀光家居",
                "山城电器",
                "金陵百货",
                "姑苏商行",
            ],
            strict=True,
        )
    ]
    cust_region = dict(
        zip(custs, ["华东", "华东", "华北", "华北", "华南", "华南", "西南", "西南", "华东", "华东"], strict=True)
    )
    world.customers = [
        (c, cust_region[c], _names(random.Random(i), 1)[0], rng.randint(5, 80) * 10_000) for i, c in enumerate(custs)
    ]
    start = dt.date(2023, 1, 1)
    for i in range(1_986):
        customer = rng.choice(custs)
        product = rng.choice(list(PRODUCTS))
        price = PRODUCTS[product][1]
        qty = rng.randint(1, 30)
        world.orders.append(
            Order(
                f"DD{20230000 + i + 1}",
                start + dt.timedelta(days=rng.randint(0, 364)),
                customer,
                cust_region[customer],
                product,
                qty,
                price,
                price * qty,
                rng.choice(ORDER_STATUSES),
            )
        )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "订单明细"
    ws.append(["订单编号", "下单日期", "客户名称", "区域", "产品", "数量", "单价", "金额", "订单状态"])
    for o in world.orders:
        ws.append(
            [o.order_id, o.day, o.customer, o.region, o.product, o.qty, float(o.price), float(o.amount), o.status]
        )
    cs = wb.create_sheet("客户信息")
    cs.append(["客户名称", "所在区域", "联系人", "信用额度"])
    for row in world.customers:
        cs.append(list(row))
    ps = wb.create_sheet("产品目录")
    ps.append(["产品名称", "产品类别", "标准单价"])
    for name, (kind, price) in PRODUCTS.items():
        ps.append([name, kind, float(price)])
    wb.save(path)


def _staff_xlsx(path: Path, world: World) -> None:
    import openpyxl

    rng = random.Random(2302)
    titles = ["工程师", "高级工程师", "专员", "经理", "主管"]
    for i, name in enumerate(_names(rng, 42)):
        joined = dt.date(2016, 1, 1) + dt.timedelta(days=rng.randint(0, 8 * 365))
        world.staff.append(
            (f"E{1001 + i}", name, rng.choice(DEPARTMENTS), rng.choice(titles), joined, rng.randint(80, 400) * 100)
        )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "在职员工"
    ws.append(["工号", "姓名", "部门", "职位", "入职日期", "月薪"])
    for row in world.staff:
        ws.append(list(row))
    wb.save(path)


def _contracts_csv(path: Path, world: World) -> None:
    rng = random.Random(2303)
    kinds = ["采购合同", "销售合同", "服务合同"]
    parties = [s[0] + "有限公司" for s in SUPPLIERS] + ["明远科技有限公司", "华联商贸有限公司"]
    for i in range(36):
        day = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randint(0, 540))
        world.contracts.append(
            (
                f"HT-{day.year}-{i + 1:03d}",
                day,
                rng.choice(kinds),
                rng.choice(parties),
                Decimal(rng.randint(2_000, 900_000)) * 10,
                rng.choice(["执行中", "已完成", "已终止"]),
            )
        )
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["合同编号", "签订日期", "合同类型", "对方单位", "合同金额（元）", "执行状态"])
        for code, day, kind, party, amount, status in world.contracts:
            out.writerow([code, day.isoformat(), kind, party, f"{amount:.2f}", status])


def _expenses_xlsx(path: Path, world: World) -> None:
    import openpyxl

    rng = random.Random(2304)
    for i in range(160):
        world.expenses.append(
            (
                f"EX-{5001 + i}",
                dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 180)),
                rng.choice(EMPLOYEES_EN),
                rng.choice(EXPENSE_DEPTS),
                rng.choice(EXPENSE_CATEGORIES),
                Decimal(rng.randint(1_500, 300_000)) / 100,
                rng.choice(EXPENSE_STATUS),
            )
        )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Claims"
    ws.append(["Claim ID", "Date", "Employee", "Department", "Category", "Amount", "Status"])
    for row in world.expenses:
        ws.append([row[0], row[1], row[2], row[3], row[4], float(row[5]), row[6]])
    wb.save(path)


def _budget_xlsx(path: Path, world: World) -> None:
    import openpyxl

    rng = random.Random(2305)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "预算执行"
    ws.append(["部门", "季度", "预算金额", "实际支出"])
    for dept in DEPARTMENTS:
        for q in ("Q1", "Q2", "Q3", "Q4"):
            budget = rng.randint(20, 90) * 10_000
            actual = budget + rng.randint(-150, 150) * 1_000
            world.budget.append((dept, q, budget, actual))
            ws.append([dept, q, budget, actual])
    wb.save(path)


def _suppliers_xlsx(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "合格供应商"
    ws.append(["供应商名称", "所在城市", "供应品类", "评级"])
    for row in SUPPLIERS:
        ws.append(list(row))
    wb.save(path)


def _minutes_docx(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("第三季度项目推进会会议纪要", level=1)
    doc.add_paragraph("会议时间：2024年7月2日 14:00-16:00")
    doc.add_paragraph("会议地点：总部三楼第一会议室")
    doc.add_paragraph("参会人员：陈晓、刘婷、王强、赵丽、孙浩、周明（主持）")
    doc.add_heading("一、会议内容", level=2)
    doc.add_paragraph("周明通报了上半年项目进度：官网改版延期两周，客户满意度调查已完成，仓储系统进入选型阶段。")
    doc.add_paragraph("与会人员讨论了第三季度的重点工作和资源安排，一致同意优先保障官网上线和客户回访。")
    doc.add_heading("二、行动项", level=2)
    doc.add_paragraph("会议确定了以下行动项：")
    table = doc.add_table(rows=1, cols=4)
    for cell, text in zip(table.rows[0].cells, ["序号", "行动项", "负责人", "截止日期"], strict=True):
        cell.text = text
    for n, (item, owner, due) in enumerate(ACTIONS, start=1):
        cells = table.add_row().cells
        for cell, text in zip(cells, [str(n), item, owner, due.isoformat()], strict=True):
            cell.text = text
    doc.add_heading("三、下次会议", level=2)
    doc.add_paragraph("下次推进会定于2024年8月6日召开，由周明负责通知。")
    doc.save(path)


def _plan_docx(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("2024年度营销计划", level=1)
    doc.add_heading("一、年度目标", level=2)
    doc.add_paragraph("全年销售额同比增长20%，新增会员五万名，线上渠道占比提升到40%。")
    doc.add_heading("二、第二季度行动计划", level=2)
    doc.add_paragraph("第二季度的行动计划如下：")
    for item in Q2_PLAN:
        doc.add_paragraph(item, style="List Bullet")
    doc.add_heading("三、预算安排", level=2)
    doc.add_paragraph("全年营销预算为八百万元，其中线上投放占六成。")
    doc.save(path)


def _handbook_docx(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("员工手册（2024版）", level=1)
    doc.add_heading("第一章 工作时间", level=2)
    doc.add_paragraph("公司实行标准工时制度，每日工作八小时，每周工作五天。上班时间为9:00至18:00，午休一小时。")
    doc.add_heading("第二章 年休假", level=2)
    doc.add_paragraph("员工累计工作已满一年的，享受带薪年休假。年休假天数按累计工作年限确定，见下表。")
    table = doc.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "累计工作年限"
    table.rows[0].cells[1].text = "年休假天数"
    for span, days in LEAVE:
        cells = table.add_row().cells
        cells[0].text = span
        cells[1].text = str(days)
    doc.add_paragraph("年休假原则上应在当年休完，确需跨年的须经部门负责人批准，最迟于次年3月31日前休完。")
    doc.add_heading("第三章 报销", level=2)
    doc.add_paragraph("员工因公支出的费用，应在发生后三十日内提交报销申请，并附合法票据。")
    doc.save(path)


NOTICE = (
    "关于2024年国庆节放假安排的通知\n\n各部门：\n根据国务院办公厅通知精神，现将2024年国庆节放假安排通知如下：\n"
    "10月1日至7日放假调休，共7天。9月29日（星期日）、10月12日（星期六）上班。\n"
    "节前请各部门做好安全检查工作，值班安排请于9月25日前报行政部。\n\n行政部\n2024年9月18日\n"
)


def write_kb(root: Path) -> World:
    """Write the ten files under ``root`` (relative names as a user's folder has them); return their rows."""
    world = World()
    writers = {
        "销售/2023年订单台账.xlsx": lambda p: _orders_xlsx(p, world),
        "人事/员工花名册.xlsx": lambda p: _staff_xlsx(p, world),
        "合同/合同台账.csv": lambda p: _contracts_csv(p, world),
        "finance/expense_claims.xlsx": lambda p: _expenses_xlsx(p, world),
        "财务/2024年部门预算执行表.xlsx": lambda p: _budget_xlsx(p, world),
        "采购/合格供应商名录.xlsx": _suppliers_xlsx,
        "会议/第三季度项目推进会纪要.docx": _minutes_docx,
        "市场/2024年度营销计划.docx": _plan_docx,
        "制度/员工手册.docx": _handbook_docx,
        "通知/关于国庆节放假安排的通知.txt": lambda p: p.write_text(NOTICE, encoding="utf-8"),
    }
    for name, write in writers.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
        world.files.append(name)
    return world
