// graphmem's console: a page over the REST API, with the caller's bearer token. Every stored
// text is put into the page as text (textContent), never as markup; the token lives in this
// module's memory only, so a reload asks for it again.
let token = "";
let writes = {};  // space -> whether the token may change it (GET /v1/spaces says)
const main = document.getElementById("main");
const status = document.getElementById("status");

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "on") for (const [kind, fn] of Object.entries(value)) node.addEventListener(kind, fn);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return node;
}

async function api(method, path, body) {
  const began = performance.now();
  const response = await fetch(path, {
    method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  status.textContent = `${method} ${path.split("?")[0]}: ${response.status} in ${Math.round(performance.now() - began)} ms`;
  if (!response.ok) throw new Error(data.error?.message || data.detail || `HTTP ${response.status}`);
  return data;
}

const enc = encodeURIComponent;
const show = (...nodes) => main.replaceChildren(...nodes);
const failed = (error) => show(el("p", { class: "error", role: "alert" }, String(error.message || error)));

async function spaces() {
  const list = await api("GET", "/v1/spaces");
  writes = Object.fromEntries(list.map((s) => [s.space, s.writes]));
  const nav = document.getElementById("spaces");
  nav.replaceChildren(el("h2", {}, "Spaces"), ...list.map((s) => el("button", {
    "data-space": s.space, on: { click: () => space(s.space, "conversations").catch(failed) },
  }, `${s.space} (${s.turns} messages${s.writes ? "" : ", read-only"})`)));
  show(el("p", { class: "hint" }, list.length ? "Pick a space." : "No space holds anything yet."));
}

function tabs(name, current) {
  return el("div", { class: "tabs", role: "tablist" }, ["conversations", "search", "history"].map(
    (tab) => el("button", { class: tab === current ? "on" : null, "data-tab": tab,
      on: { click: () => space(name, tab).catch(failed) } }, tab)));
}

async function space(name, tab) {
  if (tab === "search") return show(el("h2", {}, name), tabs(name, tab), searchForm(name));
  if (tab === "history") {
    const changes = await api("GET", `/v1/spaces/${enc(name)}/history?limit=100`);
    return show(el("h2", {}, name), tabs(name, tab), el("table", { id: "history" },
      el("tr", {}, ["when", "what", "surface", "caller", "nodes +/-"].map((h) => el("th", {}, h))),
      changes.map((c) => el("tr", {}, el("td", {}, c.at), el("td", {}, c.what), el("td", {}, c.surface),
        el("td", {}, c.caller || ""), el("td", {}, `+${c.nodes_created} / -${c.nodes_deleted}`)))));
  }
  const list = await api("GET", `/v1/spaces/${enc(name)}/conversations`);
  show(el("h2", {}, name), tabs(name, tab), el("table", { id: "conversations" },
    el("tr", {}, ["conversation", "sessions", "messages", "last session", "deriving"].map((h) => el("th", {}, h))),
    list.map((c) => el("tr", {},
      el("td", {}, el("button", { "data-conversation": c.conversation,
        on: { click: () => messages(name, c.conversation).catch(failed) } }, c.conversation)),
      el("td", {}, c.sessions), el("td", {}, c.messages), el("td", {}, c.last_session_at || ""),
      el("td", {}, (c.pending_layers || []).join(", "))))));
}

// messages per page: the address's ?page= (e.g. /console?page=100; 1 to 1000, the API's
// largest page), else 500
const PAGE = Math.min(1000, Math.max(1, Math.floor(Number(new URLSearchParams(window.location.search).get("page"))) || 500));

async function messages(name, conversation) {
  const path = `/v1/spaces/${enc(name)}/messages?conversation=${enc(conversation)}&limit=${PAGE}`;
  const table = el("table", { id: "messages" },
    el("tr", {}, ["session", "speaker", "text", "when", ""].map((h) => el("th", {}, h))));
  const count = el("p", { class: "muted" });
  const more = el("button", { id: "more", hidden: true }, "more");
  let shown = 0, cursor = null;
  const next = async () => {
    const page = await api("GET", path + (cursor === null ? "" : `&cursor=${cursor}`));
    table.append(...page.messages.map((m) => messageRow(name, conversation, m)));
    shown += page.messages.length;
    cursor = page.next_cursor ?? null;
    more.hidden = cursor === null;
    count.textContent = `${shown} messages` + (cursor === null ? "" : `, the first ${shown}: more below`);
  };
  more.addEventListener("click", () => next().catch(failed));
  await next();
  const reading = writes[name] ? null : el("p", { class: "hint", id: "read-only" },
    "This token may read the space but not change it: no forget, no correct.");
  show(el("h2", {}, `${name} / ${conversation}`), tabs(name, "conversations"), reading, count, table, more);
}

function messageRow(name, conversation, m) {
  // forget and correct only for a token that may change the space (a read-only one sees neither)
  const edits = writes[name] ? [
    el("button", { "data-correct": m.id, on: { click: () => correct(name, conversation, m).catch(failed) } }, "correct"),
    el("button", { class: "danger", "data-forget": m.id, on: { click: () => forget(name, conversation, m).catch(failed) } }, "forget"),
  ] : [];
  return el("tr", { "data-message": m.id },
    el("td", { class: "muted" }, m.session), el("td", {}, m.speaker),
    el("td", {}, el("div", { class: "text" }, m.text), derivedOf(name, m.turn_id)),
    el("td", { class: "muted" }, m.said_at || m.session_started_at || ""),
    el("td", { class: "edits" }, edits));
}

function inBrowser(name, id) {
  // the saved query around a unit, its first line naming this one, opened in Neo4j Browser's editor
  const kit = document.getElementById("browser");
  if (!kit) return null;
  const query = kit.content.textContent.replace("WITH $space AS space, $id AS id",
    `WITH ${JSON.stringify(name)} AS space, ${JSON.stringify(id)} AS id`);
  const address = new URL(kit.dataset.address, window.location.href);
  address.search = new URLSearchParams({ dbms: kit.dataset.dbms, db: kit.dataset.db, cmd: "edit", arg: query }).toString();
  return el("a", { class: "browser", href: address.toString(), target: "_blank", rel: "noopener noreferrer",
    "data-browser": id, title: "its neighbourhood in Neo4j Browser (the saved query around a unit)" }, "graph");
}

function derivedOf(name, turnId) {
  // what every layer derived from the message, read when first opened
  const list = el("div", { class: "derived" });
  const box = el("details", { class: "derived-of", on: { toggle: () => {
    if (!box.open || list.childElementCount) return;
    api("GET", `/v1/spaces/${enc(name)}/units/${enc(turnId)}`).then((unit) => {
      const byKind = {};
      for (const d of unit.derived) (byKind[d.kind] ||= []).push(d);
      list.replaceChildren(el("p", { class: "muted" }, "this message ", inBrowser(name, turnId)),
        ...(Object.keys(byKind).length ? Object.entries(byKind).map(([kind, units]) =>
        el("div", { "data-kind": kind }, el("strong", {}, `${kind} (${units.length})`),
          el("ul", {}, units.map((d) => el("li", { title: d.id }, d.text || d.id, " ", inBrowser(name, d.id))))))
        : [el("p", { class: "muted" }, "nothing derived from it yet")]));
    }).catch((error) => list.replaceChildren(el("p", { class: "error" }, error.message)));
  } } }, el("summary", {}, "derived"), list);
  return box;
}

async function forget(name, conversation, message) {
  const asked = `Forget this message, and everything derived from it, everywhere?\n\n${message.speaker}: ${message.text}`;
  if (!window.confirm(asked)) return;
  const done = await api("POST", `/v1/spaces/${enc(name)}/forget`, { conversation, messages: [message.id] });
  await afterChange(name, conversation);
  status.textContent = `forgot ${done.messages} message(s) of ${conversation}`;
}

async function correct(name, conversation, message) {
  const text = window.prompt(`What ${message.speaker} said, corrected (the old text is kept as a revision):`, message.text);
  if (text === null || !text.trim() || text === message.text) return;
  if (!window.confirm(`Correct this message? Its layers are derived again.\n\nwas: ${message.text}\nnow: ${text}`)) return;
  const done = await api("POST", `/v1/spaces/${enc(name)}/corrections`, { turn_id: message.turn_id, text });
  await messages(name, conversation);
  const layers = done.pending.length ? `deriving again: ${done.pending.join(", ")}`
    : `derived again: ${done.layers.join(", ") || "none"}`;
  status.textContent = `corrected ${message.id}: ${done.revisions} earlier text(s) kept; ${layers}`;
}

async function afterChange(name, conversation) {
  await spaces();  // its count of messages
  // its last message forgotten, the conversation is gone too: back to the space's list
  const left = await api("GET", `/v1/spaces/${enc(name)}/conversations`);
  if (left.some((c) => c.conversation === conversation)) await messages(name, conversation);
  else await space(name, "conversations");
}

function strategyChoice(name, chosen) {
  const select = el("select", { name });
  if (name === "other") select.append(el("option", { value: "" }, "(none)"));
  const template = document.getElementById("strategies");
  for (const option of template.content.querySelectorAll("option")) {
    const copy = option.cloneNode(true);
    copy.selected = copy.value === chosen;
    select.append(copy);
  }
  return select;
}

function searchForm(name) {
  const results = el("div", { id: "results" });
  const form = el("form", { class: "search", on: { submit: (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const ask = (strategy) => api("POST", `/v1/spaces/${enc(name)}/search`, {
      question: data.get("question"), budget: Number(data.get("budget")), strategy, explain: true });
    const chosen = [data.get("strategy"), data.get("other")].filter(Boolean);
    Promise.all(chosen.map(ask)).then((found) => results.replaceChildren(el("div",
      { class: chosen.length > 1 ? "columns" : "columns one" }, found.map(result))))
      .catch((error) => results.replaceChildren(el("p", { class: "error", role: "alert" }, error.message)));
  } } },
  el("label", {}, "Question ", el("input", { name: "question", required: true })),
  el("label", {}, "Budget ", el("input", { name: "budget", type: "number", min: 1, value: 1000 })),
  el("label", {}, "Strategy ", strategyChoice("strategy", "graphmem")),
  el("label", {}, "beside ", strategyChoice("other", "")),
  el("button", { type: "submit" }, "Search"));
  return el("div", {}, form, results);
}

function why(w) {
  if (!w) return null;
  const rows = [
    ["found by", w.found_by.map((f) => `${f.source} #${f.rank} (${f.score})${f.asked ? ` for "${f.asked}"` : ""}`).join(", ") || "—"],
    ["beside", w.near.join(", ")],
    ["P(evidence)", w.probability === null ? "" : `${w.probability} (with neighbours ${w.mixed})`],
    ["moved by", w.moved_by.map((m) => `${m.feature}=${m.value} (${m.effect > 0 ? "+" : ""}${m.effect})`).join(", ")],
    ["tokens", w.worth === null ? String(w.tokens) : `${w.tokens}, worth ${w.worth}`],
    ["packing", w.packed],
    ["holds", Object.entries(w.detail).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ")],
  ].filter(([, value]) => value);
  return el("details", { class: "why" }, el("summary", {}, "why"),
    el("dl", {}, rows.map(([term, value]) => [el("dt", {}, term), el("dd", {}, value)])));
}

function result(found) {
  const e = found.explanation;
  return el("section", { class: "result", "data-strategy": found.strategy },
    el("h3", {}, found.strategy),
    el("p", { class: "muted" }, `${found.context_tokens} tokens, ${found.hits.length} pieces, ${Math.round(found.latency_ms)} ms`),
    el("pre", { class: "context" }, found.context || found.readable),
    e ? el("p", { class: "muted" }, e.how) : null,
    found.hits.map((h) => el("div", { class: "hit", "data-unit": h.id },
      el("div", { class: "text" }, h.text),
      el("div", { class: "meta" }, `${h.kind} · score ${h.score} · ${h.id} `, inBrowser(found.space, h.id)), why(h.why))),
    e && e.left_out.length ? el("h4", {}, "Left out, best first") : null,
    e ? e.left_out.map((u) => el("div", { class: "hit left" }, el("div", { class: "text" }, u.text), why(u.why))) : null);
}

document.getElementById("login").addEventListener("submit", (event) => {
  event.preventDefault();
  token = document.getElementById("token").value.trim();
  spaces().catch(failed);
});
