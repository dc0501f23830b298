"""Print the settings reference (Markdown table) from the Settings model, or splice it into the README.

    python scripts/settings_table.py [--update-readme]
"""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import BaseModel

from officeqa.settings import Settings


def rows(model: type[BaseModel], prefix: str) -> list[tuple[str, str, str]]:
    out = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            out += rows(annotation, f"{prefix}{name.upper()}__")
        else:
            out.append((f"{prefix}{name.upper()}", repr(field.default), field.description or ""))
    return out


def table() -> str:
    lines = ["| environment variable | default | what it does |", "|---|---|---|"]
    for env, default, doc in rows(Settings, "OFFICEQA_"):
        lines.append(f"| `{env}` | `{default}` | {doc} |")
    return "\n".join(lines)


def update_readme(path: Path) -> None:
    """Replace the text between the settings markers in the README with a fresh table."""
    text = path.read_text(encoding="utf-8")
    start, end = "<!-- settings:start -->", "<!-- settings:end -->"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{table()}\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--update-readme":
        update_readme(Path(__file__).resolve().parents[1] / "README.md")
    else:
        print(table())
