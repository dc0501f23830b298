"""The PDF documents of the eval knowledge base: an employee handbook and a 30+ page annual report.

reportlab writes them with its built-in CID font ``STSong-Light`` (no font file needed; the
product's PDF parser, pypdfium2, extracts its text correctly) in ``invariant`` mode, so the
bytes do not depend on the time of generation. Both carry a running header and page numbers,
as real reports do, and ruled tables (which the parser reads as tables). The handbook's travel
table is long enough to continue on the next page with its header repeated.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import ClassVar

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

__all__ = ["ANNUAL", "annual_report", "employee_handbook"]

FONT = "STSong-Light"

_BODY = ParagraphStyle("body", fontName=FONT, fontSize=10.5, leading=17, wordWrap="CJK", spaceAfter=5,
                       firstLineIndent=21)
_PLAIN = ParagraphStyle("plain", parent=_BODY, firstLineIndent=0)
_H1 = ParagraphStyle("h1", fontName=FONT, fontSize=16, leading=24, spaceBefore=6, spaceAfter=10)
_H2 = ParagraphStyle("h2", fontName=FONT, fontSize=13, leading=20, spaceBefore=6, spaceAfter=6)
_TITLE = ParagraphStyle("title", fontName=FONT, fontSize=24, leading=36, alignment=1, spaceAfter=20)
_CELL = ParagraphStyle("cell", fontName=FONT, fontSize=9, leading=12, wordWrap="CJK")

Flow = list


def _register_font() -> None:
    rl_config.invariant = 1  # no creation date, fixed document id: the same input gives the same bytes
    if FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(FONT))


def _table(rows: list[list[str]], widths: list[float] | None = None, repeat_header: bool = True) -> Table:
    cells = [[Paragraph(c, _CELL) for c in row] for row in rows]
    table = Table(cells, colWidths=widths, repeatRows=1 if repeat_header else 0)
    table.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#DDDDDD")),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
    ]))
    return table


def _build(flow: Flow, header: str, title: str, author: str) -> bytes:
    buffer = io.BytesIO()

    def decorate(canvas, doc) -> None:  # running header and page number on every page but the cover
        if doc.page == 1:
            return
        canvas.saveState()
        canvas.setFont(FONT, 8)
        canvas.drawString(20 * mm, A4[1] - 12 * mm, header)
        canvas.drawCentredString(A4[0] / 2, 10 * mm, f"{doc.page}")
        canvas.restoreState()

    doc = SimpleDocTemplate(buffer, pagesize=A4, title=title, author=author, creator="officeqa eval",
                            leftMargin=20 * mm, rightMargin=20 * mm, topMargin=20 * mm, bottomMargin=18 * mm)
    doc.build(flow, onFirstPage=decorate, onLaterPages=decorate)
    return buffer.getvalue()


def _p(text: str) -> Paragraph:
    return Paragraph(text, _BODY)


# --------------------------------------------------------------------------------- employee handbook

# (city, class, staff, manager, director) in yuan per night; 成都 sits on the table's second page.
_CITIES = [
    ("北京", "一类"), ("上海", "一类"), ("广州", "一类"), ("深圳", "一类"), ("杭州", "二类"), ("南京", "二类"),
    ("苏州", "二类"), ("天津", "二类"), ("武汉", "二类"), ("西安", "二类"), ("厦门", "二类"), ("青岛", "二类"),
    ("宁波", "二类"), ("重庆", "二类"), ("长沙", "三类"), ("郑州", "三类"), ("合肥", "三类"), ("福州", "三类"),
    ("济南", "三类"), ("沈阳", "三类"), ("大连", "三类"), ("昆明", "三类"), ("南昌", "三类"), ("南宁", "三类"),
    ("贵阳", "三类"), ("太原", "三类"), ("石家庄", "三类"), ("哈尔滨", "三类"), ("长春", "三类"), ("兰州", "三类"),
    ("乌鲁木齐", "三类"), ("呼和浩特", "三类"), ("海口", "三类"), ("无锡", "三类"), ("嘉兴", "三类"),
    ("昆山", "三类"), ("成都", "二类"), ("佛山", "三类"), ("东莞", "三类"), ("温州", "三类"), ("绍兴", "三类"),
    ("珠海", "三类"), ("烟台", "三类"), ("徐州", "三类"), ("洛阳", "三类"), ("其他城市", "四类"),
]
_BASE = {"一类": (500, 700, 1000), "二类": (400, 560, 800), "三类": (330, 450, 650), "四类": (280, 380, 550)}
_SPECIAL = {"成都": (370, 530, 760), "深圳": (480, 680, 950), "广州": (450, 650, 900)}


def hotel_rows() -> list[list[str]]:
    rows = [["城市", "城市类别", "普通员工（元/晚）", "部门经理（元/晚）", "总监及以上（元/晚）"]]
    for city, klass in _CITIES:
        staff, manager, director = _SPECIAL.get(city, _BASE[klass])
        rows.append([city, klass, str(staff), str(manager), str(director)])
    return rows


def employee_handbook() -> bytes:
    """星河智能员工手册（2024版）: chapters, leave rules, a travel-allowance table over two pages."""
    _register_font()
    f: Flow = [
        Spacer(1, 60 * mm), Paragraph("杭州星河智能科技股份有限公司", _TITLE), Paragraph("员工手册（2024版）", _TITLE),
        Paragraph("人力资源部 编制　2024年1月", ParagraphStyle("c", parent=_PLAIN, alignment=1)), PageBreak(),
        Paragraph("第一章 总则", _H1),
        _p("第一条 为规范公司管理，保障公司与员工的合法权益，根据《中华人民共和国劳动合同法》等法律法规，结合公司实际，"
           "制定本手册。"),
        _p("第二条 本手册适用于与公司签订劳动合同的全体员工。实习生、劳务派遣人员参照执行。"),
        _p("第三条 本手册由人力资源部负责解释和修订。员工对本手册有疑问的，可拨打人力资源服务热线0571-86005500，"
           "或发送邮件至hr@xinghe-ai.cn。"),
        Paragraph("第二章 工作时间与考勤", _H1),
        _p("第四条 公司实行标准工时制，工作时间为周一至周五9:00—18:00，其中12:00—13:30为午休时间。"),
        _p("第五条 研发中心员工经部门负责人批准可实行弹性工作制，每日核心工作时间为10:00—16:00，每日工作时长不少于8小时。"),
        _p("第六条 员工应通过钉钉按时打卡。迟到或早退30分钟以内的，每次扣减当月绩效分2分；超过30分钟的，按旷工半天处理。"),
        _p("第七条 员工因公外出无法打卡的，应在当日内提交外出补卡申请，由直接上级审批。"),
        Paragraph("第三章 假期", _H1),
        _p("第八条 员工累计工作已满1年不满10年的，年休假5天；已满10年不满20年的，年休假10天；已满20年的，年休假15天。"),
        _p("第九条 年休假原则上在当年度内休完，确因工作需要未休完的，可顺延至次年3月31日，逾期作废。"),
        _p("第十条 员工每年享有带薪病假5天，超过部分按病假工资标准发放。病假须提供二级及以上医院出具的病假证明。"),
        _p("第十一条 员工依法享受婚假3天；在公司工作满2年的员工结婚，公司另行给予奖励婚假7天。"),
        Paragraph("第四章 差旅与报销", _H1),
        _p("第十二条 员工出差须事先在OA系统提交出差申请，经部门负责人批准后方可预订交通和住宿。"),
        _p("第十三条 出差住宿费按下表标准凭发票实报实销，超出标准的部分由员工自行承担。表中未列明的城市按“其他城市”标准执行。"),
        _p("第十四条 出差期间的住宿标准如下："),
        _table(hotel_rows(), widths=[28 * mm, 24 * mm, 38 * mm, 38 * mm, 40 * mm]),
        Spacer(1, 4 * mm),
        _p("第十五条 出差伙食补助按每人每天100元包干发放，赴一类城市出差的，按每人每天120元发放。"),
        _p("第十六条 员工应在出差结束后15个自然日内提交报销申请；超过60日未提交的，财务部不予报销。"),
        Paragraph("第五章 薪酬与福利", _H1),
        _p("第十七条 公司每月10日以银行转账方式发放员工上月工资，遇法定节假日提前至最近的工作日发放。"),
        _p("第十八条 公司按照国家和地方规定为员工缴纳社会保险，住房公积金的单位缴存比例为12%。"),
        _p("第十九条 转正员工可享受公司为其购买的补充医疗保险，每年免费体检一次。"),
        Paragraph("第六章 奖励与处分", _H1),
        _p("第二十条 公司设立年度优秀员工奖、创新奖和客户满意奖，评选结果于次年1月公布。"),
        _p("第二十一条 员工违反公司规章制度的，视情节轻重给予警告、记过、降级直至解除劳动合同的处分。"),
        Paragraph("第七章 附则", _H1),
        _p("第二十二条 本手册自2024年1月1日起施行，原《员工手册（2021版）》同时废止。"),
    ]
    return _build(f, "星河智能员工手册（2024版）", "员工手册（2024版）", "人力资源部")


# --------------------------------------------------------------------------------- annual report

def _yuan(value: Decimal | int | str) -> str:
    return f"{Decimal(value):,.2f}"


def _pct(part: Decimal, whole: Decimal) -> str:
    return f"{(part / whole * 100).quantize(Decimal('0.01'))}%"


class ANNUAL:
    """The annual report's key figures (yuan); the tasks' expectations are computed from these."""

    revenue = Decimal("876543210.12")
    revenue_prev = Decimal("701234567.89")
    net_profit = Decimal("98765432.10")
    net_profit_prev = Decimal("80123456.78")
    net_profit_adj = Decimal("91234567.80")
    net_profit_adj_prev = Decimal("74567890.12")
    cash_flow = Decimal("112345678.90")
    cash_flow_prev = Decimal("95678901.23")
    assets = Decimal("2345678901.23")
    assets_prev = Decimal("2012345678.90")
    equity = Decimal("1567890123.45")
    equity_prev = Decimal("1432109876.54")
    rd = Decimal("123456789.00")
    top_customers: ClassVar[list[tuple[str, Decimal]]] = [
        ("蓝海物流股份有限公司", Decimal("86543210.00")),
        ("华东冷链集团有限公司", Decimal("62345678.00")),
        ("南方电商物流有限公司", Decimal("51234567.00")),
        ("川渝供应链管理有限公司", Decimal("42345678.00")),
        ("北方医药物流有限公司", Decimal("33012345.00")),
    ]
    products: ClassVar[list[tuple[str, Decimal, Decimal]]] = [
        ("智能调度终端", Decimal("312345678.90"), Decimal("201234567.80")),
        ("仓储传感器", Decimal("198765432.10"), Decimal("139876543.20")),
        ("平台软件授权", Decimal("245678901.23"), Decimal("49135780.25")),
        ("实施与运维服务", Decimal("119753197.89"), Decimal("83827238.52")),
    ]
    regions: ClassVar[list[tuple[str, Decimal]]] = [
        ("华东地区", Decimal("421234567.12")),
        ("华北地区", Decimal("168765432.00")),
        ("华南地区", Decimal("154321098.00")),
        ("西南地区", Decimal("89012345.00")),
        ("境外", Decimal("43209768.00")),
    ]


SECTIONS = [
    "第一节 重要提示、目录和释义", "第二节 公司简介和主要财务指标", "第三节 管理层讨论与分析", "第四节 公司治理",
    "第五节 环境和社会责任", "第六节 重要事项", "第七节 股份变动及股东情况", "第八节 优先股相关情况",
    "第九节 债券相关情况", "第十节 财务报告",
]


def _numbers(seed: int) -> Iterator[Decimal]:
    """Deterministic plausible amounts (a linear congruential generator, not Python's random)."""
    state = seed
    while True:
        state = (state * 1103515245 + 12345) % 2**31
        yield Decimal(state % 900_000_000 + 10_000_000) / 100


def _statement(title: str, items: list[str], fixed: dict[str, tuple[Decimal, Decimal]], seed: int) -> Flow:
    numbers = _numbers(seed)
    rows = [["项目", "2023年12月31日/2023年度", "2022年12月31日/2022年度"]]
    for item in items:
        current, previous = fixed.get(item) or (next(numbers), next(numbers))
        rows.append([item, _yuan(current), _yuan(previous)])
    return [Paragraph(title, _H2), Paragraph("单位：元　币种：人民币", _PLAIN),
            _table(rows, widths=[70 * mm, 50 * mm, 50 * mm])]


_BALANCE = [
    "货币资金", "交易性金融资产", "应收票据", "应收账款", "应收款项融资", "预付款项", "其他应收款", "存货", "合同资产",
    "一年内到期的非流动资产", "其他流动资产", "流动资产合计", "长期股权投资", "其他权益工具投资", "投资性房地产",
    "固定资产", "在建工程", "使用权资产", "无形资产", "开发支出", "商誉", "长期待摊费用", "递延所得税资产",
    "其他非流动资产", "非流动资产合计", "资产总计", "短期借款", "应付票据", "应付账款", "合同负债", "应付职工薪酬",
    "应交税费", "其他应付款", "一年内到期的非流动负债", "流动负债合计", "长期借款", "租赁负债", "递延收益",
    "负债合计", "股本", "资本公积", "盈余公积", "未分配利润", "归属于母公司所有者权益合计",
]
_INCOME = [
    "一、营业总收入", "其中：营业收入", "二、营业总成本", "其中：营业成本", "税金及附加", "销售费用", "管理费用",
    "研发费用", "财务费用", "加：其他收益", "投资收益", "公允价值变动收益", "信用减值损失", "资产减值损失",
    "三、营业利润", "加：营业外收入", "减：营业外支出", "四、利润总额", "减：所得税费用", "五、净利润",
    "归属于母公司股东的净利润", "少数股东损益",
]
_CASH = [
    "销售商品、提供劳务收到的现金", "收到的税费返还", "收到其他与经营活动有关的现金", "经营活动现金流入小计",
    "购买商品、接受劳务支付的现金", "支付给职工以及为职工支付的现金", "支付的各项税费",
    "支付其他与经营活动有关的现金", "经营活动现金流出小计", "经营活动产生的现金流量净额", "收回投资收到的现金",
    "取得投资收益收到的现金", "购建固定资产、无形资产和其他长期资产支付的现金", "投资支付的现金",
    "投资活动产生的现金流量净额", "吸收投资收到的现金", "取得借款收到的现金", "偿还债务支付的现金",
    "分配股利、利润或偿付利息支付的现金", "筹资活动产生的现金流量净额", "现金及现金等价物净增加额",
]

_RISKS = [
    ("技术迭代风险", "智能仓储调度领域技术更新较快，若公司未能及时把握算法、物联网和云计算技术的发展方向，"
     "产品竞争力可能下降。公司将持续保持研发投入，加强与高校的联合研究。"),
    ("市场竞争加剧风险", "随着行业参与者增加，部分竞争对手以低价策略争夺客户，可能对公司产品毛利率形成压力。"
     "公司将通过提升交付质量和客户成功服务巩固竞争优势。"),
    ("客户集中度风险", "公司前五名客户销售额占比较高，若主要客户经营情况发生不利变化，可能对公司业绩造成影响。"
     "公司正积极拓展医药、冷链和跨境电商等新行业客户。"),
    ("应收账款回收风险", "公司客户以大中型物流企业为主，项目验收和付款周期较长，应收账款余额随收入增长而增加。"
     "公司已建立客户信用评估和回款考核机制。"),
    ("核心人才流失风险", "公司业务依赖算法、硬件和实施方面的专业人才，若核心人员流失，可能影响研发进度和项目交付。"
     "公司通过股权激励和职业发展通道保持团队稳定。"),
    ("原材料价格波动风险", "智能调度终端和仓储传感器所需芯片、模组等原材料价格波动，可能影响硬件产品成本。"
     "公司与主要供应商签订了年度框架协议，并保持合理库存。"),
]

_GOVERNANCE_MEETINGS = [
    ("第三届董事会第十次会议", "2023-01-16", "审议通过《关于2023年度日常关联交易预计的议案》"),
    ("第三届董事会第十一次会议", "2023-03-28", "审议通过《2022年年度报告》及其摘要等12项议案"),
    ("第三届董事会第十二次会议", "2023-04-25", "审议通过《2023年第一季度报告》"),
    ("第三届董事会第十三次会议", "2023-06-09", "审议通过《关于向激励对象首次授予限制性股票的议案》"),
    ("第三届董事会第十四次会议", "2023-08-24", "审议通过《2023年半年度报告》及其摘要"),
    ("第三届董事会第十五次会议", "2023-10-26", "审议通过《2023年第三季度报告》"),
    ("第三届董事会第十六次会议", "2023-12-15", "审议通过《关于使用部分闲置募集资金进行现金管理的议案》"),
]

_SHAREHOLDERS = [
    ("林国栋", "32,400,000", "27.00"), ("杭州星河创投合伙企业（有限合伙）", "14,400,000", "12.00"),
    ("许文博", "7,200,000", "6.00"), ("浙江省产业升级投资基金有限公司", "6,000,000", "5.00"),
    ("上海临港智造股权投资基金（有限合伙）", "4,800,000", "4.00"), ("沈佳怡", "1,800,000", "1.50"),
    ("中国工商银行股份有限公司－某科技创新混合型证券投资基金", "1,560,000", "1.30"),
    ("招商银行股份有限公司－某智能制造股票型证券投资基金", "1,320,000", "1.10"),
    ("香港中央结算有限公司", "1,080,000", "0.90"), ("宁波梅山保税港区远见投资管理有限公司", "960,000", "0.80"),
]


_ASSET_ITEMS = ["货币资金", "交易性金融资产", "应收账款", "存货", "合同资产", "固定资产", "在建工程", "无形资产",
                "短期借款", "应付账款", "合同负债", "应付职工薪酬", "长期借款"]

_DIRECTORS = [
    ("林国栋", "董事长", "男", "52", "2021-05-18", "186.40"), ("许文博", "董事、总经理", "男", "47", "2021-05-18", "168.20"),
    ("沈佳怡", "董事、董事会秘书", "女", "41", "2021-05-18", "96.50"), ("何静", "董事、财务总监", "女", "45", "2021-05-18", "92.30"),
    ("孙悦", "董事、产品总监", "女", "39", "2022-09-06", "88.60"), ("高明远", "董事", "男", "55", "2021-05-18", "0.00"),
    ("宋立群", "独立董事", "男", "61", "2021-05-18", "12.00"), ("冯晓岚", "独立董事", "女", "58", "2021-05-18", "12.00"),
    ("韩东", "独立董事", "男", "49", "2022-09-06", "12.00"), ("邹建平", "监事会主席", "男", "50", "2021-05-18", "56.80"),
    ("彭丽", "监事", "女", "36", "2021-05-18", "38.20"), ("郑凯", "职工代表监事", "男", "34", "2021-05-18", "42.70"),
]

_RD_EXPENSES = [("职工薪酬", "78,901,234.56"), ("材料费", "18,765,432.10"), ("折旧与摊销", "9,876,543.21"),
                ("委外研发费", "8,765,432.10"), ("其他", "7,148,147.03"), ("合计", "123,456,789.00")]


def _amounts_table(items: list[str], seed: int) -> Table:
    numbers = _numbers(seed)
    rows = [["项目", "本期期末数（元）", "上期期末数（元）"]]
    rows += [[item, _yuan(next(numbers)), _yuan(next(numbers))] for item in items]
    return _table(rows, widths=[60 * mm, 55 * mm, 55 * mm])


def _section_one() -> Flow:
    f: Flow = [Paragraph(SECTIONS[0], _H1)]
    f += [_p("一、本公司董事会、监事会及董事、监事、高级管理人员保证年度报告内容的真实性、准确性、完整性，"
             "不存在虚假记载、误导性陈述或重大遗漏，并承担个别和连带的法律责任。"),
          _p("二、公司全体董事出席董事会会议。"),
          _p("三、天健会计师事务所（特殊普通合伙）为本公司出具了标准无保留意见的审计报告。"),
          _p("四、公司负责人林国栋、主管会计工作负责人何静及会计机构负责人（会计主管人员）郭晓峰声明：保证年度报告中财务报告的真实、准确、完整。"),
          _p("五、董事会决议通过的本报告期利润分配预案：以实施权益分派股权登记日登记的总股本120,000,000股为基数，"
             "向全体股东每10股派发现金红利3.50元（含税），合计派发现金红利42,000,000.00元（含税），不送红股，"
             "不以资本公积金转增股本。"),
          _p("六、前瞻性陈述的风险声明：本报告中所涉及的未来计划、发展战略等前瞻性描述不构成公司对投资者的实质承诺，"
             "敬请投资者注意投资风险。"),
          Paragraph("目录", _H2)]
    f += [Paragraph(name, _PLAIN) for name in SECTIONS]
    f += [Paragraph("释义", _H2),
          _table([["释义项", "指", "释义内容"],
                  ["公司、本公司、星河智能", "指", "杭州星河智能科技股份有限公司"],
                  ["星河上海", "指", "星河智能（上海）有限公司，公司全资子公司"],
                  ["星河成都", "指", "星河智能（成都）科技有限公司，公司控股子公司"],
                  ["报告期", "指", "2023年1月1日至2023年12月31日"],
                  ["WMS", "指", "仓储管理系统（Warehouse Management System）"],
                  ["AGV", "指", "自动导引运输车（Automated Guided Vehicle）"],
                  ["元、万元", "指", "人民币元、人民币万元"]], widths=[50 * mm, 12 * mm, 108 * mm]),
          PageBreak()]
    return f


def _section_two() -> Flow:
    a = ANNUAL
    growth = _pct(a.revenue - a.revenue_prev, a.revenue_prev)
    profit_growth = _pct(a.net_profit - a.net_profit_prev, a.net_profit_prev)
    f: Flow = [Paragraph(SECTIONS[1], _H1), Paragraph("一、公司信息", _H2),
               _table([["项目", "内容"],
                       ["公司的中文名称", "杭州星河智能科技股份有限公司"],
                       ["公司的外文名称", "Hangzhou Xinghe Intelligent Technology Co., Ltd."],
                       ["股票简称", "星河智能"], ["股票代码", "688999"],
                       ["法定代表人", "林国栋"], ["注册地址", "杭州市余杭区文一西路998号"],
                       ["公司网址", "www.xinghe-ai.cn"]], widths=[50 * mm, 120 * mm]),
               Paragraph("二、联系人和联系方式", _H2),
               _table([["项目", "董事会秘书", "证券事务代表"],
                       ["姓名", "沈佳怡", "唐宇航"], ["联系电话", "0571-86008888", "0571-86008899"],
                       ["电子信箱", "ir@xinghe-ai.cn", "ir@xinghe-ai.cn"]], widths=[40 * mm, 65 * mm, 65 * mm]),
               Paragraph("三、近两年主要会计数据和财务指标", _H2),
               _table([["主要会计数据", "2023年", "2022年", "本期比上年同期增减"],
                       ["营业收入（元）", _yuan(a.revenue), _yuan(a.revenue_prev), growth],
                       ["归属于上市公司股东的净利润（元）", _yuan(a.net_profit), _yuan(a.net_profit_prev), profit_growth],
                       ["归属于上市公司股东的扣除非经常性损益的净利润（元）", _yuan(a.net_profit_adj),
                        _yuan(a.net_profit_adj_prev), _pct(a.net_profit_adj - a.net_profit_adj_prev,
                                                           a.net_profit_adj_prev)],
                       ["经营活动产生的现金流量净额（元）", _yuan(a.cash_flow), _yuan(a.cash_flow_prev),
                        _pct(a.cash_flow - a.cash_flow_prev, a.cash_flow_prev)],
                       ["基本每股收益（元/股）", "0.82", "0.67", "22.39%"],
                       ["总资产（元）", _yuan(a.assets), _yuan(a.assets_prev), _pct(a.assets - a.assets_prev, a.assets_prev)],
                       ["归属于上市公司股东的净资产（元）", _yuan(a.equity), _yuan(a.equity_prev),
                        _pct(a.equity - a.equity_prev, a.equity_prev)]],
                      widths=[62 * mm, 38 * mm, 38 * mm, 32 * mm]),
               Spacer(1, 4 * mm),
               _p(f"报告期内，公司实现营业收入{_yuan(a.revenue)}元，较上年同期增长{growth}；实现归属于上市公司股东的净利润"
                  f"{_yuan(a.net_profit)}元，较上年同期增长{profit_growth}。"),
               Paragraph("四、分季度主要财务数据", _H2),
               _table([["项目", "第一季度", "第二季度", "第三季度", "第四季度"],
                       ["营业收入（元）", "168,234,567.01", "205,678,901.02", "214,321,098.03", "288,308,644.06"],
                       ["归属于上市公司股东的净利润（元）", "15,432,109.87", "23,456,789.01", "24,567,890.12",
                        "35,308,643.10"]], widths=[58 * mm, 28 * mm, 28 * mm, 28 * mm, 28 * mm]),
               PageBreak()]
    return f


def _section_three() -> Flow:
    a = ANNUAL
    top_total = sum((v for _, v in a.top_customers), Decimal(0))
    f: Flow = [Paragraph(SECTIONS[2], _H1), Paragraph("一、报告期内公司所处行业情况", _H2)]
    for text in (
        "2023年，我国社会物流总额达到352.4万亿元，按可比价格计算同比增长5.2%。仓储环节的自动化和智能化改造持续推进，"
        "电商、冷链、医药和制造业物流对多仓协同调度、精细化库存管理的需求明显增加。",
        "从竞争格局看，智能仓储软件市场仍较为分散，具备“软件+硬件+实施”一体化交付能力的企业在大型项目招标中更具优势。"
        "行业客户对系统稳定性、数据安全和投资回报周期的要求不断提高。",
        "国家《“十四五”现代物流发展规划》提出加快物流数字化转型，推广智能仓储设施应用，为行业发展提供了良好的政策环境。",
    ):
        f.append(_p(text))
    f.append(Paragraph("二、报告期内公司从事的业务情况", _H2))
    for text in (
        "公司主要为物流企业和制造企业提供智能仓储调度系统，产品包括智能调度终端、仓储传感器、调度平台软件授权以及实施与运维服务。"
        "公司以自研的多仓协同调度算法为核心，帮助客户提升仓库作业效率、降低库存成本。",
        "报告期内，公司发布调度平台V2.2版本，新增AGV集群路径规划和波次拣货优化功能；在医药冷链行业新签约客户17家。",
        "公司采用直销为主、渠道为辅的销售模式，在北京、上海、广州、成都设有区域销售中心，服务客户超过600家。",
    ):
        f.append(_p(text))
    f.append(Paragraph("三、核心竞争力分析", _H2))
    for text in (
        "（一）技术优势。截至报告期末，公司累计获得发明专利86项、软件著作权214项，多仓协同调度算法在实际项目中使平均拣货距离缩短20%以上。",
        "（二）客户与行业经验。公司深耕物流行业十余年，积累了电商、冷链、医药等行业的大量实施经验和业务模板，"
        "可将新项目的平均实施周期控制在90天以内。",
        "（三）人才优势。截至报告期末，公司员工总数为1,238人，其中研发人员562人，占员工总数的45.40%。",
    ):
        f.append(_p(text))
    f += [PageBreak(), Paragraph("四、主营业务分析", _H2), Paragraph("（一）收入与成本", _H2),
          _p(f"报告期内，公司实现营业收入{_yuan(a.revenue)}元，主营业务收入按产品分类如下："),
          _table([["产品", "营业收入（元）", "营业成本（元）", "毛利率"]]
                 + [[name, _yuan(rev), _yuan(cost), _pct(rev - cost, rev)] for name, rev, cost in a.products],
                 widths=[45 * mm, 45 * mm, 45 * mm, 35 * mm]),
          Spacer(1, 4 * mm), _p("主营业务收入按地区分类如下："),
          _table([["地区", "营业收入（元）", "占营业收入比例"]]
                 + [[name, _yuan(rev), _pct(rev, a.revenue)] for name, rev in a.regions],
                 widths=[50 * mm, 60 * mm, 60 * mm]),
          Paragraph("（二）主要销售客户情况", _H2),
          _p(f"前五名客户合计销售金额{_yuan(top_total)}元，占年度销售总额{_pct(top_total, a.revenue)}；"
             "其中前五名客户销售额中关联方销售额0元。"),
          _table([["序号", "客户名称", "销售额（元）", "占年度销售总额比例"]]
                 + [[str(i), name, _yuan(v), _pct(v, a.revenue)] for i, (name, v) in enumerate(a.top_customers, 1)],
                 widths=[15 * mm, 70 * mm, 45 * mm, 40 * mm]),
          Paragraph("（三）研发投入", _H2),
          _p(f"报告期内，公司研发投入合计{_yuan(a.rd)}元，占营业收入的比例为{_pct(a.rd, a.revenue)}，"
             "研发投入全部费用化。研发投入主要用于多仓协同调度算法、边缘计算终端和低功耗无线传感器的研发。"),
          _table([["研发项目", "预计总投资（万元）", "本期投入（万元）", "进展"],
                  ["多仓协同调度算法3.0", "6,800.00", "3,215.40", "已完成算法验证，进入试点"],
                  ["边缘计算调度终端X2", "4,500.00", "2,876.30", "样机测试中"],
                  ["低功耗无线仓储传感器S3", "3,200.00", "1,958.20", "小批量试产"],
                  ["冷链温控监测平台", "2,600.00", "1,624.50", "已在两家客户上线"],
                  ["AGV集群路径规划引擎", "5,100.00", "2,671.28", "V1.0已发布"]],
                 widths=[55 * mm, 38 * mm, 35 * mm, 42 * mm]),
          PageBreak(), Paragraph("（四）资产、负债情况分析", _H2), _amounts_table(_ASSET_ITEMS, seed=5),
          _p("应收账款增加主要系第四季度验收项目增多、部分客户回款周期较长所致；合同负债增加主要系预收项目款增加。"),
          Paragraph("（五）主要控股参股公司分析", _H2),
          _table([["公司名称", "注册资本（万元）", "总资产（元）", "净利润（元）"],
                  ["星河智能（上海）有限公司", "5,000", "312,456,789.01", "21,345,678.90"],
                  ["星河智能（成都）科技有限公司", "2,000", "98,765,432.01", "6,543,210.98"],
                  ["杭州星河传感技术有限公司", "3,000", "187,654,321.09", "12,876,543.21"],
                  ["Xinghe Intelligent (Singapore) Pte. Ltd.", "1,500", "23,456,789.12", "-1,234,567.89"]],
                 widths=[62 * mm, 32 * mm, 38 * mm, 38 * mm]),
          PageBreak(), Paragraph("五、公司未来发展的讨论与分析", _H2)]
    for text in (
        "（一）行业格局和趋势。未来三年，物流企业将从单仓自动化走向多仓网络协同，调度软件与硬件设备的深度融合将成为主流。",
        "（二）公司发展战略。公司将坚持“算法驱动、软硬一体”的发展战略，重点拓展医药冷链和跨境电商行业，并稳步推进东南亚市场。",
        "（三）经营计划。2024年，公司计划发布调度平台V2.3版本，完成边缘计算调度终端X2的量产，新增行业标杆客户30家以上。",
    ):
        f.append(_p(text))
    f.append(Paragraph("（四）可能面对的风险", _H2))
    for i, (name, text) in enumerate(_RISKS, 1):
        f.append(_p(f"{i}. {name}：{text}"))
    f.append(PageBreak())
    return f


def _section_governance() -> Flow:
    f: Flow = [Paragraph(SECTIONS[3], _H1), Paragraph("一、公司治理相关情况说明", _H2)]
    for text in (
        "报告期内，公司严格按照《公司法》《证券法》等法律法规的要求，不断完善法人治理结构，股东大会、董事会、监事会和经营管理层"
        "权责分明、各司其职、有效制衡。",
        "公司董事会由9名董事组成，其中独立董事3名；董事会下设审计委员会、提名委员会、薪酬与考核委员会和战略委员会。",
        "公司董事长为林国栋，总经理为许文博，董事会秘书为沈佳怡，财务总监为何静。",
    ):
        f.append(_p(text))
    f += [Paragraph("二、报告期内召开的董事会会议情况", _H2),
          _table([["会议届次", "召开日期", "会议决议"]] + [list(m) for m in _GOVERNANCE_MEETINGS],
                 widths=[55 * mm, 30 * mm, 85 * mm]),
          Paragraph("三、董事、监事和高级管理人员情况", _H2),
          _table([["姓名", "职务", "性别", "年龄", "任期起始日期", "报告期内税前报酬（万元）"]] + [list(d) for d in _DIRECTORS],
                 widths=[22 * mm, 42 * mm, 14 * mm, 14 * mm, 30 * mm, 48 * mm]),
          _p("审计委员会由3名董事组成，召集人为独立董事冯晓岚（会计专业人士）；报告期内审计委员会召开会议5次。"),
          _p("薪酬与考核委员会召集人为独立董事宋立群；提名委员会召集人为独立董事韩东；战略委员会召集人为董事长林国栋。"),
          PageBreak(),
          Paragraph("四、董事、监事和高级管理人员报酬情况", _H2),
          _p("公司董事、监事和高级管理人员的报酬由董事会薪酬与考核委员会根据公司经营业绩和个人考核结果确定，"
             "报告期内实际支付的税前报酬总额为1,286.50万元。"),
          Paragraph("五、员工情况", _H2),
          _table([["专业构成类别", "人数（人）"], ["研发人员", "562"], ["销售人员", "214"], ["实施与技术支持人员", "298"],
                  ["生产人员", "87"], ["管理与行政人员", "77"], ["合计", "1,238"]], widths=[80 * mm, 50 * mm]),
          _p("公司建立了以岗位价值和绩效结果为基础的薪酬体系，并于2023年6月向156名核心员工授予限制性股票。"),
          PageBreak()]
    return f


def _section_esg() -> Flow:
    f: Flow = [Paragraph(SECTIONS[4], _H1)]
    for text in (
        "一、环境信息情况。公司不属于环境保护部门公布的重点排污单位。公司生产环节主要为电子产品组装和测试，"
        "不产生重大污染物。报告期内，公司杭州生产基地屋顶光伏项目全年发电约42万千瓦时。",
        "二、减少碳排放措施。公司通过调度算法帮助客户优化搬运路径，据测算，报告期内客户仓库因路径优化减少用电约1,860万千瓦时。",
        "三、社会责任工作情况。公司向浙江省慈善联合总会捐赠人民币120万元，用于山区学校信息化建设；组织员工志愿服务活动23次。",
        "四、员工权益保护。公司依法与员工签订劳动合同，足额缴纳社会保险和住房公积金，全年组织员工培训共计3,460人次。",
    ):
        f.append(_p(text))
    f.append(PageBreak())
    return f


def _section_events() -> Flow:
    f: Flow = [Paragraph(SECTIONS[5], _H1)]
    for text in (
        "一、承诺事项履行情况。报告期内，公司实际控制人、股东及公司均严格履行了首次公开发行时作出的各项承诺。",
        "二、报告期内，公司不存在控股股东及其关联方非经营性占用资金的情况，也不存在违规担保情况。",
        "三、聘任会计师事务所情况。公司续聘天健会计师事务所（特殊普通合伙）为2023年度审计机构，审计费用为85万元。",
        "四、重大诉讼、仲裁事项。报告期内，公司无重大诉讼、仲裁事项。",
        "五、重大合同及其履行情况。报告期内，公司与华东冷链集团有限公司签订多仓调度系统建设合同，合同金额为5,680.00万元，"
        "截至报告期末已完成第一期交付。",
        "六、募集资金使用情况。截至报告期末，公司累计使用募集资金48,765.43万元，尚未使用的募集资金存放于募集资金专户。",
    ):
        f.append(_p(text))
    f += [Paragraph("七、重大关联交易", _H2),
          _table([["关联方", "关联关系", "交易内容", "交易金额（元）"],
                  ["杭州星河创投合伙企业（有限合伙）", "持股5%以上股东", "房屋租赁", "1,234,567.00"],
                  ["杭州云启数据服务有限公司", "董事高明远任董事的企业", "云服务采购", "2,345,678.00"],
                  ["浙江星耀新能源有限公司", "实际控制人亲属控制的企业", "光伏电费", "456,789.00"]],
                 widths=[55 * mm, 45 * mm, 30 * mm, 40 * mm]),
          Paragraph("八、募集资金投资项目情况", _H2),
          _table([["项目名称", "承诺投资总额（万元）", "累计投入（万元）", "投入进度"],
                  ["智能调度平台升级项目", "28,000.00", "24,567.89", "87.74%"],
                  ["智能硬件产业化项目", "18,000.00", "15,432.10", "85.73%"],
                  ["研发中心建设项目", "12,000.00", "8,765.44", "73.05%"]],
                 widths=[55 * mm, 40 * mm, 40 * mm, 35 * mm]),
          PageBreak()]
    return f


def _section_shares() -> Flow:
    f: Flow = [Paragraph(SECTIONS[6], _H1),
               _p("一、股份变动情况。报告期内，公司股份总数未发生变化，为120,000,000股。"),
               _p("二、截至报告期末普通股股东总数为18,642户，年度报告披露日前上一月末普通股股东总数为17,905户。"),
               Paragraph("三、前十名股东持股情况", _H2),
               _table([["股东名称", "期末持股数量（股）", "比例（%）"]] + [list(s) for s in _SHAREHOLDERS],
                      widths=[100 * mm, 40 * mm, 30 * mm]),
               _p("四、控股股东及实际控制人情况。公司控股股东、实际控制人为林国栋先生，报告期内未发生变更。"),
               PageBreak(),
               Paragraph(SECTIONS[7], _H1), _p("适用□　不适用√"), _p("报告期内，公司不存在优先股。"),
               Paragraph(SECTIONS[8], _H1), _p("适用□　不适用√"), _p("报告期内，公司不存在公司债券、可转换公司债券。"),
               PageBreak()]
    return f


def _section_financial() -> Flow:
    a = ANNUAL
    f: Flow = [Paragraph(SECTIONS[9], _H1), Paragraph("一、审计报告", _H2)]
    for text in (
        "审计意见：我们审计了杭州星河智能科技股份有限公司财务报表，包括2023年12月31日的合并及母公司资产负债表，"
        "2023年度的合并及母公司利润表、现金流量表、所有者权益变动表，以及相关财务报表附注。",
        "我们认为，后附的财务报表在所有重大方面按照企业会计准则的规定编制，公允反映了星河智能2023年12月31日的合并及母公司"
        "财务状况以及2023年度的合并及母公司经营成果和现金流量。",
        "关键审计事项：收入确认。星河智能的营业收入主要来自软硬件产品销售和实施服务，由于营业收入是关键业绩指标，"
        "我们将收入确认识别为关键审计事项。",
        "关键审计事项：应收账款减值。截至2023年12月31日，应收账款账面余额较大，管理层在确定预期信用损失时需要运用重大判断。",
    ):
        f.append(_p(text))
    f.append(_p("天健会计师事务所（特殊普通合伙）　中国注册会计师：钱立新、罗晓雯　2024年3月26日"))
    f.append(PageBreak())
    f += _statement("二、合并资产负债表", _BALANCE,
                    {"资产总计": (a.assets, a.assets_prev),
                     "归属于母公司所有者权益合计": (a.equity, a.equity_prev)}, seed=11)
    f.append(PageBreak())
    f += _statement("三、合并利润表", _INCOME,
                    {"其中：营业收入": (a.revenue, a.revenue_prev), "一、营业总收入": (a.revenue, a.revenue_prev),
                     "研发费用": (a.rd, Decimal("98765012.34")),
                     "归属于母公司股东的净利润": (a.net_profit, a.net_profit_prev)}, seed=23)
    f.append(PageBreak())
    f += _statement("四、合并现金流量表", _CASH, {"经营活动产生的现金流量净额": (a.cash_flow, a.cash_flow_prev)}, seed=37)
    f.append(PageBreak())
    f += _statement("五、母公司资产负债表", _BALANCE, {}, seed=41)
    f.append(PageBreak())
    f += _statement("六、母公司利润表", _INCOME, {}, seed=53)
    f.append(PageBreak())
    f += _statement("七、母公司现金流量表", _CASH, {}, seed=67)
    f.append(PageBreak())
    f += [Paragraph("八、合并所有者权益变动表（摘要）", _H2), _amounts_table(
        ["一、上年年末余额", "二、本年期初余额", "三、本期增减变动金额", "（一）综合收益总额", "（二）所有者投入和减少资本",
         "1．股份支付计入所有者权益的金额", "（三）利润分配", "1．提取盈余公积", "2．对所有者的分配", "四、本期期末余额"],
        seed=71), PageBreak()]
    f.append(Paragraph("五、财务报表附注（节选）", _H2))
    notes = [
        ("1. 公司基本情况", "杭州星河智能科技股份有限公司成立于2009年6月，2020年8月在上海证券交易所科创板上市。"
         "公司及子公司主要从事智能仓储调度系统的研发、生产、销售及相关服务。"),
        ("2. 财务报表的编制基础", "本公司财务报表以持续经营为基础，根据实际发生的交易和事项，按照财政部发布的企业会计准则进行确认和计量。"),
        ("3. 收入确认原则", "硬件产品在客户签收时确认收入；软件授权在交付并取得客户确认时确认收入；实施与运维服务在服务期间内按履约进度确认收入。"),
        ("4. 应收账款坏账准备", "本公司以预期信用损失为基础，按账龄组合计提坏账准备：1年以内5%，1至2年10%，2至3年30%，3年以上100%。"),
        ("5. 存货", "存货按成本与可变现净值孰低计量，发出存货采用月末一次加权平均法计价。"),
        ("6. 固定资产折旧", "房屋及建筑物折旧年限20年，机器设备5至10年，电子设备3年，残值率5%，采用年限平均法计提折旧。"),
        ("7. 无形资产", "软件按5年、土地使用权按50年平均摊销；开发阶段支出满足资本化条件的确认为无形资产。"),
        ("8. 政府补助", "与资产相关的政府补助确认为递延收益，在相关资产使用寿命内分期计入损益；与收益相关的在发生时计入当期损益。"),
        ("9. 所得税", "本公司为高新技术企业，报告期内减按15%的税率缴纳企业所得税；软件产品增值税实际税负超过3%的部分即征即退。"),
        ("10. 租赁", "本公司作为承租人，对短期租赁和低价值资产租赁以外的租赁确认使用权资产和租赁负债。"),
    ]
    for title, text in notes:
        f += [Paragraph(title, _PLAIN), _p(text)]
    f.append(PageBreak())
    f += [Paragraph("11. 应收账款按账龄披露", _PLAIN),
          _amounts_table(["1年以内", "1至2年", "2至3年", "3年以上", "小计", "减：坏账准备", "合计"], seed=83),
          Paragraph("12. 存货分类", _PLAIN),
          _amounts_table(["原材料", "在产品", "库存商品", "发出商品", "合同履约成本", "合计"], seed=89),
          PageBreak(),
          Paragraph("13. 固定资产情况", _PLAIN),
          _amounts_table(["房屋及建筑物", "机器设备", "电子设备", "运输设备", "办公设备", "合计"], seed=97),
          Paragraph("14. 销售费用", _PLAIN),
          _amounts_table(["职工薪酬", "差旅费", "业务招待费", "市场推广费", "售后服务费", "其他", "合计"], seed=101),
          PageBreak(),
          Paragraph("15. 管理费用", _PLAIN),
          _amounts_table(["职工薪酬", "折旧与摊销", "中介机构费", "办公费", "股份支付", "其他", "合计"], seed=103),
          Paragraph("16. 研发费用", _PLAIN),
          _table([["项目", "本期发生额（元）"]] + [list(r) for r in _RD_EXPENSES], widths=[60 * mm, 60 * mm]),
          PageBreak()]
    f += [Paragraph("17. 货币资金", _PLAIN),
          _amounts_table(["库存现金", "银行存款", "其他货币资金", "合计", "其中：存放在境外的款项总额"], seed=107),
          Paragraph("18. 合同负债", _PLAIN),
          _amounts_table(["预收软件授权款", "预收实施服务款", "预收硬件货款", "合计"], seed=109),
          PageBreak(),
          Paragraph("19. 应付职工薪酬", _PLAIN),
          _amounts_table(["短期薪酬", "离职后福利－设定提存计划", "辞退福利", "一年内到期的其他福利", "合计"], seed=113),
          Paragraph("20. 政府补助", _PLAIN),
          _amounts_table(["软件产品增值税即征即退", "省级重点研发计划补助", "高新技术企业奖励", "稳岗补贴", "合计"], seed=127),
          PageBreak(),
          Paragraph("21. 所得税费用", _PLAIN),
          _amounts_table(["当期所得税费用", "递延所得税费用", "合计"], seed=131),
          Paragraph("22. 非经常性损益明细", _PLAIN),
          _amounts_table(["非流动性资产处置损益", "计入当期损益的政府补助", "委托他人投资或管理资产的损益",
                          "除上述各项之外的其他营业外收入和支出", "减：所得税影响额", "合计"], seed=137),
          PageBreak()]
    f += [Paragraph("23. 主要子公司情况", _PLAIN),
          _table([["子公司名称", "注册地", "持股比例", "主营业务"],
                  ["星河智能（上海）有限公司", "上海", "100%", "软件开发与销售"],
                  ["星河智能（成都）科技有限公司", "成都", "70%", "西南区域销售与实施"],
                  ["杭州星河传感技术有限公司", "杭州", "100%", "传感器研发与生产"],
                  ["Xinghe Intelligent (Singapore) Pte. Ltd.", "新加坡", "100%", "东南亚市场拓展"]],
                 widths=[62 * mm, 25 * mm, 25 * mm, 58 * mm]),
          PageBreak(), Paragraph("备查文件目录", _H1),
          _p("一、载有公司负责人、主管会计工作负责人、会计机构负责人签名并盖章的财务报表。"),
          _p("二、载有会计师事务所盖章、注册会计师签名并盖章的审计报告原件。"),
          _p("三、报告期内公开披露过的所有公司文件的正本及公告的原稿。"),
          _p("董事长：林国栋　杭州星河智能科技股份有限公司　2024年3月28日")]
    return f


def annual_report() -> bytes:
    """星河智能2023年年度报告: ten sections, key-figure tables, statements, 30+ pages."""
    _register_font()
    cover: Flow = [Spacer(1, 50 * mm), Paragraph("杭州星河智能科技股份有限公司", _TITLE),
                   Paragraph("2023年年度报告", _TITLE),
                   Paragraph("股票简称：星河智能　股票代码：688999", ParagraphStyle("c", parent=_PLAIN, alignment=1)),
                   Paragraph("2024年3月", ParagraphStyle("c2", parent=_PLAIN, alignment=1)), PageBreak()]
    parts: list[Callable[[], Flow]] = [_section_one, _section_two, _section_three, _section_governance, _section_esg,
                                       _section_events, _section_shares, _section_financial]
    flow = cover
    for part in parts:
        flow += part()
    return _build(flow, "杭州星河智能科技股份有限公司 2023年年度报告", "2023年年度报告", "杭州星河智能科技股份有限公司")
