"""The HTML report's inline stylesheet and script (see `html.py` for the design).

The script reads `#trajkit-data` (`{id, page_size, total_events, entries: [Entry...]}`), then:
- renders one page of entries into `#transcript` (escaping every text; code arrives as
  prepared, highlighted HTML), with pagers above and below;
- folds texts longer than `FOLD_LINES` lines or `FOLD_CHARS` characters behind a
  `button.expand` ("Show all N lines"), which swaps in the full text (and back);
- draws `#timeline` (a canvas, one bar per event coloured by role, the current page outlined);
  a click jumps to the event under the pointer;
- filters by `#search` (case-insensitive substring over title, text, reasoning, arguments,
  code, notes and raw JSON), marks the matches and shows the count in `#count`;
- follows `#e<index>` links (timeline, "result of #N") across pages.
"""

REPORT_CSS = r"""
:root { --fg:#1f2328; --muted:#656d76; --line:#d0d7de; --bg:#ffffff; --soft:#f6f8fa;
  --user:#2563eb; --agent:#16a34a; --action:#d97706; --obs:#6b7280; --err:#dc2626;
  --cond:#9333ea; --sys:#1e3a8a; --status:#9ca3af; --unknown:#0891b2; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header#top { position:sticky; top:0; z-index:2; background:var(--bg); border-bottom:1px solid var(--line); padding:10px 18px 6px; }
h1 { font-size:17px; margin:0 0 6px; }
h1 code { font-size:14px; color:var(--muted); }
dl.facts { display:flex; flex-wrap:wrap; gap:4px 18px; margin:0 0 6px; }
.fact { display:flex; gap:6px; } .fact dt { color:var(--muted); } .fact dd { margin:0; font-weight:600; }
.fact-source dd { font-weight:400; font-family:ui-monospace, monospace; font-size:12px; }
ul.problems, p.problems { color:var(--err); margin:4px 0; padding-left:18px; font-size:13px; }
.toolbar { display:flex; align-items:center; gap:10px; margin:4px 0; }
#search { width:min(420px, 60vw); padding:5px 8px; border:1px solid var(--line); border-radius:6px; font-size:14px; }
#count { color:var(--muted); font-size:13px; }
#timeline { display:block; width:100%; height:28px; cursor:pointer; background:var(--soft); border-radius:4px; }
nav.pager { display:flex; gap:8px; align-items:center; justify-content:center; padding:6px; font-size:13px; color:var(--muted); }
nav.pager button, button.expand { font:inherit; font-size:12px; padding:2px 10px; border:1px solid var(--line); background:var(--soft); border-radius:5px; cursor:pointer; }
nav.pager button:disabled { opacity:.4; cursor:default; }
main#transcript { max-width:1100px; margin:0 auto; padding:8px 18px 30px; }
article.entry { border-left:4px solid var(--status); margin:10px 0; padding:4px 12px 6px; background:var(--bg); }
article.entry:target, article.entry.flash { outline:2px solid #f59e0b; }
.entry .meta { font-size:12px; color:var(--muted); display:flex; flex-wrap:wrap; gap:8px; align-items:baseline; }
.entry .meta .who { font-weight:700; text-transform:uppercase; letter-spacing:.03em; }
.entry .meta a.idx { color:var(--muted); text-decoration:none; font-family:ui-monospace, monospace; }
.badge { background:var(--soft); border:1px solid var(--line); border-radius:10px; padding:0 7px; font-size:11px; }
.role-user { border-color:var(--user); } .role-user .who { color:var(--user); }
.role-agent { border-color:var(--agent); } .role-agent .who { color:var(--agent); }
.role-action { border-color:var(--action); } .role-action .who { color:var(--action); }
.role-observation { border-color:var(--obs); }
.role-system { border-color:var(--sys); } .role-system .who { color:var(--sys); }
.role-condensation { border-color:var(--cond); background:#faf5ff; } .role-condensation .who { color:var(--cond); }
.role-unknown { border-color:var(--unknown); } .role-unknown .who { color:var(--unknown); }
.role-status { border-color:var(--status); }
.entry.error { border-color:var(--err); background:#fef2f2; } .entry.error .who { color:var(--err); }
.bubble pre, pre.text { white-space:pre-wrap; word-break:break-word; margin:4px 0; font:inherit; }
.role-observation pre.text, pre.raw, pre.plain { font:12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.reasoning { color:var(--muted); font-style:italic; opacity:.85; }
.reasoning pre.text { font-style:italic; }
details { margin:4px 0; } details > summary { cursor:pointer; color:var(--muted); font-size:12.5px; }
details.tool > summary b, details.output > summary b { color:var(--fg); }
.code-label { font-size:12px; color:var(--muted); margin-top:4px; }
div.hl { border:1px solid var(--line); border-radius:6px; background:var(--soft); overflow:auto; margin:3px 0; }
div.hl pre, pre.plain { margin:0; padding:6px 10px; white-space:pre-wrap; word-break:break-word; font:12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre.plain { border:1px solid var(--line); border-radius:6px; background:var(--soft); }
ul.notes { margin:2px 0; padding-left:18px; color:var(--muted); font-size:12.5px; }
figure { margin:6px 0; } figure img { max-width:100%; max-height:480px; border:1px solid var(--line); border-radius:4px; }
a.image-link { font-size:12.5px; }
mark { background:#fde047; color:inherit; padding:0 1px; }
.empty { color:var(--muted); text-align:center; padding:30px; }
"""

REPORT_JS = r"""
(function () {
"use strict";
var DATA = JSON.parse(document.getElementById("trajkit-data").textContent);
var E = DATA.entries || [];
var PAGE = DATA.page_size || 100;
var FOLD_LINES = 30, FOLD_SHOW = 15, FOLD_CHARS = 4000;
var COLORS = { user:"#2563eb", agent:"#16a34a", action:"#d97706", observation:"#9ca3af",
  error:"#dc2626", rejection:"#dc2626", broken:"#dc2626", condensation:"#9333ea",
  system:"#1e3a8a", status:"#d1d5db", unknown:"#0891b2" };
var main = document.getElementById("transcript");
var search = document.getElementById("search");
var count = document.getElementById("count");
var canvas = document.getElementById("timeline");
var pagers = [document.getElementById("pager-top"), document.getElementById("pager-bottom")];
var byCall = {}, byIndex = {};
E.forEach(function (e, i) {
  byIndex[e.index] = i;
  if (e.role === "action" && e.call_id && !(e.call_id in byCall)) byCall[e.call_id] = i;
});
var view = E.map(function (_, i) { return i; });
var page = 0, query = "", hay = null;

function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
  });
}
function mark(s) {
  s = String(s);
  if (!query) return esc(s);
  var low = s.toLowerCase(), out = "", i = 0, j;
  while ((j = low.indexOf(query, i)) >= 0) {
    out += esc(s.slice(i, j)) + "<mark>" + esc(s.slice(j, j + query.length)) + "</mark>";
    i = j + query.length;
  }
  return out + esc(s.slice(i));
}
function isLong(text) {
  return text.length > FOLD_CHARS || text.split("\n").length > FOLD_LINES;
}
function head(text) {
  var h = text.split("\n").slice(0, FOLD_SHOW).join("\n");
  return h.length > FOLD_CHARS ? h.slice(0, FOLD_CHARS) : h;
}
function foldButton(i, key, text) {
  var n = text.split("\n").length;
  var hidden = query && text.toLowerCase().indexOf(query, head(text).length) >= 0 ? " — matches inside" : "";
  return '<button type="button" class="expand" data-i="' + i + '" data-k="' + key + '">Show all ' +
    n.toLocaleString() + " lines (" + text.length.toLocaleString() + " characters)" + hidden + "</button>";
}
// A text body: folded behind a button when long.
function textBlock(i, key, text, cls) {
  if (!text) return "";
  if (!isLong(text)) return '<pre class="' + cls + '">' + mark(text) + "</pre>";
  return '<div class="fold" data-open="0" data-cls="' + cls + '"><pre class="' + cls + '">' + mark(head(text)) + "</pre>" +
    foldButton(i, key, text) + "</div>";
}
// A code block: prepared highlighted HTML, folded to plain first lines when long.
function codeBlock(i, k, c) {
  var label = c.label ? '<div class="code-label">' + mark(c.label) + "</div>" : "";
  if (!c.text) return label;
  var body = isLong(c.text)
    ? '<div class="fold" data-open="0" data-cls="plain"><pre class="plain">' + mark(head(c.text)) + "</pre>" +
      foldButton(i, "code." + k, c.text) + "</div>"
    : (query ? '<pre class="plain">' + mark(c.text) + "</pre>" : (c.html || '<pre class="plain">' + esc(c.text) + "</pre>"));
  return label + body;
}
function field(e, key) {
  if (key.indexOf("code.") === 0) return e.code[+key.slice(5)];
  return e[key];
}
function images(e) {
  return (e.images || []).map(function (url) {
    if (/^data:image\//i.test(url)) return '<figure><img alt="image from event #' + e.index + '" src="' + esc(url) + '"></figure>';
    if (/^https?:\/\//i.test(url)) return '<a class="image-link" href="' + esc(url) + '" rel="noopener noreferrer" target="_blank">image (not loaded): ' + esc(url) + "</a>";
    return '<span class="image-link">image with an unsupported URL (not shown): ' + esc(url.slice(0, 200)) + "</span>";
  }).join("");
}
function clock(t) { return t && t.length >= 19 ? t.slice(0, 10) + " " + t.slice(11, 19) : (t || ""); }
function usage(u) {
  if (!u) return "";
  var s = u.prompt_tokens.toLocaleString() + " in · " + u.completion_tokens.toLocaleString() + " out";
  if (u.cost != null) s += " · $" + u.cost.toFixed(4);
  return '<span class="badge usage" title="LLM response ' + esc(u.response_id) + '">' + s + "</span>";
}
function who(e) {
  if (e.role === "action") return "tool call";
  if (e.role === "observation") return "tool result";
  if (e.role === "status" || e.role === "unknown" || e.role === "broken") return e.title || e.kind;
  return e.role;
}
function renderEntry(i) {
  var e = E[i], h = "";
  var cls = "entry role-" + e.role + (e.error ? " error" : "");
  h += '<article class="' + cls + '" id="e' + e.index + '" data-i="' + i + '">';
  h += '<div class="meta"><a class="idx" href="#e' + e.index + '">#' + e.index + "</a>" +
    '<span class="who">' + esc(who(e)) + "</span>";
  if (e.tool) h += "<b>" + mark(e.tool) + "</b>";
  if (e.role === "condensation" || e.role === "error" || e.role === "rejection") h += "<span>" + mark(e.title) + "</span>";
  h += "<time>" + esc(clock(e.time)) + "</time>" + usage(e.usage) + '<span class="kind">' + esc(e.kind) + "</span></div>";
  if (e.reasoning) h += '<details class="reasoning" open><summary>reasoning</summary>' + textBlock(i, "reasoning", e.reasoning, "text") + "</details>";
  if (e.role === "system") {
    h += '<details class="system"><summary>system prompt (' + e.text.length.toLocaleString() + " characters)</summary>" +
      textBlock(i, "text", e.text, "text") + "</details>";
  } else if (e.role === "observation") {
    var a = e.call_id in byCall ? E[byCall[e.call_id]] : null;
    h += '<details class="output" open><summary>result' + (a ? ' of <a href="#e' + a.index + '">#' + a.index + "</a>" : "") +
      " <b>" + esc(e.tool || "") + "</b>" + (e.error ? " — error" : "") + "</summary>" + textBlock(i, "text", e.text || "", "text") + "</details>";
  } else if (e.text) {
    h += '<div class="bubble">' + textBlock(i, "text", e.text, "text") + "</div>";
  }
  if (e.role === "action") {
    var inner = (e.code || []).map(function (c, k) { return codeBlock(i, k, c); }).join("");
    if (e.args) inner += '<details class="args"' + (e.args_primary ? " open" : "") + "><summary>arguments</summary>" +
      textBlock(i, "args", e.args, "plain") + "</details>";
    h += '<details class="tool" open><summary>call <b>' + esc(e.tool || "") + "</b> <code>" + esc(e.call_id || "") + "</code></summary>" + inner + "</details>";
  } else {
    h += (e.code || []).map(function (c, k) { return codeBlock(i, k, c); }).join("");
  }
  h += images(e);
  if (e.notes && e.notes.length) h += '<ul class="notes">' + e.notes.map(function (n) { return "<li>" + mark(n) + "</li>"; }).join("") + "</ul>";
  if (e.raw) h += '<details class="raw" open><summary>raw JSON</summary>' + textBlock(i, "raw", e.raw, "raw") + "</details>";
  return h + "</article>";
}
function pages() { return Math.max(1, Math.ceil(view.length / PAGE)); }
function renderPager() {
  var first = page * PAGE, last = Math.min(view.length, first + PAGE);
  var label = view.length ? "events " + E[view[first]].index + "–" + E[view[last - 1]].index : "no events";
  var h = '<button type="button" data-go="prev"' + (page === 0 ? " disabled" : "") + ">◀ Prev</button>" +
    "<span>page " + (page + 1) + " of " + pages() + " · " + label + "</span>" +
    '<button type="button" data-go="next"' + (page >= pages() - 1 ? " disabled" : "") + ">Next ▶</button>";
  pagers.forEach(function (p) { p.innerHTML = h; });
}
function render() {
  var first = page * PAGE, html = [];
  for (var n = first; n < Math.min(view.length, first + PAGE); n++) html.push(renderEntry(view[n]));
  main.innerHTML = html.length ? html.join("") : '<p class="empty">' + (query ? "No event matches “" + esc(query) + "”." : "No events.") + "</p>";
  renderPager();
  drawTimeline();
}
function drawTimeline() {
  var w = canvas.clientWidth || 800, hgt = 28, dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * dpr); canvas.height = Math.round(hgt * dpr);
  var ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, hgt);
  var n = E.length;
  if (!n) return;
  var bw = w / n, matched = null;
  if (query) { matched = {}; view.forEach(function (i) { matched[i] = true; }); }
  for (var i = 0; i < n; i++) {
    ctx.globalAlpha = matched && !matched[i] ? 0.15 : 1;
    ctx.fillStyle = COLORS[E[i].role] || "#999";
    var tall = E[i].role === "observation" || E[i].role === "status" ? 12 : 20;
    ctx.fillRect(i * bw, (hgt - tall) / 2, Math.max(bw - (bw > 3 ? 1 : 0), 0.6), tall);
  }
  ctx.globalAlpha = 1;
  if (view.length) {
    var a = view[page * PAGE], b = view[Math.min(view.length, (page + 1) * PAGE) - 1];
    ctx.strokeStyle = "#111"; ctx.lineWidth = 1.5;
    ctx.strokeRect(a * bw + 0.75, 1, Math.max((b - a + 1) * bw - 1.5, 2), hgt - 2);
  }
}
function entryAt(x) {
  var w = canvas.clientWidth || 1;
  return Math.min(E.length - 1, Math.max(0, Math.floor(x / w * E.length)));
}
function goTo(i, flash) {
  var pos = view.indexOf(i);
  if (pos < 0) { search.value = ""; applySearch(""); pos = i; }
  page = Math.floor(pos / PAGE);
  render();
  var el = document.getElementById("e" + E[i].index);
  if (el) {
    el.scrollIntoView({ block: "start" });
    window.scrollBy(0, -document.getElementById("top").offsetHeight - 6);
    if (flash) { el.classList.add("flash"); setTimeout(function () { el.classList.remove("flash"); }, 1200); }
  }
}
function haystack(e) {
  var parts = [e.title, e.tool, e.text, e.reasoning, e.args, e.raw, e.kind, (e.notes || []).join("\n")];
  (e.code || []).forEach(function (c) { parts.push(c.label, c.text); });
  return parts.filter(Boolean).join("\n").toLowerCase();
}
function applySearch(q) {
  query = q.trim().toLowerCase();
  if (!query) { view = E.map(function (_, i) { return i; }); count.textContent = ""; }
  else {
    if (!hay) hay = E.map(haystack);
    view = [];
    for (var i = 0; i < E.length; i++) if (hay[i].indexOf(query) >= 0) view.push(i);
    count.textContent = view.length.toLocaleString() + " of " + E.length.toLocaleString() + " events match";
  }
  page = 0;
}
var timer = null;
search.addEventListener("input", function () {
  clearTimeout(timer);
  timer = setTimeout(function () { applySearch(search.value); render(); }, 120);
});
document.addEventListener("keydown", function (ev) {
  if (ev.key === "/" && document.activeElement !== search) { ev.preventDefault(); search.focus(); }
});
document.addEventListener("click", function (ev) {
  var t = ev.target;
  if (t.matches("nav.pager button")) {
    page = Math.max(0, Math.min(pages() - 1, page + (t.getAttribute("data-go") === "next" ? 1 : -1)));
    render(); window.scrollTo(0, 0); return;
  }
  if (t.matches("button.expand")) {
    var box = t.parentNode, e = E[+t.getAttribute("data-i")], f = field(e, t.getAttribute("data-k"));
    var text = typeof f === "string" ? f : f.text, open = box.getAttribute("data-open") === "1";
    var cls = box.getAttribute("data-cls"), html;
    if (open) {
      html = '<pre class="' + cls + '">' + mark(head(text)) + "</pre>";
      t.textContent = t.getAttribute("data-label");
    } else {
      html = typeof f !== "string" && f.html && !query ? f.html : '<pre class="' + cls + '">' + mark(text) + "</pre>";
      t.setAttribute("data-label", t.textContent);
      t.textContent = "Fold";
    }
    var old = box.firstElementChild;
    old.insertAdjacentHTML("beforebegin", html);
    old.remove();
    box.setAttribute("data-open", open ? "0" : "1");
    return;
  }
  var a = t.closest && t.closest("a[href^='#e']");
  if (a) {
    var idx = +a.getAttribute("href").slice(2);
    if (idx in byIndex) { ev.preventDefault(); history.replaceState(null, "", "#e" + idx); goTo(byIndex[idx], true); }
  }
});
canvas.addEventListener("click", function (ev) {
  var r = canvas.getBoundingClientRect();
  goTo(entryAt(ev.clientX - r.left), true);
});
canvas.addEventListener("mousemove", function (ev) {
  var r = canvas.getBoundingClientRect(), e = E[entryAt(ev.clientX - r.left)];
  if (e) canvas.title = "#" + e.index + " " + who(e) + (e.tool ? " " + e.tool : "") + " " + clock(e.time);
});
window.addEventListener("resize", drawTimeline);
var start = /^#e(\d+)$/.exec(location.hash);
if (start && start[1] in byIndex) goTo(byIndex[start[1]], true); else render();
window.trajkitReport = {
  goTo: goTo,
  entries: E,
  search: function (q) { search.value = q; applySearch(q); render(); return view.length; },
  state: function () { return { page: page, pages: pages(), shown: view.length, query: query }; }
};
})();
"""
