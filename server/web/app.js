// The officeqa web client: streaming chat with citations, documents with upload, states and chunk preview.
// No build step and no third-party code. Every text that comes from the server (answers, quotes, chunk
// text, file names, errors) is put into the page as text (textContent / markdown.js), never as HTML.

import { highlighted, renderMarkdown } from "./markdown.js";
import { KIND_NAMES, TEXTS, pickLanguage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const store = window.localStorage;
const state = {
  lang: pickLanguage(store.getItem("officeqa.lang"), navigator.language),
  kb: store.getItem("officeqa.kb") || "",
  key: store.getItem("officeqa.key") || "",
  history: [],
  messages: [], // every message on the page with what it needs to be drawn again in another language
  canWrite: true,
  scope: null,
  busy: null,
  docsTimer: null,
  overview: null, // what the knowledge base holds, drawn before the first question (GET /api/overview)
};

const t = (key) => (TEXTS[state.lang] && TEXTS[state.lang][key]) || TEXTS.en[key] || key;
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
const phone = window.matchMedia("(max-width: 640px)");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// -- language ---------------------------------------------------------------------------------------
function applyLanguage() {
  document.documentElement.lang = state.lang;
  document.title = t("title");
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
    // a phone gets the short placeholder: the long one would be cut off in the question box
    node.placeholder = t(`${node.dataset.i18nPlaceholder}${phone.matches ? "_short" : ""}`);
  }
  for (const node of document.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  drawWelcome();
}

// -- the API ----------------------------------------------------------------------------------------
function headers(extra = {}) {
  const out = { ...extra };
  if (state.key) out.Authorization = `Bearer ${state.key}`;
  if (state.kb) out["X-Knowledge-Base"] = state.kb;
  return out;
}

function askForKey() {
  const entered = window.prompt(t("key_prompt"), state.key);
  if (entered === null) return false;
  state.key = entered.trim();
  store.setItem("officeqa.key", state.key);
  return true;
}

async function api(path, options = {}, retried = false) {
  const response = await fetch(path, { ...options, headers: headers(options.headers) });
  if (response.status === 401 && !retried && askForKey()) return api(path, options, true);
  return response;
}

// An error as the user reads it: the translated text of its kind when there is one, else the server's
// message (one line, no class names), never a bare status code alone.
function errorMessage(kind, message) {
  const key = `err_${kind}`;
  const translated = t(key);
  if (translated !== key) return message && state.lang === "en" && kind !== "internal" ? message : translated;
  return message || kind || "";
}

async function errorText(response) {
  try {
    const body = await response.json();
    const error = body.error || {};
    const files = (error.files || []).map((f) => `${f.file}: ${errorMessage(f.kind, f.message)}`).join("; ");
    return files || errorMessage(error.code || error.kind, error.message);
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

// -- knowledge bases --------------------------------------------------------------------------------
async function loadKnowledgeBases() {
  const response = await api("/api/kbs");
  const select = $("kb");
  select.replaceChildren();
  if (!response.ok) return;
  const body = await response.json();
  for (const kb of body.knowledge_bases) {
    const option = el("option", "", kb.name);
    option.value = kb.name;
    select.appendChild(option);
  }
  const names = body.knowledge_bases.map((kb) => kb.name);
  if (!names.includes(state.kb)) state.kb = names[0] || "";
  select.value = state.kb;
  const current = body.knowledge_bases.find((kb) => kb.name === state.kb);
  applyRole(current ? current.write : false);
}

// A read key sees no upload box and no Delete buttons (the server would refuse them anyway).
function applyRole(canWrite) {
  state.canWrite = canWrite;
  $("dropzone").hidden = !canWrite;
  $("read-only").hidden = canWrite;
}

// -- the first screen: what the knowledge base holds, who answers, three questions to click ------------
async function loadOverview() {
  state.overview = null;
  const response = await api("/api/overview");
  if (response.ok) state.overview = await response.json();
  drawWelcome();
}

function kindsText(kinds) {
  const counts = new Map();
  for (const [type, n] of Object.entries(kinds)) {
    const name = KIND_NAMES[type] || type.toUpperCase();
    counts.set(name, (counts.get(name) || 0) + n);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => fill(t("kind_item"), { kind: kind.startsWith("kind_") ? t(kind) : kind, n }))
    .join(t("kind_sep"));
}

function modeText(overview) {
  const model = overview.model || {};
  if (overview.answers === "model") return fill(t("answers_model"), { model: model.name });
  return fill(t(model.configured ? "answers_quoted" : "answers_no_model"), { model: model.name });
}

// Drawn while the conversation is empty, and again after a language switch (the texts are the page's own).
function drawWelcome() {
  const overview = state.overview;
  $("welcome").hidden = !overview || state.messages.length > 0;
  if (!overview) return;
  const count = overview.documents
    ? fill(t("kb_count"), { n: overview.documents, kinds: kindsText(overview.kinds) })
      + (overview.failed ? fill(t("kb_failed"), { n: overview.failed }) : "")
    : t("kb_empty");
  $("welcome-count").textContent = count;
  $("welcome-mode").textContent = modeText(overview);
  $("welcome").dataset.answers = overview.answers;
  const examples = overview.examples || [];
  $("welcome-examples").hidden = examples.length === 0;
  $("examples").replaceChildren(...examples.map((example) => {
    const question = example[state.lang] || example.en;
    const button = el("button", "example", question);
    button.type = "button";
    button.dataset.kind = example.kind;
    button.addEventListener("click", () => { if (!state.busy) ask(question); });
    const item = el("li");
    item.appendChild(button);
    return item;
  }));
}

// -- chat -------------------------------------------------------------------------------------------
function locationText(c) {
  const parts = [];
  if (c.page) parts.push(c.page_end && c.page_end !== c.page ? `${t("page")} ${c.page}-${c.page_end}` : `${t("page")} ${c.page}`);
  if (c.sheet) parts.push(`${t("sheet")} ${c.sheet}`);
  if (c.slide) parts.push(`${t("slide")} ${c.slide}`);
  if (c.row) parts.push(`${t("row")} ${c.row}`);
  return parts.join(" · ");
}

function citationLabel(c) {
  const parts = [`[${c.n}] ${c.document}`];
  const where = locationText(c);
  if (where) parts.push(where);
  if (c.heading_path && c.heading_path.length) parts.push(c.heading_path.join(" > "));
  return parts.join(" · ");
}

function addMessage(role) {
  const wrap = el("article", `message ${role}`);
  const who = el("div", "who");
  wrap.appendChild(who);
  const body = el("div", "body");
  wrap.appendChild(body);
  $("messages").appendChild(wrap);
  wrap.scrollIntoView({ block: "end" });
  const message = { role, wrap, who, body, answer: null, error: null };
  state.messages.push(message);
  drawLabels(message);
  return message;
}

function drawLabels(message) {
  message.who.textContent = message.role === "user" ? t("you") : t("assistant");
}

// After a language switch every message is drawn again: labels, badges, notices' frames, sources, errors.
function redrawMessages() {
  for (const message of state.messages) {
    drawLabels(message);
    if (message.answer) renderFinal(message, message.answer);
    else if (message.error) showError(message, message.error);
  }
}

function showError(message, error) {
  message.error = error;
  message.body.querySelector(".thinking")?.remove();
  message.body.querySelector(".error")?.remove();
  message.body.appendChild(el("div", "error", `${t("error_prefix")}: ${errorMessage(error.kind, error.message)}`));
}

function renderAnswerText(target, text, citations) {
  const byN = new Map((citations || []).map((c) => [c.n, c]));
  target.replaceChildren(renderMarkdown(text, (n) => {
    const citation = byN.get(n);
    if (!citation) return null;
    const button = el("button", "cite", `[${n}]`);
    button.type = "button";
    button.title = citationLabel(citation);
    button.dataset.n = String(n);
    button.addEventListener("click", () => openCitation(citation));
    return button;
  }));
}

function renderFinal(message, answer) {
  const { wrap, body } = message;
  message.answer = answer;
  wrap.dataset.mode = answer.mode;
  const head = el("div", "answer-head");
  head.appendChild(el("span", `badge mode-${answer.mode}`, t(`mode_${answer.mode}`)));
  const text = el("div", "answer-text");
  renderAnswerText(text, answer.answer, answer.citations);
  const parts = [head];
  if (answer.notice) parts.push(el("div", "notice", answer.notice));
  parts.push(text);
  if (answer.citations && answer.citations.length) {
    const sources = el("div", "sources");
    sources.appendChild(el("div", "sources-title", t("sources")));
    const list = el("ol", "source-list");
    for (const c of answer.citations) {
      const item = el("li");
      const link = el("button", "source", citationLabel(c));
      link.type = "button";
      link.addEventListener("click", () => openCitation(c));
      item.appendChild(link);
      list.appendChild(item);
    }
    sources.appendChild(list);
    parts.push(sources);
  }
  body.replaceChildren(...parts);
}

function parseEvents(buffer) {
  const events = [];
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop();
  for (const block of blocks) {
    let event = "message";
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length) events.push({ event, data: data.join("\n") });
  }
  return { events, rest };
}

async function ask(question) {
  $("welcome").hidden = true;
  const user = addMessage("user");
  user.body.textContent = question;
  const message = addMessage("assistant");
  message.body.appendChild(el("div", "thinking", t("thinking")));
  const controller = new AbortController();
  state.busy = controller;
  $("send").textContent = t("stop");
  const payload = {
    question,
    history: state.history.slice(-20),
    documents: state.scope ? [state.scope.doc_id] : [],
    stream: true,
  };
  let streamed = "";
  let pending = false;
  let finished = false;
  const live = el("div", "answer-text streaming");
  try {
    const response = await api("/api/chat", {
      method: "POST",
      body: JSON.stringify(payload),
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      signal: controller.signal,
    });
    if (!response.ok) throw Object.assign(new Error(await errorText(response)), { kind: "" });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const parsed = parseEvents(buffer);
      buffer = parsed.rest;
      for (const { event, data } of parsed.events) {
        const body = JSON.parse(data);
        if (event === "delta") {
          streamed += body.text;
          if (!pending) {
            pending = true;
            requestAnimationFrame(() => {
              pending = false;
              if (finished) return; // the final answer is already on the page
              renderAnswerText(live, streamed, []);
              if (live.parentNode !== message.body) message.body.replaceChildren(live);
              message.wrap.scrollIntoView({ block: "end" });
            });
          }
        } else if (event === "answer") {
          finished = true;
          renderFinal(message, body);
          state.history.push({ role: "user", content: question }, { role: "assistant", content: body.answer });
        } else if (event === "error") {
          throw Object.assign(new Error(body.error.message), { kind: body.error.code || body.error.kind });
        }
      }
    }
  } catch (error) {
    if (error.name !== "AbortError") showError(message, { kind: error.kind || "", message: error.message });
    message.body.querySelector(".thinking")?.remove();
  } finally {
    state.busy = null;
    $("send").textContent = t("send");
    message.wrap.scrollIntoView({ block: "end" });
  }
}

// -- the side panel: a citation, or a document's chunks ---------------------------------------------
function openPanel(title) {
  $("panel-title").textContent = title;
  const body = $("panel-body");
  body.replaceChildren();
  $("panel").hidden = false;
  return body;
}

async function openCitation(c) {
  const body = openPanel(`${t("citation")} [${c.n}] · ${c.document}`);
  body.dataset.chunkId = c.chunk_id || "";
  const meta = el("div", "chunk-meta");
  const where = [locationText(c), (c.heading_path || []).join(" > ")].filter(Boolean).join(" · ");
  meta.textContent = where;
  body.appendChild(meta);
  if (c.label) body.appendChild(el("div", "chunk-label", c.label));
  const text = el("pre", "chunk-text");
  body.appendChild(text);
  if (!c.chunk_id) {
    body.appendChild(el("p", "muted", t("not_found_chunk")));
    text.replaceChildren(highlighted(c.quote, c.quote));
    return;
  }
  const query = new URLSearchParams({ chunk_id: c.chunk_id, metrics: "false" });
  const response = await api(`/api/documents/${encodeURIComponent(c.doc_id)}/chunks?${query}`);
  if (!response.ok) {
    body.appendChild(el("div", "error", await errorText(response)));
    text.replaceChildren(highlighted(c.quote, c.quote));
    return;
  }
  const page = await response.json();
  const chunk = page.chunks[0];
  text.replaceChildren(highlighted(chunk.text, c.quote));
  text.querySelector("mark")?.scrollIntoView({ block: "center" });
}

function metricLine(metrics, total) {
  const pct = (x) => `${Math.round((x || 0) * 1000) / 10}%`;
  return [
    `${t("chunks")} ${total}`, // the stored chunks the list shows (the rates are over the document's chunking)
    `${t("heading_coverage")} ${pct(metrics.heading_path_coverage)}`,
    `${t("oversize_rate")} ${pct(metrics.oversize_rate)}`,
    `${t("sentence_break_rate")} ${pct(metrics.sentence_break_rate)}`,
    `${t("header_retention")} ${pct(metrics.table_header_retention)}`,
  ].join(" · ");
}

async function openChunks(doc, offset = 0, body = null) {
  const target = body || openPanel(`${t("preview")} · ${doc.name}`);
  const query = new URLSearchParams({ offset: String(offset), limit: "50", metrics: offset ? "false" : "true" });
  const response = await api(`/api/documents/${encodeURIComponent(doc.doc_id)}/chunks?${query}`);
  target.querySelector(".more")?.remove();
  if (!response.ok) { target.appendChild(el("div", "error", await errorText(response))); return; }
  const page = await response.json();
  if (page.metrics) target.appendChild(el("div", "metrics", `${t("metrics")}: ${metricLine(page.metrics, page.total)}`));
  for (const chunk of page.chunks) {
    const card = el("section", "chunk");
    card.dataset.chunkId = chunk.id;
    const head = el("div", "chunk-head");
    head.appendChild(el("span", "chunk-no", `#${chunk.position + 1}`));
    head.appendChild(el("span", "chunk-path", chunk.heading_path.join(" > ")));
    head.appendChild(el("span", "chunk-tokens", `${chunk.tokens} ${t("tokens")}`));
    if (chunk.quality.oversize) head.appendChild(el("span", "badge warn", t("oversize")));
    // the badge follows the document's metric (quality.sentence_break, judged by the metric's own rule)
    const cut = chunk.quality.sentence_break ?? !chunk.quality.ends_at_sentence;
    if (cut) head.appendChild(el("span", "badge warn", t("sentence_break")));
    card.appendChild(head);
    card.appendChild(el("pre", "chunk-text", chunk.text));
    target.appendChild(card);
  }
  if (page.offset + page.chunks.length < page.total) {
    const more = el("button", "more", `${t("more")} (${page.offset + page.chunks.length}/${page.total})`);
    more.type = "button";
    more.addEventListener("click", () => openChunks(doc, page.offset + page.chunks.length, target));
    target.appendChild(more);
  }
}

// -- documents --------------------------------------------------------------------------------------
async function loadDocuments() {
  clearTimeout(state.docsTimer);
  const response = await api("/api/documents");
  const tbody = $("documents").querySelector("tbody");
  if (!response.ok) {
    tbody.replaceChildren();
    $("no-documents").hidden = false;
    $("no-documents").textContent = await errorText(response);
    return;
  }
  const { documents } = await response.json();
  $("no-documents").textContent = t("no_documents");
  $("no-documents").hidden = documents.length > 0;
  const rows = documents.map((doc) => {
    const tr = el("tr");
    tr.dataset.name = doc.name;
    tr.dataset.state = doc.state;
    tr.appendChild(cell("doc-name", t("name"), doc.name));
    const stateCell = cell("doc-state", t("state"));
    stateCell.appendChild(el("span", `badge state-${doc.state}`, t(`state_${doc.state}`) || doc.state));
    tr.appendChild(stateCell);
    const chunksCell = cell(`num${doc.state === "indexed" ? "" : " empty"}`, t("chunks"), doc.state === "indexed" ? doc.chunks : "");
    if (doc.state === "indexed" && doc.background_chunks !== undefined && doc.chunks > 0) {
      // the stronger background model's coverage of this document (indexing/strong.py)
      const share = Math.floor((100 * doc.background_chunks) / doc.chunks);
      const coverage = el("span", "background-coverage", ` · ${share}%`);
      coverage.title = `${t("background_coverage")}: ${doc.background_chunks}/${doc.chunks}`;
      chunksCell.appendChild(coverage);
    }
    tr.appendChild(chunksCell);
    const problem = doc.error ? errorMessage(doc.error.kind, doc.error.message) : doc.note || "";
    tr.appendChild(cell(`doc-error${problem ? "" : " empty"}`, t("error"), problem));
    const actions = cell("actions", t("actions"));
    if (doc.state === "indexed") {
      const preview = el("button", "preview", t("preview"));
      preview.addEventListener("click", () => openChunks(doc));
      const askAbout = el("button", "ask-about", t("ask_about"));
      askAbout.addEventListener("click", () => { setScope(doc); showView("chat"); });
      actions.append(preview, askAbout);
    }
    if (state.canWrite && doc.state !== "queued" && doc.state !== "indexing") {
      const remove = el("button", "delete danger", t("delete"));
      remove.addEventListener("click", () => deleteDocument(doc));
      actions.appendChild(remove);
    }
    tr.appendChild(actions);
    return tr;
  });
  tbody.replaceChildren(...rows);
  updateUploadLines(documents);
  if (documents.some((d) => d.state === "queued" || d.state === "indexing") && !$("view-documents").hidden) {
    state.docsTimer = setTimeout(loadDocuments, 1500);
  }
}

// A table cell that also carries its column's name, shown beside the value when the table is drawn as
// cards on a narrow screen.
function cell(className, label, text) {
  const td = el("td", className, text);
  td.dataset.label = label;
  return td;
}

// The upload list follows the documents: "queued" becomes "indexed" or the translated failure.
function updateUploadLines(documents) {
  const byName = new Map(documents.map((d) => [d.name, d]));
  for (const line of document.querySelectorAll("#upload-files li[data-name]")) {
    const doc = byName.get(line.dataset.name);
    if (!doc) continue;
    const done = doc.state === "indexed" ? t("indexed_now") : doc.state === "failed" ? t("failed_now") : t(`state_${doc.state}`);
    line.textContent = `${doc.name} · ${done}`;
    line.className = `upload-file ${doc.state === "failed" ? "error" : "ok"}`;
  }
}

async function deleteDocument(doc) {
  if (!window.confirm(`${t("confirm_delete")}\n${doc.name}`)) return;
  const response = await api(`/api/documents/${encodeURIComponent(doc.doc_id)}`, { method: "DELETE" });
  if (!response.ok) window.alert(await errorText(response));
  if (state.scope && state.scope.doc_id === doc.doc_id) setScope(null);
  await loadDocuments();
}

function uploadFiles(files, retried = false) {
  if (!files.length) return;
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  const list = $("upload-files");
  list.replaceChildren(...[...files].map((f) => el("li", "upload-file", `${f.name} · ${t("uploading")}`)));
  $("upload-progress").hidden = false;
  const bar = $("upload-bar");
  bar.value = 0;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/api/documents");
  for (const [name, value] of Object.entries(headers())) xhr.setRequestHeader(name, value);
  xhr.upload.onprogress = (event) => {
    if (event.lengthComputable) {
      bar.value = Math.round((event.loaded / event.total) * 100);
      $("upload-label").textContent = `${t("uploading")} ${bar.value}%`;
    }
  };
  xhr.onload = () => {
    $("upload-progress").hidden = true;
    if (xhr.status === 401 && !retried && askForKey()) { uploadFiles(files, true); return; }
    let body = {};
    try { body = JSON.parse(xhr.responseText); } catch { body = {}; }
    if (xhr.status >= 200 && xhr.status < 300) {
      list.replaceChildren(...body.documents.map((d) => {
        const line = el("li", "upload-file ok", `${d.file} · ${t("uploaded")}`);
        line.dataset.name = d.file;
        return line;
      }));
    } else {
      const error = body.error || {};
      const refused = error.files && error.files.length ? error.files : [{ file: "", message: error.message || xhr.statusText }];
      list.replaceChildren(...refused.map((f) => el("li", "upload-file error",
        `${f.file ? `${f.file} · ` : ""}${errorMessage(f.kind || error.code, f.message)}`)));
    }
    loadDocuments();
  };
  xhr.onerror = () => {
    $("upload-progress").hidden = true;
    list.replaceChildren(el("li", "upload-file error", t("error_prefix")));
  };
  xhr.send(form);
}

// -- views and wiring -------------------------------------------------------------------------------
function showView(name) {
  $("panel").hidden = true; // the panel belongs to the view it was opened from; it must not cover another
  for (const view of ["chat", "documents"]) {
    $(`view-${view}`).hidden = view !== name;
    $(`tab-${view}`).classList.toggle("active", view === name);
  }
  if (name === "documents") loadDocuments();
  if (name === "chat" && state.messages.length === 0) loadOverview(); // uploads may have changed what it holds
}

function setScope(doc) {
  state.scope = doc ? { doc_id: doc.doc_id, name: doc.name } : null;
  $("scope").hidden = !doc;
  $("scope-name").textContent = doc ? doc.name : "";
}

function newConversation() {
  state.history = [];
  state.messages = [];
  $("messages").replaceChildren();
  drawWelcome();
}

function wire() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));
  $("lang").addEventListener("click", () => {
    state.lang = state.lang === "zh" ? "en" : "zh";
    store.setItem("officeqa.lang", state.lang);
    applyLanguage();
    redrawMessages();
    if (!$("view-documents").hidden) loadDocuments();
  });
  $("key-button").addEventListener("click", () => { if (askForKey()) init(); });
  $("kb").addEventListener("change", (event) => {
    state.kb = event.target.value;
    store.setItem("officeqa.kb", state.kb);
    newConversation();
    setScope(null);
    loadKnowledgeBases();
    loadOverview();
    if (!$("view-documents").hidden) loadDocuments();
  });
  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    if (state.busy) { state.busy.abort(); return; }
    const question = $("question").value.trim();
    if (!question) return;
    $("question").value = "";
    ask(question);
  });
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("ask").requestSubmit();
    }
  });
  $("new-chat").addEventListener("click", newConversation);
  $("scope-clear").addEventListener("click", () => setScope(null));
  $("panel-close").addEventListener("click", () => { $("panel").hidden = true; });
  $("file-input").addEventListener("change", (event) => { uploadFiles([...event.target.files]); event.target.value = ""; });
  $("docs-refresh").addEventListener("click", loadDocuments);
  phone.addEventListener("change", applyLanguage);
  const zone = $("dropzone");
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    uploadFiles([...event.dataTransfer.files]);
  });
}

async function init() {
  applyLanguage();
  await loadKnowledgeBases();
  await loadOverview();
  document.body.dataset.ready = "true";
}

wire();
init();
