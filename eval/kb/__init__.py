"""The eval knowledge base: realistic office files generated deterministically (``python -m eval.kb.generate``).

The generated files are committed under ``eval/kb/files``; :data:`KB_DIR` points there.
"""

from __future__ import annotations

from pathlib import Path

KB_DIR = Path(__file__).resolve().parent / "files"

__all__ = ["KB_DIR"]
