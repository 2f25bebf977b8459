// trajkit report: the script of `trajkit view` and of `trajkit serve`'s conversation page.
// It reads #trajkit-data ({id, page_size, total_events, entries: [Entry...], live?}), then:
// - renders one page of entries into #transcript (every text escaped; code and Markdown arrive
//   as prepared, sanitised HTML), with pagers above and below;
// - folds long texts behind a button.expand ("Show all N lines"), which swaps in the full text;
// - draws #timeline (a canvas, one bar per event coloured by role, errors red, the current page
//   outlined); a click jumps to the event under the pointer;
// - filters by #search (case-insensitive substring) and by #errors-only, marks the matches;
// - jumps to the next/previous error (#next-error/#prev-error, keys n and p);
// - follows #e<index> links across pages;
// - when DATA.remote is set (trajkit serve, long conversations), fetches pages on demand;
// - when DATA.live is set (trajkit serve), listens to its server-sent events and appends the
//   entries of events written meanwhile.
(function () {
"use strict";
var DATA = JSON.parse(document.getElementById("trajkit-data").textContent);
var E = DATA.entries || [];
var PAGE = DATA.page_size || 100;
var FOLD_LINES = 30, FOLD_SHOW = 15, FOLD_CHARS = 4000;
var ROLE_VARS = { user:"--user", agent:"--agent", action:"--action", observation:"--obs",
  condensation:"--cond", system:"--sys", status:"--status", unknown:"--unknown" };
var main = document.getElementById("transcript");
var search = document.getElementById("search");
var count = document.getElementById("count");
var canvas = document.getElementById("timeline");
var errorsOnly = document.getElementById("errors-only");
var errorCount = document.getElementById("error-count");
var pagers = [document.getElementById("pager-top"), document.getElementById("pager-bottom")];
var byCall = {}, byIndex = {}, errors = [];
var view = [], page = 0, query = "", hay = [], colors = null;

function index(from) {
  for (var i = from; i < E.length; i++) {
    var e = E[i];
    byIndex[e.index] = i;
    if (e.role === "action" && e.call_id && !(e.call_id in byCall)) byCall[e.call_id] = i;
    if (e.error) errors.push(i);
    hay.push(null);
  }
  if (errorCount) errorCount.textContent = errors.length.toLocaleString();
  var fact = document.querySelector(".fact-errors");
  if (fact) fact.classList.toggle("has", errors.length > 0);
}
index(0);

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
// Markdown prepared (and sanitised) by the server; plain text while searching, so matches show.
function mdBlock(i, e) {
  if (e.md && !query && !isLong(e.text)) return '<div class="md">' + e.md + "</div>";
  return textBlock(i, "text", e.text, "text");
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
function secs(s) {
  if (s == null) return "";
  if (s < 1) return Math.round(s * 1000) + " ms";
  if (s < 60) return s.toFixed(1) + " s";
  var m = Math.floor(s / 60);
  return m < 60 ? m + " min " + Math.round(s % 60) + " s" : Math.floor(m / 60) + " h " + (m % 60) + " min";
}
function badge(cls, text, title) {
  return '<span class="badge ' + cls + '"' + (title ? ' title="' + esc(title) + '"' : "") + ">" + esc(text) + "</span>";
}
function usage(u) {
  if (!u) return "";
  var s = u.prompt_tokens.toLocaleString() + " in · " + u.completion_tokens.toLocaleString() + " out";
  if (u.cost != null) s += " · $" + u.cost.toFixed(4);
  var h = badge("usage", s, "LLM response " + u.response_id);
  if (u.latency != null) h += badge("latency", "LLM " + secs(u.latency), "LLM latency of this response");
  return h;
}
function timing(e) {
  var h = "";
  if (e.step_s != null) h += badge("step", "step " + secs(e.step_s), "step duration: from the event before this step to its last tool result");
  if (e.run_s != null) h += badge("run", "ran " + secs(e.run_s), "tool run time: from the call to this result");
  if (e.exit_code != null) h += badge(e.exit_code === 0 ? "exit" : "exit exit-bad", "exit " + e.exit_code);
  return h;
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
  h += "<time>" + esc(clock(e.time)) + "</time>" + usage(e.usage) + timing(e) + '<span class="kind">' + esc(e.kind) + "</span></div>";
  if (e.reasoning) h += '<details class="reasoning" open><summary>reasoning</summary>' + textBlock(i, "reasoning", e.reasoning, "text") + "</details>";
  if (e.role === "system") {
    h += '<details class="system"><summary>system prompt (' + e.text.length.toLocaleString() + " characters)</summary>" +
      textBlock(i, "text", e.text, "text") + "</details>";
  } else if (e.role === "observation") {
    var a = e.call_id in byCall ? E[byCall[e.call_id]] : null;
    h += '<details class="output" open><summary>result' + (a ? ' of <a href="#e' + a.index + '">#' + a.index + "</a>" : "") +
      " <b>" + esc(e.tool || "") + "</b>" + (e.error ? " — error" : "") + "</summary>" + textBlock(i, "text", e.text || "", "text") + "</details>";
  } else if (e.text) {
    h += '<div class="bubble">' + mdBlock(i, e) + "</div>";
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
// Served page by page (trajkit serve, long conversations): entries past the first page arrive
// as stubs (role, error, timing: enough for the timeline, the error list and the pager) and
// their full content is fetched from DATA.remote when a page needs them (all of them for a
// search). Timing and usage stay the stub's (computed by the server over the whole log).
var REMOTE = DATA.remote || null, pendingFetches = 0;
function ensure(want, done) {
  var need = want.filter(function (i) { return E[i] && E[i].stub; });
  if (!REMOTE || !need.length) { done(); return; }
  pendingFetches++;
  var at = need.map(function (i) { return E[i].index; }).join(",");
  fetch(REMOTE + "?at=" + at, { credentials: "same-origin" }).then(function (r) {
    if (!r.ok) throw new Error(r.status + " " + r.statusText);
    return r.json();
  }).then(function (list) {
    list.forEach(function (e) {
      var i = byIndex[e.index], stub = E[i];
      if (i == null || !stub.stub) return;
      ["run_s", "step_s", "exit_code", "usage", "error"].forEach(function (k) {
        if (stub[k] != null) e[k] = stub[k]; else delete e[k];
      });
      E[i] = e; hay[i] = null;
    });
    pendingFetches--; done();
  }).catch(function (err) {
    pendingFetches--;
    main.innerHTML = '<p class="empty">Could not load these events: ' + esc(err.message) + "</p>";
  });
}
function ensureAll(done) {
  var stubs = [];
  for (var i = 0; i < E.length; i++) if (E[i].stub) stubs.push(i);
  if (!stubs.length) { done(); return; }
  count.textContent = "loading " + stubs.length.toLocaleString() + " events to search…";
  ensure(stubs.slice(0, 500), function () { ensureAll(done); });
}
var afterDraw = null;
function render() {
  var first = page * PAGE;
  ensure(view.slice(first, first + PAGE), draw);
}
function draw() {
  var first = page * PAGE, html = [];
  for (var n = first; n < Math.min(view.length, first + PAGE); n++) html.push(renderEntry(view[n]));
  var why = query ? "No event matches “" + esc(query) + "”" + (errorsOnly && errorsOnly.checked ? " among the errors." : ".")
    : (errorsOnly && errorsOnly.checked ? "No errors." : "No events.");
  main.innerHTML = html.length ? html.join("") : '<p class="empty">' + why + "</p>";
  renderPager();
  drawTimeline();
  if (afterDraw) { var then = afterDraw; afterDraw = null; then(); }
}
function palette() {
  var css = getComputedStyle(document.documentElement), out = {};
  Object.keys(ROLE_VARS).forEach(function (r) { out[r] = css.getPropertyValue(ROLE_VARS[r]).trim() || "#999"; });
  out.error = css.getPropertyValue("--err").trim() || "#dc2626";
  out.frame = css.getPropertyValue("--fg").trim() || "#111";
  return out;
}
// The sticky bar's height, for the entries' scroll-margin-top (so a jump lands below it).
function barHeight() {
  var bar = document.getElementById("bar");
  if (bar) document.documentElement.style.setProperty("--bar-h", bar.offsetHeight + "px");
}
function drawTimeline() {
  colors = colors || palette();
  var w = canvas.clientWidth || 800, hgt = canvas.clientHeight || 28, dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * dpr); canvas.height = Math.round(hgt * dpr);
  var ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, hgt);
  var n = E.length;
  if (!n) return;
  var bw = w / n, matched = null;
  if (query || (errorsOnly && errorsOnly.checked)) { matched = {}; view.forEach(function (i) { matched[i] = true; }); }
  for (var i = 0; i < n; i++) {
    var e = E[i];
    ctx.globalAlpha = matched && !matched[i] ? 0.15 : 1;
    ctx.fillStyle = e.error ? colors.error : (colors[e.role] || "#999");
    var tall = e.error ? hgt - 4 : (e.role === "observation" || e.role === "status" ? hgt * 0.43 : hgt * 0.71);
    ctx.fillRect(i * bw, (hgt - tall) / 2, Math.max(bw - (bw > 3 ? 1 : 0), e.error ? 1.5 : 0.6), tall);
  }
  ctx.globalAlpha = 1;
  if (view.length) {
    var a = view[page * PAGE], b = view[Math.min(view.length, (page + 1) * PAGE) - 1];
    ctx.strokeStyle = colors.frame; ctx.lineWidth = 1.5;
    ctx.strokeRect(a * bw + 0.75, 1, Math.max((b - a + 1) * bw - 1.5, 2), hgt - 2);
  }
}
function entryAt(x) {
  var w = canvas.clientWidth || 1;
  return Math.min(E.length - 1, Math.max(0, Math.floor(x / w * E.length)));
}
function goTo(i, flash) {
  var pos = view.indexOf(i);
  if (pos < 0) {
    search.value = ""; if (errorsOnly) errorsOnly.checked = false;
    applyFilter(""); pos = i;
  }
  page = Math.floor(pos / PAGE);
  current = i;
  afterDraw = function () {
    var el = document.getElementById("e" + E[i].index);
    if (el) {
      barHeight();
      el.scrollIntoView({ block: "start" });  // scroll-margin-top keeps it below the sticky bar
      if (flash) { el.classList.add("flash"); setTimeout(function () { el.classList.remove("flash"); }, 1200); }
    }
  };
  render();
}
// Next (step 1) or previous (step -1) error from the one last jumped to.
var current = -1;
function jumpError(step) {
  if (!errors.length) return -1;
  var target = -1;
  if (step > 0) { for (var k = 0; k < errors.length; k++) if (errors[k] > current) { target = errors[k]; break; } }
  else { for (var j = errors.length - 1; j >= 0; j--) if (errors[j] < current) { target = errors[j]; break; } }
  if (target < 0) target = step > 0 ? errors[0] : errors[errors.length - 1];  // wrap around
  goTo(target, true);
  return E[target].index;
}
function haystack(e) {
  var parts = [e.title, e.tool, e.text, e.reasoning, e.args, e.raw, e.kind, (e.notes || []).join("\n")];
  (e.code || []).forEach(function (c) { parts.push(c.label, c.text); });
  return parts.filter(Boolean).join("\n").toLowerCase();
}
function keep(i) {
  if (errorsOnly && errorsOnly.checked && !E[i].error) return false;
  if (!query) return true;
  if (hay[i] === null) hay[i] = haystack(E[i]);
  return hay[i].indexOf(query) >= 0;
}
function applyFilter(q) {
  query = q.trim().toLowerCase();
  view = [];
  for (var i = 0; i < E.length; i++) if (keep(i)) view.push(i);
  var filtered = query || (errorsOnly && errorsOnly.checked);
  count.textContent = filtered ? view.length.toLocaleString() + " of " + E.length.toLocaleString() + " events match" : "";
  page = 0;
}
// New entries (live follow): index them, keep the filter, stay on the page unless it was the last.
function append(entries) {
  if (!entries.length) return;
  var from = E.length, wasLast = page >= pages() - 1;
  entries.forEach(function (e) { if (!(e.index in byIndex)) E.push(e); });
  index(from);
  for (var i = from; i < E.length; i++) if (keep(i)) view.push(i);
  if (query || (errorsOnly && errorsOnly.checked)) count.textContent = view.length.toLocaleString() + " of " + E.length.toLocaleString() + " events match";
  var total = document.getElementById("event-count");
  if (total) total.textContent = E.length.toLocaleString();
  var took = document.querySelector(".fact-duration dd"), lo = Infinity, hi = -Infinity;
  E.forEach(function (e) { var t = e.time && Date.parse(e.time); if (t) { lo = Math.min(lo, t); hi = Math.max(hi, t); } });
  if (took && hi >= lo) took.textContent = secs((hi - lo) / 1000);
  if (wasLast) { page = pages() - 1; render(); } else { renderPager(); drawTimeline(); }
}
var timer = null;
function filterAndRender() {
  if (search.value.trim()) ensureAll(function () { applyFilter(search.value); render(); });
  else { applyFilter(search.value); render(); }
}
search.addEventListener("input", function () {
  clearTimeout(timer);
  timer = setTimeout(filterAndRender, 120);
});
if (errorsOnly) errorsOnly.addEventListener("change", filterAndRender);
document.addEventListener("keydown", function (ev) {
  var typing = document.activeElement === search;
  if (ev.key === "/" && !typing) { ev.preventDefault(); search.focus(); }
  else if ((ev.key === "n" || ev.key === "p") && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) jumpError(ev.key === "n" ? 1 : -1);
});
document.addEventListener("click", function (ev) {
  var t = ev.target;
  if (t.matches("nav.pager button")) {
    page = Math.max(0, Math.min(pages() - 1, page + (t.getAttribute("data-go") === "next" ? 1 : -1)));
    render(); window.scrollTo(0, 0); return;
  }
  if (t.id === "next-error" || t.id === "prev-error") { jumpError(t.id === "next-error" ? 1 : -1); return; }
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
  if (e) canvas.title = "#" + e.index + " " + who(e) + (e.tool ? " " + e.tool : "") + (e.error ? " (error)" : "") + " " + clock(e.time);
});
window.addEventListener("resize", function () { barHeight(); drawTimeline(); });
if (window.matchMedia) {
  var dark = window.matchMedia("(prefers-color-scheme: dark)");
  if (dark.addEventListener) dark.addEventListener("change", function () { colors = null; drawTimeline(); });
}
applyFilter("");
var start = /^#e(\d+)$/.exec(location.hash);
if (start && start[1] in byIndex) goTo(byIndex[start[1]], true); else render();

// Live follow (trajkit serve): one server-sent event per batch of new entries.
var live = null;
if (DATA.live && window.EventSource) {
  var state = document.getElementById("live-state");
  live = new EventSource(DATA.live + "?after=" + (E.length ? E[E.length - 1].index : -1));
  live.addEventListener("entries", function (m) { append(JSON.parse(m.data)); });
  live.addEventListener("status", function (m) {
    var st = document.querySelector(".fact-status dd");
    var status = JSON.parse(m.data);
    if (st) st.textContent = status;
    if (status === "gone") { live.close(); if (state) { state.textContent = "folder deleted"; state.className = ""; } }
  });
  live.onopen = function () { if (state) { state.textContent = "live"; state.className = "on"; } };
  live.onerror = function () { if (state) { state.textContent = "reconnecting…"; state.className = ""; } };
}
window.trajkitReport = {
  goTo: goTo,
  entries: E,
  errors: function () { return errors.map(function (i) { return E[i].index; }); },
  nextError: function () { return jumpError(1); },
  prevError: function () { return jumpError(-1); },
  append: append,
  search: function (q) { search.value = q; applyFilter(q); render(); return view.length; },
  loading: function () { return pendingFetches; },
  state: function () { return { page: page, pages: pages(), shown: view.length, query: query }; }
};
})();
