"""Normalise an instruction before rule matching: width, case, spaces, Traditional characters.

Why: users type "ＥＭＡＩＬ", "電話號碼" or "提取  手机号" and expect the same answer as for
"email", "电话号码", "提取手机号". Rules are written once, in Simplified Chinese and lower
case, and every instruction is brought to that form first. The Traditional->Simplified
table is a small shipped map of characters common in office requests, not a full
converter (no dependency, one ``str.translate``).
"""

from __future__ import annotations

import re
from functools import lru_cache

# Traditional -> Simplified for characters that appear in office instructions.
_T2S_PAIRS = (
    "電电話话郵邮號号碼码總总結结額额區区銷销計计統统數数錢钱據据對对個个幾几條条這这們们麼么麽么說说請请網网"
    "證证資资單单項项時时間间報报錄录標标題题節节與与為为從从裡里裏里來来會会議议聯联繫系係系並并產产價价貨货"
    "幣币帳账賬账務务營营業业關关於于嗎吗謝谢東东華华門门員员頁页類类別别約约簽签訂订歲岁傳传擊击點点鏈链連连"
    "檔档圖图書书寫写讀读問问應应該该還还沒没將将給给後后當当匯汇彙汇覽览歸归納纳紀纪經经濟济團团隊队負负責责"
    "違违見见動动態态況况狀状處处辦办學学長长師师覺觉歡欢迎迎嗨嗨級级內内容容單单樣样選选擇择並并準准確确實实"
    "際际體体發发現现顯显示示稱称號号稅税費费額额扣扣戶户帳账務务週周紙纸張张據据舊旧新新較较區区齡龄財财"
    "轉转換换寬宽縮缩簡简繁繁圍围範范圓圆萬万億亿兩两買买賣卖價价漲涨減减增增補补償偿賠赔罰罚款款項项條条"
)
_T2S = str.maketrans({_T2S_PAIRS[i]: _T2S_PAIRS[i + 1] for i in range(0, len(_T2S_PAIRS) - 1, 2)})

# Full-width ASCII (U+FF01..U+FF5E) -> half-width; ideographic space -> space; yen signs unified.
_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
_WIDTH[0x3000] = 0x20
_WIDTH[0xFFE5] = ord("¥")
_WIDTH = str.maketrans(_WIDTH)

_SPACES = re.compile(r"\s+")


def to_half_width(text: str) -> str:
    """Full-width letters, digits and punctuation to their ASCII forms ("（１）" -> "(1)")."""
    return text.translate(_WIDTH)


def to_simplified(text: str) -> str:
    """Traditional characters from the shipped table to Simplified ("電話" -> "电话")."""
    return text.translate(_T2S)


@lru_cache(maxsize=131_072)
def normalize(text: str) -> str:
    """The form rules are matched against: half-width, Simplified, case-folded, single spaces, trimmed.

    Cached: the table linker normalises every column name and cell value of every table in scope for each
    question (~200k calls for a question over ten reports' tables), and they are the same strings each time."""
    return _SPACES.sub(" ", to_simplified(to_half_width(text)).casefold()).strip()
