// trajkit index: one row per conversation, sortable, filterable, searchable, paged.
// #trajkit-index holds {mode, page_size, ...}: mode "static" carries every row (and its search
// text) and filters here; mode "server" asks `api` for one page at a time and refreshes it
// every `refresh` ms, so status changes show.
(function () {
"use strict";
var CFG = JSON.parse(document.getElementById("trajkit-index").textContent);
var PAGE = CFG.page_size || 50;
var COLS = [
  ["", "select", "nosort"], ["status", "status"], ["model", "model", "wide model"], ["events", "events", "num"],
  ["tool calls", "tool_calls", "num wide"], ["tool errors", "tool_errors", "num"], ["cost", "cost", "num wide"],
  ["tokens", "tokens", "num wide"], ["duration", "duration_s", "num wide"], ["first user message", "first_message", "msg"],
  ["outcome", "outcome"], ["started", "first_time", "wide"]
];
var state = { sort: "first_time", order: "desc", page: 0, status: "", model: "", tool: "", since: "", until: "", errors: false, q: "" };
var selected = [];
var form = document.getElementById("filters");
var body = document.getElementById("rows");
var head = document.getElementById("head");
var summaryEl = document.getElementById("summary");
var pager = document.getElementById("pager");
var compareBtn = document.getElementById("compare");

function esc(s) {
  return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
  });
}
function secs(s) {
  if (s == null) return "";
  if (s < 60) return s.toFixed(1) + " s";
  var m = Math.round(s / 60);
  return m < 60 ? m + " min" : Math.floor(m / 60) + " h " + (m % 60) + " min";
}
function link(r) { return CFG.mode === "static" ? "c/" + r.key + ".html" : CFG.page + r.key; }
function cell(r, col) {
  var k = col[1], cls = col[2] || "";
  if (k === "select") return '<td class="nosort"><input type="checkbox" class="pick" data-key="' + esc(r.key) + '"' + (selected.indexOf(r.key) >= 0 ? " checked" : "") + ' aria-label="select for compare"></td>';
  if (k === "status") return '<td><span class="st st-' + esc(r.status || "unknown") + '">' + esc(r.status || "?") + "</span></td>";
  if (k === "first_message") return '<td class="msg"><a href="' + esc(link(r)) + '" title="' + esc(r.first_message) + '">' + (esc(r.first_message) || "<code>" + esc(r.id) + "</code>") + "</a></td>";
  if (k === "cost") return '<td class="' + cls + '">' + (r.cost == null ? "" : "$" + r.cost.toFixed(4)) + "</td>";
  if (k === "duration_s") return '<td class="' + cls + '">' + secs(r.duration_s) + "</td>";
  if (k === "tool_errors") return '<td class="' + cls + (r.errors ? " bad" : "") + '" title="' + esc(r.errors) + ' errors in all (tool errors, failed commands, agent errors)">' + r.tool_errors + (r.errors !== r.tool_errors ? " / " + r.errors : "") + "</td>";
  if (k === "outcome") return '<td class="' + (r.outcome === "resolved" ? "good" : r.outcome ? "bad" : "") + '">' + esc(r.outcome || "") + "</td>";
  if (k === "model") return '<td class="' + cls + '" title="' + esc(r.model) + '">' + esc(r.model) + "</td>";
  if (k === "first_time") return '<td class="' + cls + '">' + esc((r.first_time || "").slice(0, 16).replace("T", " ")) + "</td>";
  var v = r[k];
  return '<td class="' + cls + '">' + esc(typeof v === "number" ? v.toLocaleString() : v) + "</td>";
}
function drawHead() {
  head.innerHTML = "<tr>" + COLS.map(function (c) {
    var on = c[1] === state.sort;
    return '<th data-k="' + c[1] + '" class="' + (c[2] || "") + (on ? " sorted" : "") + '"' + (c[1] === "select" ? "" : ' title="sort"') + ">" +
      esc(c[0]) + (on ? (state.order === "asc" ? " ▲" : " ▼") : "") + "</th>";
  }).join("") + "</tr>";
}
function draw(res) {
  drawHead();
  body.innerHTML = res.rows.length ? res.rows.map(function (r) {
    return '<tr data-key="' + esc(r.key) + '">' + COLS.map(function (c) { return cell(r, c); }).join("") + "</tr>";
  }).join("") : '<tr><td colspan="' + COLS.length + '" class="empty">No conversation matches.</td></tr>';
  var pages = Math.max(1, Math.ceil(res.total / PAGE));
  summaryEl.textContent = res.total.toLocaleString() + " conversation" + (res.total === 1 ? "" : "s") +
    (res.total !== res.all ? " of " + res.all.toLocaleString() : "");
  pager.innerHTML = '<button type="button" data-go="-1"' + (state.page === 0 ? " disabled" : "") + ">◀ Prev</button><span>page " +
    (state.page + 1) + " of " + pages + '</span><button type="button" data-go="1"' + (state.page >= pages - 1 ? " disabled" : "") + ">Next ▶</button>";
  fillFacets(res.facets);
  var idx = document.getElementById("indexing");
  if (idx) idx.textContent = res.indexing ? "indexing… " + res.indexing.toLocaleString() + " read so far" : "";
  document.body.setAttribute("data-loaded", String(++loads));
}
var loads = 0;
function fillFacets(f) {
  ["status", "model", "tool"].forEach(function (k) {
    var sel = document.getElementById("f-" + k), have = sel.getAttribute("data-have") || "";
    var opts = (f && f[k]) || [];
    if (opts.join("\n") === have) return;
    sel.innerHTML = '<option value="">any ' + k + "</option>" + opts.map(function (o) {
      return '<option value="' + esc(o) + '"' + (o === state[k] ? " selected" : "") + ">" + esc(o) + "</option>";
    }).join("");
    sel.setAttribute("data-have", opts.join("\n"));
  });
}
// -- static mode: every row is here ------------------------------------------------------
function localQuery() {
  var rows = CFG.rows, words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
  var out = rows.filter(function (r) {
    if (state.status && r.status !== state.status) return false;
    if (state.model && r.model !== state.model) return false;
    if (state.tool && (r.tools || []).indexOf(state.tool) < 0) return false;
    if (state.errors && !r.errors) return false;
    if (state.since && (r.first_time || "") < state.since) return false;
    if (state.until && (r.first_time || "").slice(0, 10) > state.until) return false;
    for (var i = 0; i < words.length; i++) if (r.search.indexOf(words[i]) < 0) return false;
    return true;
  });
  var k = state.sort, sign = state.order === "asc" ? 1 : -1;
  out.sort(function (a, b) {
    var x = a[k], y = b[k];
    if (x == null && y == null) return 0;
    if (x == null) return 1;
    if (y == null) return -1;
    return (x < y ? -1 : x > y ? 1 : 0) * sign;
  });
  var facets = { status: [], model: [], tool: [] };
  rows.forEach(function (r) {
    if (r.status && facets.status.indexOf(r.status) < 0) facets.status.push(r.status);
    if (r.model && facets.model.indexOf(r.model) < 0) facets.model.push(r.model);
    (r.tools || []).forEach(function (t) { if (facets.tool.indexOf(t) < 0) facets.tool.push(t); });
  });
  Object.keys(facets).forEach(function (f) { facets[f].sort(); });
  return { total: out.length, all: rows.length, rows: out.slice(state.page * PAGE, (state.page + 1) * PAGE), facets: facets };
}
// -- server mode ---------------------------------------------------------------------------
var pending = 0;
function params() {
  var p = new URLSearchParams();
  Object.keys(state).forEach(function (k) { if (state[k] !== "" && state[k] !== false) p.set(k, state[k] === true ? "1" : state[k]); });
  p.set("size", PAGE);
  return p.toString();
}
function load() {
  if (CFG.mode === "static") { draw(localQuery()); return; }
  var mine = ++pending;
  fetch(CFG.api + "?" + params(), { credentials: "same-origin" }).then(function (r) {
    if (!r.ok) throw new Error(r.status + " " + r.statusText);
    return r.json();
  }).then(function (res) { if (mine === pending) draw(res); }).catch(function (e) {
    summaryEl.textContent = "could not load the rows: " + e.message;
  });
}
function readForm() {
  state.q = document.getElementById("q").value.trim();
  state.status = document.getElementById("f-status").value;
  state.model = document.getElementById("f-model").value;
  state.tool = document.getElementById("f-tool").value;
  state.since = document.getElementById("f-since").value;
  state.until = document.getElementById("f-until").value;
  state.errors = document.getElementById("f-errors").checked;
  state.page = 0;
}
var timer = null;
form.addEventListener("input", function (ev) {
  clearTimeout(timer);
  timer = setTimeout(function () { readForm(); load(); }, ev.target.id === "q" ? 200 : 0);
});
form.addEventListener("submit", function (ev) { ev.preventDefault(); readForm(); load(); });
head.addEventListener("click", function (ev) {
  var th = ev.target.closest("th");
  if (!th || th.classList.contains("nosort")) return;
  var k = th.getAttribute("data-k");
  if (state.sort === k) state.order = state.order === "asc" ? "desc" : "asc";
  else { state.sort = k; state.order = k === "first_message" || k === "model" || k === "status" ? "asc" : "desc"; }
  state.page = 0; load();
});
pager.addEventListener("click", function (ev) {
  var b = ev.target.closest("button");
  if (!b || b.disabled) return;
  state.page += +b.getAttribute("data-go"); load(); window.scrollTo(0, 0);
});
body.addEventListener("change", function (ev) {
  var t = ev.target;
  if (!t.classList.contains("pick")) return;
  var k = t.getAttribute("data-key");
  selected = selected.filter(function (x) { return x !== k; });
  if (t.checked) selected.push(k);
  while (selected.length > 2) selected.shift();
  [].forEach.call(body.querySelectorAll("input.pick"), function (c) { c.checked = selected.indexOf(c.getAttribute("data-key")) >= 0; });
  if (compareBtn) compareBtn.disabled = selected.length !== 2;
});
if (compareBtn) compareBtn.addEventListener("click", function () {
  if (selected.length === 2) location.href = CFG.compare + "?a=" + encodeURIComponent(selected[0]) + "&b=" + encodeURIComponent(selected[1]);
});
if (CFG.mode === "server" && CFG.refresh) {
  setInterval(function () { if (!document.hidden) load(); }, CFG.refresh);
}
load();
window.trajkitIndex = { state: state, load: load, loads: function () { return loads; } };
})();
