"""The one table of declared charset names -> the Python codec that decodes them, for every parser.

Why a table: files name their charset in the words of the program that wrote them, and
several of those words are unknown to Python's codec registry or mean a narrower codec than
the writer used. Outlook stores code page 950 and python-oxmsg turns it into
``windows-950`` (a Big5 .msg failed with "unknown encoding: windows-950"); mail clients
declare ``ks_c_5601-1987`` and ``windows-936``; RTF declares ``\\ansicpg10001`` (a Mac code
page); Macs declare ``x-mac-roman``. The names and targets follow the WHATWG Encoding
Standard's labels and Microsoft's code-page identifiers: a Korean ``ks_c_5601-1987`` or
``euc-kr`` page is really Windows code page 949 (Unified Hangul, a superset), a
``shift_jis`` one code page 932, a ``big5`` one code page 950.

Two uses, one table:

- :func:`codec_for` answers the product's own parsers (mail, msg, rtf, html, text and the
  legacy readers go through :func:`indexing.parsing.encoding.normalize_encoding_name`);
- :func:`register` adds the table to Python's codec search path, so the libraries that look
  a declared name up themselves (python-oxmsg, the stdlib ``email`` package, striprtf) also
  decode ``windows-950`` and friends. Python consults a search function only for names its
  own registry does not know, so registering changes no name Python already decodes.
"""

from __future__ import annotations

import codecs

__all__ = ["CHARSET_ALIASES", "codec_for", "register"]

# declared name (any case, '-'/'_'/' ' alike) -> Python codec
CHARSET_ALIASES: dict[str, str] = {
    # Chinese, traditional
    "windows-950": "cp950",
    "x-windows-950": "cp950",
    "big5": "cp950",
    "x-x-big5": "cp950",
    "cn-big5": "cp950",
    "x-mac-chinesetrad": "cp950",
    "cp10002": "cp950",
    # Chinese, simplified (widened to gb18030 by encoding.normalize_encoding_name)
    "windows-936": "gbk",
    "x-gbk": "gbk",
    "gb_2312-80": "gbk",
    "cp20936": "gbk",
    "x-cp20936": "gbk",
    "x-mac-chinesesimp": "gbk",
    "cp10008": "gbk",
    "cp54936": "gb18030",
    "cp52936": "hz",
    # Korean
    "ks_c_5601-1987": "cp949",
    "ks_c_5601-1989": "cp949",
    "ks_c_5601": "cp949",
    "ksc5601": "cp949",
    "ksc_5601": "cp949",
    "korean": "cp949",
    "euc-kr": "cp949",
    "windows-949": "cp949",
    "x-windows-949": "cp949",
    "x-mac-korean": "cp949",
    "cp10003": "cp949",
    "cp51949": "cp949",
    # Japanese
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "windows-932": "cp932",
    "x-mac-japanese": "cp932",
    "cp10001": "cp932",
    "x-euc-jp": "euc_jp",
    "cp20932": "euc_jp",
    "cp51932": "euc_jp",
    "cp50220": "iso2022_jp",
    "cp50221": "iso2022_jp_ext",
    "cp50222": "iso2022_jp",
    # Thai, Vietnamese and the other Windows code pages named by number
    "windows-874": "cp874",
    "tis-620": "cp874",
    "iso-8859-11": "cp874",
    "dos-874": "cp874",
    "dos-720": "cp720",
    "dos-862": "cp862",
    "cp28591": "cp1252",
    "cp28592": "iso8859_2",
    "cp28595": "iso8859_5",
    "cp28597": "iso8859_7",
    "cp28599": "iso8859_9",
    "cp28605": "iso8859_15",
    "cp20127": "ascii",
    "cp1200": "utf-16-le",
    "cp1201": "utf-16-be",
    "unicode": "utf-16-le",
    "unicodefffe": "utf-16-be",
    # Mac code pages (Mail.app, old RTF)
    "x-mac-roman": "mac_roman",
    "cp10000": "mac_roman",
    "x-mac-ce": "mac_latin2",
    "cp10029": "mac_latin2",
    "x-mac-cyrillic": "mac_cyrillic",
    "cp10007": "mac_cyrillic",
    "x-mac-greek": "mac_greek",
    "cp10006": "mac_greek",
    "x-mac-turkish": "mac_turkish",
    "cp10081": "mac_turkish",
    "x-mac-icelandic": "mac_iceland",
    "cp10079": "mac_iceland",
    "x-mac-ukrainian": "mac_cyrillic",
    "cp10017": "mac_cyrillic",
    # Hebrew "logical" ISO page, Windows' name for Latin-1 and other aliases Python lacks
    "iso-8859-8-i": "iso8859_8",
    "iso-8859-6-i": "iso8859_6",
    "x-user-defined": "cp1252",
}


def _key(name: str) -> str:
    return name.strip().strip("\"'").lower().replace("-", "_").replace(" ", "_")


_BY_KEY = {_key(name): codec for name, codec in CHARSET_ALIASES.items()}


def codec_for(name: str) -> str | None:
    """The Python codec name for a declared charset, or None when neither the table nor Python knows it."""
    target = _BY_KEY.get(_key(name))
    try:
        return codecs.lookup(target or name.strip().strip("\"'")).name
    except LookupError:
        return None


def _search(name: str) -> codecs.CodecInfo | None:
    """Codec search function: Python calls it for names its own registry does not know."""
    target = _BY_KEY.get(_key(name))
    return codecs.lookup(target) if target else None


_registered = False


def register() -> None:
    """Make the table visible to every ``bytes.decode``/``codecs.lookup`` in the process (idempotent)."""
    global _registered
    if not _registered:
        codecs.register(_search)
        _registered = True


register()
