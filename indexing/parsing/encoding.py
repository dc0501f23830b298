"""Turn the bytes of a text-like file (txt, md, html, csv) into str, whatever its encoding.

Why this order: a byte-order mark is proof, so it wins; then strict UTF-8, because valid
UTF-8 that is really something else is vanishingly rare while detectors do misread
mostly-ASCII UTF-8 (charset-normalizer calls an English page with a few multi-byte
characters "cp1251"); then a declared charset (HTML ``<meta charset>``) when it decodes
(it also beats UTF-8 when fewer than 8 non-ASCII characters make the UTF-8 reading:
two GB2312 characters can be valid UTF-8 by chance); only then statistical detection
with charset-normalizer (a kept library; detection is not hand-rolled here). Two
corrections follow detection, both about what the users' files really are:

* Chinese: ``gb2312``/``gbk`` are decoded as ``gb18030``, their superset, so a rare
  character outside GB2312 does not turn a whole file into an error.
* Ties: when several codecs explain the bytes (almost) equally well -- a short GBK
  snippet also decodes as Big5 or EUC-KR, a cp1252 letter also as cp1250 or cp775 --
  the GB family wins, then cp1252: that is what the users' Chinese and Western Windows
  files are, and cp1252 decodes ``€`` and curly quotes that latin-1 maps to controls.

Declared names go through the one alias table of :mod:`indexing.parsing.charsets`
(``windows-950`` -> cp950, ``ks_c_5601-1987`` -> cp949 ...), which importing this module also
registers with Python's codec registry for the libraries that decode by name themselves.

A file no codec explains (binary bytes behind a .txt suffix) is refused as ``corrupt``.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from charset_normalizer import from_bytes

from indexing.parsing.charsets import codec_for
from officeqa.errors import RefusalKind, UnreadableDocument

__all__ = ["DecodedText", "decode_bytes", "normalize_encoding_name", "read_text"]

_BOMS: list[tuple[bytes, str]] = [
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: its BOM starts with FF FE
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
]

# Encodings a detector or a declaration may name, and what to decode with instead.
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "cp936": "gb18030",
    "hz": "gb18030",
    "latin_1": "cp1252",  # WHATWG: a page declaring iso-8859-1 is decoded as windows-1252
    "ascii": "cp1252",
}

# On a tie (short or ambiguous bytes), these win, in this order: the users' files are mostly Chinese
# (GB family) or Western Windows text, not Big5, EUC-KR, Baltic or Central European code pages.
_PREFERRED_ON_TIE = ("gb18030", "gb2312", "gbk", "cp1252")
# How much worse (charset-normalizer "chaos", 0..1) a preferred codec may be and still win the tie.
_TIE_CHAOS = 0.02
# This many non-ASCII characters decoded from valid UTF-8 outweigh a declaration naming another charset
# (by chance, legacy double-byte text forms valid UTF-8 sequences far less often).
_UTF8_PROOF_CHARS = 8
# A text whose share of NUL characters is above this is binary, not text.
_MAX_NUL_SHARE = 0.01


@dataclass(frozen=True, slots=True)
class DecodedText:
    """Decoded text, the Python codec that produced it and how sure the choice is (0..1)."""

    text: str
    encoding: str
    confidence: float


def normalize_encoding_name(name: str) -> str | None:
    """The Python codec for a declared or detected name, widened to its superset; None if unknown.

    Names Python does not know (``windows-950``, ``ks_c_5601-1987``, ``x-mac-roman`` ...) go
    through the one alias table, :data:`indexing.parsing.charsets.CHARSET_ALIASES`.
    """
    codec = codec_for(name)
    if codec is None:
        return None
    key = codec.replace("-", "_")
    if key == "iso8859_1":
        key = "latin_1"
    return _SUPERSETS.get(key, codec)


def _refuse(source: str, message: str) -> UnreadableDocument:
    return UnreadableDocument(source, RefusalKind.CORRUPT, message)


def _nul_heavy(text: str) -> bool:
    return text.count("\x00") > _MAX_NUL_SHARE * max(len(text), 1)


def _check_text(text: str, encoding: str, source: str) -> str:
    if _nul_heavy(text):
        raise _refuse(source, f"binary content (NUL bytes) in a text file (read as {encoding})")
    return text


def _detect(data: bytes, source: str) -> DecodedText:
    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        raise _refuse(source, "no text encoding explains these bytes (binary or damaged file)")
    chosen, chaos = best.encoding, best.chaos
    tied = [m for m in matches if m.chaos <= best.chaos + _TIE_CHAOS]
    for preferred in _PREFERRED_ON_TIE:
        match = next((m for m in tied if preferred in (m.encoding, *m.could_be_from_charset)), None)
        if match is not None:
            chosen, chaos = preferred, match.chaos
            break
    codec = normalize_encoding_name(chosen) or chosen
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        codec = chosen  # the widened codec refused bytes the detected one accepted
        try:
            text = data.decode(codec)
        except UnicodeDecodeError as exc:
            raise _refuse(source, f"bytes are not valid {codec}, the closest encoding found") from exc
    return DecodedText(_check_text(text, codec, source), codec, round(max(0.0, 1.0 - chaos), 3))


def decode_bytes(data: bytes, *, declared: str | None = None, source: str = "<bytes>") -> DecodedText:
    """Decode bytes: BOM, then strict UTF-8, then a declared charset, then detection.

    ``declared`` is what the file says about itself (an HTML meta charset); it is honoured
    when the bytes decode with it, and ignored otherwise (pages often lie).
    Raises UnreadableDocument(kind=corrupt) naming ``source`` when nothing decodes.
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(codec)
            except UnicodeDecodeError as exc:
                raise _refuse(source, f"starts with a {codec} byte-order mark but is not valid {codec}") from exc
            return DecodedText(_check_text(text, codec, source), codec, 1.0)
    try:
        utf8: str | None = data.decode("utf-8")
    except UnicodeDecodeError:
        utf8 = None
    if utf8 is not None and _nul_heavy(utf8):
        utf8 = None  # ASCII in UTF-16 without a BOM is "valid UTF-8" full of NULs: let detection look
    if utf8 is not None and (not declared or _utf8_is_proven(utf8)):
        return DecodedText(_check_text(utf8, "utf-8", source), "utf-8", 1.0)
    if declared:
        codec = normalize_encoding_name(declared)
        if codec and codec not in ("utf-8", "utf-16", "utf-32"):
            try:
                return DecodedText(_check_text(data.decode(codec), codec, source), codec, 0.9)
            except UnicodeDecodeError:
                pass
    if utf8 is not None:
        return DecodedText(_check_text(utf8, "utf-8", source), "utf-8", 1.0)
    return _detect(data, source)


def _utf8_is_proven(text: str) -> bool:
    """Valid UTF-8 with enough non-ASCII characters is UTF-8, whatever a declaration says.

    A few GBK characters can form valid UTF-8 by chance ("通知" in GB2312 bytes does), so a
    short valid-UTF-8 text defers to the file's own declaration.
    """
    count = 0
    for char in text:
        if ord(char) > 0x7F:
            count += 1
            if count >= _UTF8_PROOF_CHARS:
                return True
    return False


def read_text(path: str | Path) -> DecodedText:
    """Read and decode a text file; refuses unreadable or undecodable files as ``corrupt``."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _refuse(str(path), f"cannot read the file: {exc.strerror or exc}") from exc
    return decode_bytes(data, source=str(path))
