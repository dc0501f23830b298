"""Generated workbooks for the table-question tests, with the rows kept as Python data.

Each builder writes a real file (openpyxl, python-docx, csv) and returns the rows it
wrote, so a test can compute every expected answer independently (sqlite3 or plain
Python) from the data rather than from the product's own reading of the file.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
import sqlite3
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

REGIONS = {"华东": ["上海", "杭州", "南京"], "华北": ["北京", "天津"], "华南": ["广州", "深圳"],
           "西南": ["成都", "重庆"]}
PEOPLE = ["张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊", "赵敏", "黄强"]
PRODUCTS = ["笔记本电脑", "显示器", "打印机", "路由器", "投影仪"]
STATUSES = ["已完成", "已取消", "待发货", "已发货"]
ORDER_HEADER = ["订单编号", "下单日期", "区域", "城市", "销售员", "联系电话", "产品", "数量", "单价", "金额", "状态"]


@dataclass(slots=True)
class Order:
    order_id: str
    day: dt.date
    region: str
    city: str
    person: str
    phone: str
    product: str
    qty: int
    price: Decimal
    amount: Decimal
    status: str


def make_orders(n: int = 5_000, seed: int = 20240) -> list[Order]:
    rng = random.Random(seed)
    orders = []
    for i in range(n):
        region = rng.choice(list(REGIONS))
        qty = rng.randint(1, 20)
        price = Decimal(rng.randint(1_000, 900_000)) / 100
        orders.append(Order(
            order_id=f"SO{2024_00000 + i}", day=dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 365)),
            region=region, city=rng.choice(REGIONS[region]), person=rng.choice(PEOPLE),
            phone=f"1{rng.choice('3589')}{rng.randint(0, 999_999_999):09d}", product=rng.choice(PRODUCTS), qty=qty,
            price=price, amount=price * qty, status=rng.choice(STATUSES),
        ))
    return orders


def customers(seed: int = 7) -> list[tuple[str, str, str, str, int]]:
    rng = random.Random(seed)
    out = []
    for i in range(40):
        region = rng.choice(list(REGIONS))
        out.append((f"C{i + 1:04d}", f"客户{i + 1:02d}有限公司", region, rng.choice(PEOPLE),
                    rng.randint(10, 500) * 1_000))
    return out


def write_orders_xlsx(path: Path, orders: list[Order], custs: list[tuple[str, str, str, str, int]]) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "订单明细"
    ws.append(ORDER_HEADER)
    for o in orders:
        ws.append([o.order_id, o.day, o.region, o.city, o.person, o.phone, o.product, o.qty, float(o.price),
                   float(o.amount), o.status])
    cs = wb.create_sheet("客户")
    cs.append(["客户编号", "客户名称", "区域", "对接销售", "信用额度"])
    for row in custs:
        cs.append(list(row))
    wb.save(path)
    return path


def orders_db(orders: list[Order]) -> sqlite3.Connection:
    """An independent copy of the orders in sqlite, money as integer cents."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE o (id TEXT, day TEXT, region TEXT, city TEXT, person TEXT, phone TEXT, product TEXT, "
               "qty INTEGER, price_cents INTEGER, amount_cents INTEGER, status TEXT)")
    db.executemany("INSERT INTO o VALUES (?,?,?,?,?,?,?,?,?,?,?)", [
        (o.order_id, o.day.isoformat(), o.region, o.city, o.person, o.phone, o.product, o.qty, int(o.price * 100),
         int(o.amount * 100), o.status) for o in orders])
    return db


def cents(value: int | None) -> Decimal:
    return Decimal(value or 0) / 100


def write_staff_xlsx(path: Path, seed: int = 3) -> tuple[Path, list[tuple[str, str, str, str, str, int, int]]]:
    """Decoys: an employee number, a phone and an ID card number next to two money columns."""
    import openpyxl

    rng = random.Random(seed)
    rows = []
    for i in range(120):
        id_card = f"11010119{rng.randint(70, 99)}0101{rng.randint(1000, 9999)}"
        rows.append((f"{100_001 + i}", rng.choice(["研发部", "市场部", "财务部"]), f"员工{i:03d}",
                     f"13{rng.randint(0, 999_999_999):09d}", id_card, rng.randint(50, 300) * 100,
                     rng.randint(0, 50) * 100))
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "员工"
    ws.append(["员工编号", "部门", "姓名", "手机号", "身份证号", "基本工资", "奖金"])
    for r in rows:
        ws.append([int(r[0]), r[1], r[2], int(r[3]), r[4], r[5], r[6]])
    wb.save(path)
    return path, rows


def write_two_years_xlsx(path: Path, seed: int = 11) -> tuple[Path, dict[str, list[tuple[str, int]]]]:
    """Two sheets with the same header (2023年, 2024年): region and amount."""
    import openpyxl

    rng = random.Random(seed)
    data: dict[str, list[tuple[str, int]]] = {}
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for sheet in ("2023年", "2024年"):
        ws = wb.create_sheet(sheet)
        ws.append(["区域", "销售额"])
        rows = [(rng.choice(list(REGIONS)), rng.randint(1, 999) * 10) for _ in range(30)]
        for r in rows:
            ws.append(list(r))
        data[sheet] = rows
    wb.save(path)
    return path, data


def write_targets_xlsx(path: Path) -> tuple[Path, dict[tuple[str, str], list[int]]]:
    """A pivot sheet (region x measure by quarter) and a sheet with a merged two-row header."""
    import openpyxl

    pivot = {("华东", "目标"): [120, 130, 140, 150], ("华东", "实际"): [118, 135, 139, 160],
             ("华北", "目标"): [90, 95, 100, 110], ("华北", "实际"): [85, 99, 101, 108],
             ("华南", "目标"): [100, 100, 105, 115], ("华南", "实际"): [97, 103, 104, 120]}
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "季度目标"
    ws.append(["区域", "指标", "第一季度", "第二季度", "第三季度", "第四季度"])
    for (region, kind), values in pivot.items():
        ws.append([region, kind, *values])
    ws2 = wb.create_sheet("半年")
    ws2.append(["区域", "上半年", None, "下半年", None])
    ws2.append([None, "目标", "实际", "目标", "实际"])
    ws2.merge_cells("B1:C1")
    ws2.merge_cells("D1:E1")
    ws2.merge_cells("A1:A2")
    for region in ("华东", "华北", "华南"):
        t, a = pivot[(region, "目标")], pivot[(region, "实际")]
        ws2.append([region, t[0] + t[1], a[0] + a[1], t[2] + t[3], a[2] + a[3]])
    wb.save(path)
    return path, pivot


def write_serial_dates_xlsx(path: Path, seed: int = 5) -> tuple[Path, list[tuple[dt.date, str, Decimal]]]:
    """Dates written as Excel serial numbers (no date format) under a header that says 日期."""
    import openpyxl

    rng = random.Random(seed)
    rows = [(dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 365)), rng.choice(["张伟", "李娜"]),
             Decimal(rng.randint(100, 99_999)) / 100) for _ in range(200)]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "报销"
    ws.append(["报销日期", "报销人", "报销金额"])
    for day, person, amount in rows:
        ws.append([(day - dt.date(1899, 12, 30)).days, person, float(amount)])
    wb.save(path)
    return path, rows


def write_multi_year_xlsx(path: Path) -> tuple[Path, list[tuple[dt.date, Decimal]]]:
    import openpyxl

    rows = [(dt.date(2023, 12, 5), Decimal("100.50")), (dt.date(2024, 12, 9), Decimal("200.25")),
            (dt.date(2024, 3, 1), Decimal("50"))]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "回款"
    ws.append(["回款日期", "回款金额"])
    for day, amount in rows:
        ws.append([day, float(amount)])
    wb.save(path)
    return path, rows


def write_sales_csv(path: Path, seed: int = 9) -> tuple[Path, list[tuple[dt.date, str, Decimal]]]:
    """A csv with text dates ("2024/3/5") and grouped money ("1,234.50")."""
    rng = random.Random(seed)
    rows = [(dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 180)), rng.choice(["华东", "华南"]),
             Decimal(rng.randint(10_000, 900_000)) / 100) for _ in range(300)]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["日期", "区域", "销售额"])
        for day, region, amount in rows:
            w.writerow([f"{day.year}/{day.month}/{day.day}", region, f"{amount:,.2f}"])
    return path, rows


def write_budget_docx(path: Path) -> tuple[Path, list[tuple[str, str, Decimal]]]:
    import docx

    rows = [("服务器采购", "研发部", Decimal("120.5")), ("市场活动", "市场部", Decimal("80")),
            ("测试设备", "研发部", Decimal("35.25")), ("培训", "人事部", Decimal("12"))]
    document = docx.Document()
    document.add_heading("2024年预算", level=1)
    table = document.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ["项目", "部门", "预算（万元）"], strict=True):
        cell.text = text
    for item in rows:
        cells = table.add_row().cells
        for cell, value in zip(cells, item, strict=True):
            cell.text = str(value)
    document.save(path)
    return path, rows


REGIONS_EN = {"华东": "East", "华北": "North", "华南": "South", "西南": "Southwest"}
STATUS_EN = {"已完成": "Completed", "已取消": "Cancelled", "待发货": "Pending", "已发货": "Shipped"}


def write_orders_en_xlsx(path: Path, orders: list[Order]) -> Path:
    """The same orders with English headers and values (the first 1,000)."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Orders"
    ws.append(["Order ID", "Order Date", "Region", "Salesperson", "Contact Phone", "Quantity", "Unit Price",
               "Amount", "Status"])
    for o in orders[:1_000]:
        ws.append([o.order_id, o.day, REGIONS_EN[o.region], f"rep{books_person(o.person)}", o.phone, o.qty,
                   float(o.price), float(o.amount), STATUS_EN[o.status]])
    wb.save(path)
    return path


def books_person(name: str) -> int:
    return PEOPLE.index(name) + 1
