"""OCR of PDF pages that have no text layer (scanned documents), with RapidOCR.

Why RapidOCR (rapidocr-onnxruntime): its PP-OCRv4 Chinese+English detection and
recognition models ship inside the wheel, so OCR works offline with nothing downloaded
at run time, on CPU, under Apache-2.0.

The engine takes about a second to load and holds ~100 MB of ONNX sessions, so it is
created lazily on first use and reused for the life of the process (:func:`ocr_engine`);
importing this module loads nothing.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from indexing.parsing.pdf_layout import Line

OCR_DPI = 150  # PP-OCR reads 9-12 pt print well at 150 dpi; higher only costs time
MAX_SIDE_PX = 1440  # caps big scans: on the 8-page zh scan 1600 px peaked at ~870 MB RSS, 1280 px at ~710 MB
MIN_SCORE = 0.5


class OcrFailed(RuntimeError):
    """The OCR engine could not be loaded or could not read a page image."""


@cache
def ocr_engine() -> Any:
    """The process-wide RapidOCR engine, created on first call (loading ONNX models is slow)."""
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:  # the optional engine is not installed
        raise OcrFailed(f"the OCR engine is not installed: {exc}") from exc
    return RapidOCR()


def render_scale(width_pt: float, height_pt: float, dpi: int = OCR_DPI) -> float:
    """Pixels per point for OCR: ``dpi``, reduced so the longer side stays within MAX_SIDE_PX."""
    longest = max(width_pt, height_pt, 1.0)
    return min(dpi / 72, MAX_SIDE_PX / longest)


def render_page(page: Any, scale: float) -> Any:
    """A pdfium page rendered to a BGR numpy array (the channel order OpenCV/RapidOCR expect)."""
    bitmap = page.render(scale=scale, grayscale=False)
    try:
        array = bitmap.to_numpy()
        if array.ndim == 3 and array.shape[2] == 4:
            array = array[:, :, :3]
        return array.copy()
    finally:
        bitmap.close()


def ocr_lines(image: Any, page: int, *, scale: float = 1.0) -> list[Line]:
    """Text lines RapidOCR finds in an image, in reading order, as layout ``Line`` values.

    Boxes are divided by ``scale`` (pixels per point) so the paragraph rules see the same
    units as for text-layer pages. The line height of the box stands in for the font size.
    """
    engine = ocr_engine()
    try:
        # No angle classifier: scanned office pages are upright, and it costs a third of the time.
        result, _elapsed = engine(image, use_cls=False)
    except (RuntimeError, ValueError, TypeError, OSError) as exc:  # onnxruntime / cv2 failures
        raise OcrFailed(f"OCR failed on page {page}: {exc}") from exc
    lines: list[Line] = []
    for box, text, score in result or []:
        if not str(text).strip() or float(score) < MIN_SCORE:
            continue
        xs = [float(p[0]) / scale for p in box]
        ys = [float(p[1]) / scale for p in box]
        top, bottom = min(ys), max(ys)
        lines.append(
            Line(text=str(text).strip(), page=page, x0=min(xs), x1=max(xs), top=top, bottom=bottom, size=bottom - top)
        )
    return normalise_sizes(sort_reading_order(lines))


def normalise_sizes(lines: list[Line]) -> list[Line]:
    """Give every line of body height the page's median box height.

    OCR boxes of one font size still vary by a few pixels (ascenders, descenders), which
    would read as font changes and break paragraphs; clearly larger boxes keep their height
    so big titles can still become headings.
    """
    if not lines:
        return lines
    heights = sorted(line.size for line in lines)
    typical = heights[len(heights) // 2]
    return [replace(line, size=typical) if abs(line.size - typical) <= 0.3 * typical else line for line in lines]


def sort_reading_order(lines: list[Line]) -> list[Line]:
    """Top-to-bottom, then left-to-right within a visual row (boxes whose middles overlap)."""
    ordered = sorted(lines, key=lambda ln: (ln.top, ln.x0))
    rows: list[list[Line]] = []
    for line in ordered:
        middle = (line.top + line.bottom) / 2
        if rows and rows[-1][0].top <= middle <= rows[-1][0].bottom:
            rows[-1].append(line)
        else:
            rows.append([line])
    return [line for row in rows for line in sorted(row, key=lambda ln: ln.x0)]


def ocr_page(page: Any, page_number: int, dpi: int = OCR_DPI) -> list[Line]:
    """Render one pdfium page and OCR it."""
    width, height = page.get_size()
    scale = render_scale(width, height, dpi)
    image = render_page(page, scale)
    return ocr_lines(image, page_number, scale=scale)
