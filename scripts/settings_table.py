"""Print the settings reference (Markdown table) for the README from the Settings model."""

from __future__ import annotations

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


if __name__ == "__main__":
    print("| environment variable | default | what it does |\n|---|---|---|")
    for env, default, doc in rows(Settings, "OFFICEQA_"):
        print(f"| `{env}` | `{default}` | {doc} |")
