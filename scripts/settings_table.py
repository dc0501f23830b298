"""Print the settings reference (Markdown table) from the Settings model, or splice it into docs/configuration.md.

    python scripts/settings_table.py [--update]

The table lives between the ``settings:start`` and ``settings:end`` markers of ``docs/configuration.md``;
``tests/unit/test_docs.py`` fails when a setting is missing from it or a row names no setting.
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


#: The page that holds the settings table.
CONFIGURATION_PAGE = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def update_page(path: Path = CONFIGURATION_PAGE) -> None:
    """Replace the text between the settings markers of the page with a fresh table."""
    text = path.read_text(encoding="utf-8")
    start, end = "<!-- settings:start -->", "<!-- settings:end -->"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{table()}\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--update":
        update_page()
    else:
        print(table())
