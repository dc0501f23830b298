"""``/schema``: the API reference as plain HTML rendered on the server, so it works offline.

Litestar's viewers (Redoc, Swagger, Scalar, ...) load their scripts and fonts from CDNs, and an
intranet server often has none: the page stayed blank. This renderer needs nothing but the
schema: every operation with its summary, description, parameters and body, and the raw schema
at ``/schema/openapi.json`` for tools. All text is escaped; the page runs no script.
"""

from __future__ import annotations

import html
import json
from typing import Any

from litestar import Request
from litestar.openapi.plugins import OpenAPIRenderPlugin

_STYLE = """<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2430;line-height:1.5}
h2{border-bottom:1px solid #d5dbe3;padding-bottom:.3rem;margin-top:2rem}
.op{border:1px solid #d5dbe3;border-radius:6px;padding:.6rem 1rem;margin:.8rem 0}
.m{display:inline-block;min-width:4.5rem;font-weight:700}
code,pre{background:#f3f5f8;border-radius:4px;padding:.1rem .3rem;font-size:.9em}
pre{padding:.6rem;overflow-x:auto;white-space:pre-wrap}
</style>"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _operation(path: str, method: str, op: dict[str, Any]) -> str:
    parts = [f'<div class="op"><span class="m">{_e(method.upper())}</span> <code>{_e(path)}</code>']
    if op.get("summary"):
        parts.append(f" — {_e(op['summary'])}")
    if op.get("description"):
        parts.append(f"<p>{_e(op['description'])}</p>")
    params = op.get("parameters") or []
    if params:
        items = "".join(f"<li><code>{_e(p.get('name'))}</code> ({_e(p.get('in'))})"
                        f"{' — ' + _e(p['description']) if p.get('description') else ''}</li>" for p in params)
        parts.append(f"<p>Parameters:</p><ul>{items}</ul>")
    body = (op.get("requestBody") or {}).get("content") or {}
    for media, spec in body.items():
        schema = json.dumps(spec.get("schema", {}), ensure_ascii=False, indent=1)
        parts.append(f"<p>Body <code>{_e(media)}</code>:</p><pre>{_e(schema)}</pre>")
    parts.append("</div>")
    return "".join(parts)


def render_schema_page(schema: dict[str, Any]) -> str:
    info = schema.get("info", {})
    by_tag: dict[str, list[str]] = {}
    for path, methods in sorted(schema.get("paths", {}).items()):
        for method, op in methods.items():
            if isinstance(op, dict) and method in ("get", "post", "put", "patch", "delete"):
                tag = (op.get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).append(_operation(path, method, op))
    sections = "".join(f"<h2>{_e(tag)}</h2>{''.join(ops)}" for tag, ops in by_tag.items())
    components = json.dumps(schema.get("components", {}).get("schemas", {}), ensure_ascii=False, indent=1)
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>{_e(info.get("title", "API"))} API</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="icon" href="/favicon.ico">{_STYLE}</head><body>'
            f"<h1>{_e(info.get('title', 'API'))} {_e(info.get('version', ''))}</h1>"
            f"<p>{_e(info.get('description', ''))}</p>"
            f'<p>Machine-readable: <a href="/schema/openapi.json">/schema/openapi.json</a></p>'
            f"{sections}<h2>Schemas</h2><pre>{_e(components)}</pre></body></html>")


class OfflineSchemaPage(OpenAPIRenderPlugin):
    """The render plugin at ``/schema`` (and ``/schema/offline``)."""

    def __init__(self) -> None:
        super().__init__(path=["/", "/offline"])

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        return render_schema_page(openapi_schema).encode("utf-8")


__all__ = ["OfflineSchemaPage", "render_schema_page"]
