"""Questions with no content words ("hi", "你好", "谢谢", "thanks!"): a short reply saying what the assistant can do.

Why: retrieval always finds something, so a greeting used to come back as quotes from whatever
document ranked first (football results for "hi"). A message that is only a greeting, thanks,
farewell or acknowledgement names nothing to look up.
"""

from __future__ import annotations

import re

__all__ = ["is_small_talk"]

_WORDS = (
    "hi", "hello", "hey", "hiya", "yo", "good morning", "good afternoon", "good evening", "thanks", "thank you",
    "thx", "ty", "bye", "goodbye", "see you", "ok", "okay", "cool", "great", "nice", "got it",
    "你好", "您好", "你们好", "大家好", "嗨", "哈喽", "哈罗", "喂", "在吗", "在不在", "早", "早上好", "上午好",
    "中午好",
    "下午好", "晚上好", "谢谢", "谢谢你", "谢谢您", "多谢", "感谢", "非常感谢", "辛苦了", "再见", "拜拜", "好的", "好",
    "嗯", "收到", "明白了", "知道了", "ok了",
)
_SEPARATORS = r"[\s,，.。!！?？~～、;；:：…\-—]"
_PARTICLES = "[啊呀呢哦喔啦吧嘛]"
_PHRASE = "|".join(re.escape(w) for w in sorted({w.casefold() for w in _WORDS}, key=len, reverse=True))
# only greeting words (an English word whole, not the start of another), particles and punctuation
_SMALL_TALK = re.compile(rf"(?:{_SEPARATORS}*(?:{_PHRASE})(?![a-z]){_PARTICLES}*)+{_SEPARATORS}*")


def is_small_talk(question: str) -> bool:
    """True when the message is only greetings, thanks, farewells or acknowledgements (at most 24 characters)."""
    text = question.strip().casefold()
    return 0 < len(text) <= 24 and _SMALL_TALK.fullmatch(text) is not None
