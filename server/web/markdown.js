// A small, safe Markdown renderer: text in, DOM nodes out.
//
// Why no HTML string is ever built: answers quote documents, and a document may contain
// <script> or <img onerror=...>. Every piece of text here becomes a Text node
// (document.createTextNode); elements are created only from a fixed list of tags, with no
// attributes taken from the input. So nothing the input says can become markup, a link or an
// event handler. Supported subset: headings, paragraphs with line breaks, - / 1. lists,
// > quotes, ``` code blocks, | tables |, **bold**, *italic*, `code`, and [n] citation markers
// (rendered by a callback the caller gives, as buttons).

const MARKER = /[[【](\d{1,3}(?:\s*[,，、]\s*\d{1,3})*)[\]】]/g;
const INLINE = /(\*\*[^*\n]+\*\*|`[^`\n]+`|\*[^*\s][^*\n]*\*)/g;

function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

// Inline text: citation markers first, then **bold**, *italic*, `code`; everything else is text.
function inline(parent, text, cite) {
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    styled(parent, text.slice(last, match.index));
    const numbers = match[1].split(/\s*[,，、]\s*/).map(Number);
    for (const n of numbers) {
      const node = cite ? cite(n) : null;
      parent.appendChild(node || document.createTextNode(`[${n}]`));
    }
    last = match.index + match[0].length;
  }
  styled(parent, text.slice(last));
}

function styled(parent, text) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.appendChild(document.createTextNode(text.slice(last, match.index)));
    const token = match[0];
    let node;
    if (token.startsWith("**")) { node = el("strong"); node.textContent = token.slice(2, -2); }
    else if (token.startsWith("`")) { node = el("code"); node.textContent = token.slice(1, -1); }
    else { node = el("em"); node.textContent = token.slice(1, -1); }
    parent.appendChild(node);
    last = match.index + token.length;
  }
  if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
}

function lines(parent, textLines, cite) {
  textLines.forEach((line, i) => {
    if (i) parent.appendChild(el("br"));
    inline(parent, line, cite);
  });
}

function tableRow(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

const isTableRule = (line) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line);

// Render ``source`` into a DocumentFragment. ``cite(n)`` returns the node for marker [n] (or null).
export function renderMarkdown(source, cite) {
  const root = document.createDocumentFragment();
  const all = String(source ?? "").replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < all.length) {
    const line = all[i];
    if (!line.trim()) { i += 1; continue; }
    const fence = line.match(/^\s*```/);
    if (fence) {
      const body = [];
      i += 1;
      while (i < all.length && !/^\s*```/.test(all[i])) body.push(all[i++]);
      i += 1;
      const pre = el("pre");
      const code = el("code");
      code.textContent = body.join("\n");
      pre.appendChild(code);
      root.appendChild(pre);
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      const node = el(`h${Math.min(6, heading[1].length + 2)}`);
      inline(node, heading[2], cite);
      root.appendChild(node);
      i += 1;
      continue;
    }
    if (line.includes("|") && i + 1 < all.length && isTableRule(all[i + 1])) {
      const table = el("table");
      const head = el("tr");
      for (const cell of tableRow(line)) { const th = el("th"); inline(th, cell, cite); head.appendChild(th); }
      const thead = el("thead");
      thead.appendChild(head);
      table.appendChild(thead);
      const tbody = el("tbody");
      i += 2;
      while (i < all.length && all[i].includes("|") && all[i].trim()) {
        const tr = el("tr");
        for (const cell of tableRow(all[i])) { const td = el("td"); inline(td, cell, cite); tr.appendChild(td); }
        tbody.appendChild(tr);
        i += 1;
      }
      table.appendChild(tbody);
      const wrap = el("div", "table-wrap");
      wrap.appendChild(table);
      root.appendChild(wrap);
      continue;
    }
    const bullet = /^\s*[-*+•]\s+(.*)$/;
    const numbered = /^\s*\d{1,3}[.)、]\s+(.*)$/;
    if (bullet.test(line) || numbered.test(line)) {
      const pattern = bullet.test(line) ? bullet : numbered;
      const list = el(pattern === bullet ? "ul" : "ol");
      while (i < all.length && pattern.test(all[i])) {
        const item = el("li");
        inline(item, all[i].match(pattern)[1], cite);
        list.appendChild(item);
        i += 1;
      }
      root.appendChild(list);
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quote = el("blockquote");
      const body = [];
      while (i < all.length && /^\s*>/.test(all[i])) body.push(all[i++].replace(/^\s*>\s?/, ""));
      lines(quote, body, cite);
      root.appendChild(quote);
      continue;
    }
    const para = [];
    while (i < all.length && all[i].trim() && !/^\s*(```|#{1,6}\s|[-*+•]\s|\d{1,3}[.)、]\s|>)/.test(all[i])) {
      para.push(all[i++]);
    }
    if (!para.length) para.push(all[i++]);
    const p = el("p");
    lines(p, para, cite);
    root.appendChild(p);
  }
  return root;
}

// Text with ``quote`` highlighted (a <mark>), matched exactly or ignoring whitespace; all as text nodes.
export function highlighted(text, quote) {
  const fragment = document.createDocumentFragment();
  const range = findQuote(text, quote);
  if (!range) { fragment.appendChild(document.createTextNode(text)); return fragment; }
  const [start, end] = range;
  fragment.appendChild(document.createTextNode(text.slice(0, start)));
  const mark = el("mark");
  mark.textContent = text.slice(start, end);
  fragment.appendChild(mark);
  fragment.appendChild(document.createTextNode(text.slice(end)));
  return fragment;
}

export function findQuote(text, quote) {
  if (!quote) return null;
  const exact = text.indexOf(quote);
  if (exact >= 0) return [exact, exact + quote.length];
  // ignore whitespace (chunk text keeps line breaks a quote may have lost)
  const positions = [];
  let squeezed = "";
  for (let k = 0; k < text.length; k += 1) {
    if (!/\s/.test(text[k])) { positions.push(k); squeezed += text[k]; }
  }
  const wanted = quote.replace(/\s+/g, "");
  const at = wanted ? squeezed.indexOf(wanted) : -1;
  if (at < 0) return null;
  return [positions[at], positions[at + wanted.length - 1] + 1];
}
