"""The Word documents of the eval knowledge base: a contract, meeting minutes, two policy versions, an English guide.

Written the way people write them in Chinese offices: clause headings as bold plain paragraphs
("第一条 服务内容", as WPS users do), heading styles only where an author would use them, a
reviewer's Word comment on the acceptance clause, an action-item table in the minutes. Every
fact a task asks about appears exactly once in the knowledge base (or, for the policy, once per
version), so an answer can be checked against it.
"""

from __future__ import annotations

import datetime as dt
import io

from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Pt

from eval.kb.stable import stable_zip

__all__ = ["contract", "english_guidelines", "meeting_minutes", "security_policy"]

_CREATED = dt.datetime(2024, 10, 8, 9, 0, 0)


def _new(title: str, author: str) -> Document:
    doc = Document()
    props = doc.core_properties
    props.title, props.author, props.last_modified_by = title, author, author
    props.created = props.modified = _CREATED
    props.revision = 1
    return doc


def _save(doc: Document) -> bytes:
    buffer = io.BytesIO()
    doc.save(buffer)
    return stable_zip(buffer.getvalue())


def _title(doc: Document, text: str, size: int = 18) -> None:
    paragraph = doc.add_paragraph()
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    run = paragraph.add_run(text)
    run.bold = True
    run.font.size = Pt(size)


def _bold(doc: Document, text: str) -> None:
    doc.add_paragraph().add_run(text).bold = True


def _table(doc: Document, rows: list[list[str]]) -> None:
    table = doc.add_table(rows=len(rows), cols=len(rows[0]))
    table.style = "Table Grid"
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value


# --------------------------------------------------------------------------------- contract

CONTRACT_COMMENT = (
    "建议将验收期限由10个工作日延长至15个工作日，并删除“视为验收合格”的默认条款，需与甲方再确认。"
)

_CLAUSES: list[tuple[str, list[str]]] = [
    ("第一条 服务内容", [
        "乙方为甲方开发并部署“智能仓储调度系统”（以下简称“本系统”），服务内容包括需求分析、系统开发、"
        "历史数据迁移、上线部署及甲方操作人员培训。",
        "本系统部署于甲方位于上海市浦东新区的中心仓及昆山、嘉兴两个区域仓。",
    ]),
    ("第二条 服务期限", [
        "本合同服务期限自2024年9月1日起至2025年8月31日止。乙方应于2024年12月31日前完成本系统的上线部署。",
    ]),
    ("第三条 合同金额", [
        "本合同总金额为人民币1,286,000.00元（大写：壹佰贰拾捌万陆仟元整），含6%增值税。",
    ]),
    ("第四条 付款方式", [
        "4.1 合同签订后10个工作日内，甲方向乙方支付合同总金额的30%，即人民币385,800.00元；",
        "4.2 本系统上线并经甲方验收合格后10个工作日内，甲方支付合同总金额的50%，即人民币643,000.00元；",
        "4.3 质保期满后10个工作日内，甲方支付合同总金额剩余的20%，即人民币257,200.00元。",
    ]),
    ("第五条 验收", [
        "本系统上线后，甲方应在收到乙方书面验收申请之日起10个工作日内组织验收。",  # the comment anchors here
        "甲方逾期未组织验收且未提出书面异议的，视为验收合格。",
    ]),
    ("第六条 质量保证", [
        "质保期为本系统验收合格之日起12个月。质保期内乙方免费修复系统缺陷，"
        "并在接到甲方故障通知后4小时内响应、24小时内到达现场。",
    ]),
    ("第七条 知识产权", [
        "本系统的软件著作权归乙方所有，甲方在本合同约定范围内享有永久、不可转让的使用权。"
        "甲方提供的业务数据及其衍生数据归甲方所有。",
    ]),
    ("第八条 保密", [
        "双方对在履行本合同过程中知悉的对方商业秘密负有保密义务，保密期限为本合同终止后5年。",
    ]),
    ("第九条 违约责任", [
        "9.1 甲方逾期付款的，每逾期一日，按应付未付金额的万分之五向乙方支付违约金。",
        "9.2 乙方逾期完成上线部署的，每逾期一日，按合同总金额的万分之五向甲方支付违约金，"
        "违约金总额不超过合同总金额的10%。",
        "9.3 乙方逾期超过60日仍未完成上线部署的，甲方有权解除本合同，乙方应退还甲方已支付的全部款项。",
    ]),
    ("第十条 争议解决", [
        "因本合同引起的或与本合同有关的争议，双方应友好协商解决；协商不成的，任何一方均可将争议提交"
        "杭州仲裁委员会，按照申请仲裁时该会现行有效的仲裁规则进行仲裁。",
    ]),
    ("第十一条 其他", [
        "本合同一式肆份，甲乙双方各执贰份，具有同等法律效力，自双方签字并盖章之日起生效。",
    ]),
]


def contract() -> bytes:
    """技术服务合同: numbered clauses, parties with contacts, a legal reviewer's comment on 第五条."""
    doc = _new("技术服务合同", "陈思远")
    _title(doc, "技术服务合同")
    doc.add_paragraph("合同编号：XH-FW-2024-0815")
    doc.add_paragraph("甲方（委托方）：蓝海物流股份有限公司")
    doc.add_paragraph("地址：上海市浦东新区张江路1288号　联系人：王立军　电话：13912345678")
    doc.add_paragraph("乙方（受托方）：杭州星河智能科技股份有限公司")
    doc.add_paragraph("地址：杭州市余杭区文一西路998号　联系人：陈思远　电话：0571-86001234　邮箱：chensy@xinghe-ai.cn")
    doc.add_paragraph(
        "鉴于甲方需要建设智能仓储调度系统，乙方具备相应的技术能力，双方根据《中华人民共和国民法典》及相关法律法规，"
        "经友好协商，就甲方委托乙方提供技术服务事宜达成如下协议："
    )
    for heading, paragraphs in _CLAUSES:
        _bold(doc, heading)
        for text in paragraphs:
            paragraph = doc.add_paragraph()
            run = paragraph.add_run(text)
            if heading.startswith("第五条") and text.startswith("本系统上线后"):
                comment = doc.add_comment(run, text=CONTRACT_COMMENT, author="周敏（法务部）", initials="ZM")
                comment._comment_elm.date = _CREATED
    doc.add_paragraph("（以下无正文）")
    doc.add_paragraph("甲方（盖章）：蓝海物流股份有限公司　授权代表：刘海涛　日期：2024年8月15日")
    doc.add_paragraph("乙方（盖章）：杭州星河智能科技股份有限公司　授权代表：林国栋　日期：2024年8月15日")
    return _save(doc)


# --------------------------------------------------------------------------------- minutes

ACTION_ITEMS = [
    ["序号", "行动项", "负责人", "截止日期", "状态"],
    ["1", "完成多仓协同调度模块压力测试方案", "郑凯", "2024-04-10", "进行中"],
    ["2", "与蓝海物流确认定制报表字段", "陈思远", "2024-03-29", "未开始"],
    ["3", "提交测试环境扩容采购申请", "吴昊", "2024-03-25", "未开始"],
    ["4", "更新V2.3产品需求文档并组织复审", "赵雪", "2024-04-03", "进行中"],
    ["5", "评估语音拣货功能对V2.4排期的影响", "孙悦", "2024-04-15", "未开始"],
]


def meeting_minutes() -> bytes:
    """产品评审会会议纪要: header facts, numbered decisions, an action-item table."""
    doc = _new("智能仓储调度系统V2.3产品评审会会议纪要", "何晓光")
    _title(doc, "智能仓储调度系统V2.3产品评审会会议纪要", 16)
    _bold(doc, "一、会议基本信息")
    for line in (
        "会议时间：2024年3月18日 14:00—16:30",
        "会议地点：杭州总部3号楼301会议室",
        "主持人：孙悦（产品总监）　记录人：何晓光",
        "参会人员：孙悦、陈思远、赵雪、周敏、郑凯、吴昊、何晓光",
    ):
        doc.add_paragraph(line)
    _bold(doc, "二、会议议题")
    for line in (
        "1. 评审V2.3版本的需求范围；",
        "2. 确定V2.3版本的上线时间；",
        "3. 讨论蓝海物流项目提出的定制需求。",
    ):
        doc.add_paragraph(line)
    _bold(doc, "三、会议决议")
    for line in (
        "1. V2.3版本上线时间由原定的2024年5月15日推迟至2024年6月30日，原因是多仓协同调度模块需要补充压力测试。",
        "2. “语音拣货”功能不纳入V2.3版本，移至V2.4版本评估。",
        "3. 蓝海物流项目的定制报表需求纳入V2.3版本，由陈思远负责与客户确认字段细节。",
        "4. 同意测试环境扩容预算8.5万元，由吴昊提交采购申请。",
    ):
        doc.add_paragraph(line)
    _bold(doc, "四、行动项")
    _table(doc, ACTION_ITEMS)
    _bold(doc, "五、下次会议")
    doc.add_paragraph("下次进度评审会定于2024年4月8日10:00召开，地点另行通知。")
    return _save(doc)


# --------------------------------------------------------------------------------- policy (two versions)

_POLICY_VERSIONS = {
    "V2.1": {
        "date": "2023年3月1日",
        "password": "第五条 员工登录公司信息系统的密码长度不少于8位，须包含字母和数字。",
        "rotation": "第六条 密码每90天至少更换一次，新密码不得与最近3次使用过的密码相同。",
        "mfa": None,
        "incident": "第十四条 员工发现信息安全事件或可疑情况，应在4小时内报告信息安全部（安全热线：0571-86009110）。",
        "extra": "第十五条 信息安全部收到报告后，应在1个工作日内完成初步定级。",
    },
    "V3.0": {
        "date": "2024年9月1日",
        "password": "第五条 员工登录公司信息系统的密码长度不少于12位，须同时包含大写字母、小写字母、数字和特殊字符。",
        "rotation": "第六条 密码每180天至少更换一次，新密码不得与最近5次使用过的密码相同。",
        "mfa": "第八条 员工通过互联网远程访问公司信息系统时，必须启用多因素认证（MFA）。",
        "incident": "第十四条 员工发现信息安全事件或可疑情况，应在1小时内报告信息安全部（安全热线：0571-86009110）。",
        "extra": "第十五条 信息安全部收到报告后，应在4小时内完成初步定级，重大事件立即上报分管副总裁。",
    },
}


def security_policy(version: str) -> bytes:
    """信息安全管理制度, one of two versions with the same title (V2.1 of 2023, V3.0 of 2024)."""
    v = _POLICY_VERSIONS[version]
    doc = _new("信息安全管理制度", "信息安全部")
    _title(doc, "杭州星河智能科技股份有限公司信息安全管理制度", 16)
    doc.add_paragraph(f"文件编号：XH-IT-005　版本号：{version}　生效日期：{v['date']}　归口部门：信息安全部")
    doc.add_heading("第一章 总则", level=1)
    doc.add_paragraph("第一条 为保护公司信息资产的保密性、完整性和可用性，规范员工的信息系统使用行为，制定本制度。")
    doc.add_paragraph("第二条 本制度适用于公司全体员工、实习生以及经授权访问公司信息系统的外部人员。")
    doc.add_paragraph("第三条 信息安全部负责本制度的制定、解释和监督执行。")
    doc.add_heading("第二章 账号与密码管理", level=1)
    doc.add_paragraph("第四条 员工账号实行实名制，一人一号，严禁共用或转借账号。")
    doc.add_paragraph(v["password"])
    doc.add_paragraph(v["rotation"])
    doc.add_paragraph("第七条 连续5次输错密码的，账号自动锁定30分钟。")
    if v["mfa"]:
        doc.add_paragraph(v["mfa"])
    doc.add_heading("第三章 数据分类与保护", level=1)
    doc.add_paragraph("第九条 公司数据分为公开、内部、秘密、机密四级，由数据所属部门负责定级。")
    doc.add_paragraph("第十条 秘密级及以上数据不得通过个人邮箱、个人网盘或即时通讯工具传输。")
    doc.add_paragraph("第十一条 对外提供内部级及以上数据，须经部门负责人审批并签订保密协议。")
    doc.add_heading("第四章 终端与网络安全", level=1)
    doc.add_paragraph("第十二条 员工离开座位时须锁定计算机屏幕；下班后应关闭计算机。")
    doc.add_paragraph("第十三条 严禁私自在办公网络中接入无线路由器等网络设备。")
    doc.add_heading("第五章 安全事件报告", level=1)
    doc.add_paragraph(v["incident"])
    doc.add_paragraph(v["extra"])
    doc.add_heading("第六章 附则", level=1)
    doc.add_paragraph(f"第十六条 本制度自{v['date']}起施行，由信息安全部负责解释。")
    return _save(doc)


# --------------------------------------------------------------------------------- English guide

def english_guidelines() -> bytes:
    """An English policy (heading styles, numbered sections) for Chinese questions over English text."""
    doc = _new("Remote Work Guidelines", "HR Department")
    doc.add_heading("Remote Work Guidelines", level=0)
    doc.add_paragraph("Hangzhou Xinghe Intelligent Technology Co., Ltd. · Version 1.2 · Effective 1 May 2024")
    sections = [
        ("1. Eligibility", [
            "Employees who have completed their probation period may work remotely for up to three days per week, "
            "with the written approval of their line manager.",
            "Remote work is not available to staff on the warehouse floor or at customer sites.",
        ]),
        ("2. Working hours and availability", [
            "Core hours are 10:00 to 16:00 China Standard Time. During core hours remote employees must be reachable "
            "on DingTalk and must reply to messages within 30 minutes.",
        ]),
        ("3. Information security", [
            "All access to company systems from home must go through the company VPN (GlobalProtect) with "
            "multi-factor authentication enabled.",
            "Working from public Wi-Fi networks without the VPN is prohibited. Printing confidential documents at "
            "home is not allowed.",
        ]),
        ("4. Equipment and allowance", [
            "The company provides a laptop and a headset. Employees approved for remote work receive a home office "
            "allowance of RMB 300 per month, paid with the salary.",
        ]),
        ("5. How to apply", [
            "Submit a remote work request in the OA system at least two working days in advance. Requests for more "
            "than ten consecutive working days also need approval from the HR Department.",
        ]),
        ("6. Contact", [
            "Questions about these guidelines: IT Service Desk, phone +86 571 8600 9000, e-mail itdesk@xinghe-ai.cn.",
        ]),
    ]
    for heading, paragraphs in sections:
        doc.add_heading(heading, level=1)
        for text in paragraphs:
            doc.add_paragraph(text)
    return _save(doc)
