// The run viewer: plain JavaScript, no build step, no network. Data come
// from data/index.js (viewerIndex) and, on demand, data/ep/<id>.js
// (viewerEpisode) and data/mem/<method>/<checkpoint>.js (viewerMemory),
// loaded as scripts because a page opened from file:// may not fetch.
"use strict";
const S = { ix: null, eps: {}, mem: {}, pending: {}, byId: {} };

function viewerIndex(d) {
  S.ix = d;
  for (const e of d.episodes || []) S.byId[e.id] = e;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot); else boot();
}
function viewerEpisode(id, d) { S.eps[id] = d; }
function viewerMemory(m, ck, t) {
  // A table with no rows may come as null rows (Go's nil slice).
  S.mem[m + "/" + ck] = (t || []).map(x => ({ name: x.name, columns: x.columns || [], rows: x.rows || [] }));
}

// load adds a data script once and resolves with what it stored.
function load(src, get) {
  const have = get();
  if (have !== undefined) return Promise.resolve(have);
  if (!S.pending[src]) {
    S.pending[src] = new Promise((ok, fail) => {
      const s = document.createElement("script");
      s.src = src;
      s.onload = () => ok(get());
      s.onerror = () => { delete S.pending[src]; fail(new Error("cannot load " + src)); };
      document.head.appendChild(s);
    });
  }
  return S.pending[src];
}
const episode = id => load("data/ep/" + id + ".js", () => S.eps[id]);
const memory = (m, ck) => load("data/mem/" + encodeURIComponent(m) + "/" + encodeURIComponent(ck) + ".js", () => S.mem[m + "/" + ck]);

// --- small helpers
function esc(s) {
  return String(s == null ? "" : s).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function fmt(x, d) {
  if (typeof x !== "number" || !isFinite(x)) return x == null ? "" : String(x);
  if (Number.isInteger(x)) return String(x);
  if (d != null) return x.toFixed(d);
  return String(Number(x.toPrecision(4))); // 0.0001234, 0.5, 12.35
}
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "html") el.innerHTML = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k != null && k !== false) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}
function params(q) { const o = {}; for (const [k, v] of new URLSearchParams(q || "")) o[k] = v; return o; }
function qs(o) { return new URLSearchParams(Object.entries(o).filter(([, v]) => v !== "" && v != null)).toString(); }
function select(label, values, cur, onchange, names) {
  const s = h("select", { "aria-label": label, onchange: e => onchange(e.target.value) });
  values.forEach((v, i) => s.append(h("option", { value: v, selected: v === cur }, names ? names[i] : v)));
  return h("label", {}, label + " ", s);
}
function outcome(e) {
  if (e.error) return h("span", { class: "err" }, "errored");
  return e.won ? h("span", { class: "won" }, "won") : h("span", { class: "lost" }, "failed");
}
const isNum = v => v !== "" && v != null && !isNaN(Number(v));

// grid is a sortable, searchable table of string cells with paging.
function grid(columns, rows, opt) {
  opt = opt || {};
  const page = opt.page || 200;
  let sortCol = opt.sort == null ? -1 : opt.sort, desc = !!opt.desc, query = "", shown = page;
  const wrap = h("div", { class: "grid" });
  const info = h("span", { class: "muted" });
  const search = h("input", { type: "search", placeholder: "search", "aria-label": "search " + (opt.name || "table"), oninput: e => { query = e.target.value.toLowerCase(); shown = page; draw(); } });
  const tbl = h("table", { "data-table": opt.name || "" });
  const more = h("button", { onclick: () => { shown += page; draw(); } }, "more rows");
  wrap.append(h("div", { class: "controls" }, search, info), tbl, more);
  const numeric = columns.map((_, i) => rows.length > 0 && rows.every(r => r[i] === "" || isNum(r[i])));
  function draw() {
    let rs = query ? rows.filter(r => r.some(c => String(c).toLowerCase().includes(query))) : rows.slice();
    if (sortCol >= 0) {
      const n = numeric[sortCol];
      rs.sort((a, b) => {
        const x = a[sortCol], y = b[sortCol];
        const c = n ? (Number(x) - Number(y)) : String(x).localeCompare(String(y));
        return desc ? -c : c;
      });
    }
    info.textContent = rs.length + " of " + rows.length + " rows";
    tbl.innerHTML = "";
    const head = h("tr");
    columns.forEach((c, i) => head.append(h("th", { class: "sortable" + (numeric[i] ? " num" : ""), onclick: () => { desc = sortCol === i ? !desc : numeric[i]; sortCol = i; draw(); } }, c + (sortCol === i ? (desc ? " ▼" : " ▲") : ""))));
    tbl.append(h("thead", {}, head));
    const body = h("tbody");
    for (const r of rs.slice(0, shown)) {
      const tr = h("tr", { class: opt.onRow ? "click" : null, onclick: opt.onRow ? () => opt.onRow(r) : null });
      // Numbers show rounded; sorting and search use the cell as written.
      r.forEach((c, i) => tr.append(h("td", { class: numeric[i] ? "num" : null, title: numeric[i] && c !== "" ? c : null },
        opt.cell ? opt.cell(c, i, r) : numeric[i] && c !== "" ? fmt(Number(c)) : c)));
      body.append(tr);
    }
    tbl.append(body);
    more.style.display = rs.length > shown ? "" : "none";
  }
  draw();
  return wrap;
}

// chart draws lines in plain SVG: series [{name, points: [[x, y]]}].
function chart(title, series, opt) {
  opt = opt || {};
  const W = 420, H = 220, L = 44, R = 10, T = 22, B = 30;
  const pts = series.flatMap(s => s.points);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("role", "img"); svg.setAttribute("aria-label", title);
  const add = (tag, a, text) => { const e = document.createElementNS(svg.namespaceURI, tag); for (const k in a) e.setAttribute(k, a[k]); if (text != null) e.textContent = text; svg.append(e); return e; };
  add("text", { x: L, y: 14 }, title);
  if (pts.length === 0) { add("text", { x: L, y: H / 2 }, "no data"); return svg; }
  const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
  let x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = opt.y0 != null ? opt.y0 : Math.min(0, ...ys), y1 = opt.y1 != null ? opt.y1 : Math.max(...ys);
  if (x1 === x0) x1 = x0 + 1; if (y1 === y0) y1 = y0 + 1;
  const X = x => L + (x - x0) / (x1 - x0) * (W - L - R), Y = y => H - B - (y - y0) / (y1 - y0) * (H - T - B);
  add("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999" });
  add("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#999" });
  add("text", { x: 2, y: Y(y1) + 4 }, fmt(y1, 2)); add("text", { x: 2, y: Y(y0) + 4 }, fmt(y0, 2));
  add("text", { x: L, y: H - 10 }, fmt(x0)); add("text", { x: W - R - 20, y: H - 10 }, fmt(x1));
  add("text", { x: W / 2 - 20, y: H - 10 }, opt.x || "iteration");
  const colors = ["#2457a6", "#c0392b", "#1d7a3a", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#2c3e50", "#b7950b", "#a93226"];
  series.forEach((s, i) => {
    const c = colors[i % colors.length];
    add("polyline", { fill: "none", stroke: c, "stroke-width": 2, points: s.points.map(p => X(p[0]) + "," + Y(p[1])).join(" ") });
    for (const p of s.points) add("circle", { cx: X(p[0]), cy: Y(p[1]), r: 2.5, fill: c }).append(Object.assign(document.createElementNS(svg.namespaceURI, "title"), { textContent: s.name + ": " + fmt(p[1]) }));
    add("text", { x: W - R - 120, y: T + 12 * (i + 1), fill: c }, s.name);
  });
  return svg;
}

// interval finds a confidence interval on a summary object, whatever the
// results writer called it: [lo, hi] arrays or {lo, hi}/{low, high} objects
// under ci/interval/success_ci/success_rate_ci, or ci_low/ci_high fields.
function interval(o) {
  if (!o || typeof o !== "object") return null;
  for (const k of ["success_rate_ci", "success_ci", "ci", "interval", "success_interval"]) {
    const v = o[k];
    if (Array.isArray(v) && v.length === 2) return v;
    if (v && typeof v === "object") {
      const lo = v.lo != null ? v.lo : v.low != null ? v.low : v.lower, hi = v.hi != null ? v.hi : v.high != null ? v.high : v.upper;
      if (lo != null && hi != null) return [lo, hi];
    }
  }
  if (o.ci_low != null && o.ci_high != null) return [o.ci_low, o.ci_high];
  return null;
}
function rateCell(s, href, iv) {
  if (!s) return h("td", { class: "muted" }, "–");
  const ci = iv && iv.high != null && (iv.low !== 0 || iv.high !== 0) ? [iv.low, iv.high] : interval(s);
  const txt = fmt(s.success_rate, 2) + (ci ? " [" + fmt(ci[0], 2) + ", " + fmt(ci[1], 2) + "]" : "");
  return h("td", { class: "num" }, h("a", { href }, txt), h("span", { class: "muted" }, " (" + (s.tasks != null ? s.tasks : "?") + ")"));
}

// --- views
const views = {
  compare(p) {
    const ix = S.ix, out = [h("h1", {}, "Comparison")];
    if (ix.offline_note) out.push(h("p", { class: "offline-note" }, h("strong", {}, ix.offline_note)));
    if (!ix.evals.length) { out.push(h("p", { class: "muted" }, "No evaluation in this run yet: run eval, then make the viewer again.")); return out; }
    const name = p.eval || ix.evals[0].name;
    const ev = ix.evals.find(e => e.name === name) || ix.evals[0];
    if (ix.evals.length > 1) out.push(h("div", { class: "controls" }, select("evaluation", ix.evals.map(e => e.name), ev.name, v => go("compare", { eval: v }))));
    const results = Array.isArray(ev.summary) ? ev.summary : [];
    const types = [...new Set(results.flatMap(r => Object.keys(r.by_type || {})))].sort();
    const head = h("tr", {}, h("th", {}, "method"), h("th", { class: "num" }, "all"), ...types.map(t => h("th", { class: "num" }, t)),
      h("th", { class: "num" }, "avg steps"), h("th", { class: "num" }, "errored"), h("th", { class: "num" }, "tokens consumed"));
    // summary.json's intervals: {success: {mean, low, high, n, over}, by_type: {t: {success}}}.
    const iv = (r, t) => { const x = r.intervals; if (!x) return null; return t == null ? x.success : x.by_type && x.by_type[t] && x.by_type[t].success; };
    const never = new Set(ev.never_guided || []);
    const body = results.map(r => h("tr", { "data-method": r.method }, h("td", {}, r.method + (never.has(r.method) ? " ⚠ never guided" : "")),
      rateCell({ success_rate: r.success_rate, tasks: r.tasks, ...r }, "#" + "episodes?" + qs({ eval: ev.name, method: r.method }), iv(r)),
      ...types.map(t => rateCell(r.by_type && r.by_type[t], "#episodes?" + qs({ eval: ev.name, method: r.method, type: t }), iv(r, t))),
      h("td", { class: "num" }, fmt(r.avg_steps, 1)), h("td", { class: "num" }, r.errored || 0), h("td", { class: "num" }, r.tokens || 0)));
    const first = results.map(r => iv(r)).find(x => x && x.high != null);
    const over = first ? "; 95% intervals in square brackets, over " + (first.n || "?") + " " + (first.over || "values") + (first.method ? " (" + first.method + ")" : "") : results.some(r => interval(r)) ? "; intervals in square brackets" : "";
    const seeds = results.find(r => Array.isArray(r.seeds) && r.seeds.length > 1);
    out.push(h("p", { class: "muted" }, "Success rate by task type (tasks in brackets" + over + (seeds ? "; run seeds " + seeds.seeds.join(", ") : "") + "). Each number links to the episodes behind it."));
    out.push(h("table", { id: "comparison" }, h("thead", {}, head), h("tbody", {}, body)));
    const paired = results.flatMap(r => (r.paired || []).map(p => [r.method, p.against, p.metric, ...["pairs", "difference", "low", "high", "p_value", "better", "worse"].map(k => p.result && p.result[k] != null ? String(p.result[k]) : "")]));
    if (paired.length) out.push(h("h2", {}, "Paired comparisons"), grid(["method", "against", "metric", "pairs", "difference", "low", "high", "p", "better", "worse"], paired, { name: "paired" }));
    if (ev.stats) out.push(h("h2", {}, "Statistics"), h("pre", {}, JSON.stringify(ev.stats, null, 2)));
    const notes = results.filter(r => r.measures_fallback).map(r => r.method + ": " + Math.round(100 * r.fallback_share) + "% of a role's replies replaced by fallback rules");
    for (const m of ev.never_guided || []) notes.push(m + ": memory never guided a step of this evaluation; the row measures the method as if it had no memory");
    if (notes.length) out.push(h("h2", {}, "Caveats"), h("ul", {}, notes.map(n => h("li", {}, n))));
    return out;
  },

  episodes(p) {
    const ix = S.ix;
    const evals = ["", ...ix.evals.map(e => e.name), "training"];
    const methods = ["", ...new Set(ix.episodes.map(e => e.method))];
    const types = ["", ...new Set(ix.episodes.map(e => e.type))].sort();
    const f = { eval: p.eval || "", method: p.method || "", type: p.type || "", result: p.result || "" };
    const set = (k, v) => go("episodes", { ...f, [k]: v });
    const eps = ix.episodes.filter(e => (!f.eval || (f.eval === "training" ? e.mode === "train" : e.eval === f.eval)) &&
      (!f.method || e.method === f.method) && (!f.type || e.type === f.type) &&
      (!f.result || (f.result === "won") === e.won));
    const rows = eps.map(e => [e.id, e.method, e.eval || "train it " + (e.iteration + 1), String(e.seed || ""), e.task, e.type, e.won ? "won" : e.error ? "errored" : "failed", String(e.steps), String(e.guided || 0), String(e.trial || 0)]);
    return [h("h1", {}, "Episodes"),
      h("div", { class: "controls" }, select("evaluation", evals, f.eval, v => set("eval", v), evals.map(v => v || "all")),
        select("method", methods, f.method, v => set("method", v), methods.map(v => v || "all")),
        select("type", types, f.type, v => set("type", v), types.map(v => v || "all")),
        select("result", ["", "won", "failed"], f.result, v => set("result", v), ["all", "won", "failed"])),
      grid(["episode", "method", "evaluation", "seed", "task", "type", "result", "steps", "guided", "trial"], rows, {
        name: "episodes",
        cell: (c, i, r) => i === 0 ? h("a", { href: "#episode/" + c }, c) : i === 6 ? h("span", { class: c === "won" ? "won" : "lost" }, c) : c,
      })];
  },

  async episode(p, id) {
    const ref = S.byId[id];
    if (!ref) return [h("p", { class: "err" }, "No episode " + id)];
    const ep = await episode(id);
    const out = [h("h1", {}, ref.method + " on " + ref.task)];
    const peers = S.ix.episodes.filter(e => e.task === ref.task && e.id !== id && e.mode === ref.mode && (e.eval || "") === (ref.eval || "") && (e.seed || 0) === (ref.seed || 0) && (ref.mode !== "train" || e.iteration === ref.iteration));
    if (peers.length) out.push(h("div", { class: "controls" }, h("span", { class: "muted" }, "Same task under:"),
      ...peers.map(e => h("a", { href: "#pair/" + id + "/" + e.id }, e.method + (e.trial ? " trial " + (e.trial + 1) : "") + " (" + (e.won ? "won" : "failed") + ")"))));
    out.push(renderEpisode(ref, ep));
    return out;
  },

  async pair(p, a, b) {
    const ra = S.byId[a], rb = S.byId[b];
    if (!ra || !rb) return [h("p", { class: "err" }, "No such episodes")];
    const [ea, eb] = await Promise.all([episode(a), episode(b)]);
    return [h("h1", {}, ra.task + ": " + ra.method + " beside " + rb.method),
      h("div", { class: "pair" }, h("div", {}, h("h2", {}, h("a", { href: "#episode/" + a }, ra.method)), renderEpisode(ra, ea)),
        h("div", {}, h("h2", {}, h("a", { href: "#episode/" + b }, rb.method)), renderEpisode(rb, eb)))];
  },

  curves() {
    const ms = S.ix.methods.filter(m => Array.isArray(m.history) && m.history.length);
    if (!ms.length) return [h("h1", {}, "Training"), h("p", { class: "muted" }, "No training history in this run.")];
    const series = (f) => ms.map(m => ({ name: m.name, points: m.history.map(it => [it.iteration + 1, f(it)]).filter(p => typeof p[1] === "number") }));
    const out = [h("h1", {}, "Training"), h("div", { class: "cards" },
      h("div", { class: "card" }, chart("success rate", series(it => it.success_rate), { y0: 0, y1: 1 })),
      h("div", { class: "card" }, chart("epsilon", series(it => it.epsilon), { y0: 0 })),
      h("div", { class: "card" }, chart("steps", series(it => it.steps))))];
    const sizes = [...new Set(ms.flatMap(m => m.history.flatMap(it => Object.keys(it.size || {}))))].sort();
    out.push(h("h2", {}, "Memory size"), h("div", { class: "cards" }, sizes.map(k => h("div", { class: "card" }, chart(k, series(it => it.size ? it.size[k] : undefined))))));
    const tok = ms.map(m => ({ name: m.name, points: (m.metrics || []).map((x, i) => [x.iteration != null ? x.iteration + 1 : i + 1, tokensOf(x)]).filter(p => typeof p[1] === "number") })).filter(s => s.points.length);
    out.push(h("h2", {}, "Tokens"), tok.length ? h("div", { class: "card" }, chart("tokens", tok)) :
      h("p", { class: "muted" }, "No per-iteration token counts in this run (offline roles spend none); the run's usage is under Provenance."));
    for (const m of ms) {
      const cols = ["iteration", "episodes", "successes", "success_rate", "steps", "errors", "epsilon", "seconds"];
      out.push(h("h3", {}, m.name), grid(cols, m.history.map(it => cols.map(c => c === "iteration" ? String(it[c] + 1) : fmt(it[c]))), { name: "history-" + m.name, page: 50 }));
    }
    return out;
  },

  async qtable(p) {
    const ms = S.ix.methods.filter(m => m.tables && m.tables.includes("qtable") && m.tables.includes("states"));
    const out = [h("h1", {}, "Q-table explorer")];
    if (!ms.length) { out.push(h("p", { class: "muted" }, "No method with a Q-table in this run.")); return out; }
    const m = ms.find(x => x.name === p.method) || ms[0];
    const ck = m.checkpoints.includes(p.ck) ? p.ck : m.checkpoints[m.checkpoints.length - 1];
    out.push(h("div", { class: "controls" }, select("method", ms.map(x => x.name), m.name, v => go("qtable", { method: v })),
      select("checkpoint", m.checkpoints, ck, v => go("qtable", { method: m.name, ck: v }))));
    const tabs = await memory(m.name, ck);
    const T = name => tabs.find(t => t.name === name) || { columns: [], rows: [] };
    const states = T("states"), thoughts = T("thoughts"), q = T("qtable"), pruned = T("pruned");
    const thoughtText = new Map(thoughts.rows.map(r => [r[0], r[1]]));
    const detail = h("div", { id: "state-detail" }, h("p", { class: "muted" }, "Pick a state to see its thoughts, their values across checkpoints and what forgetting pruned."));
    const showState = async (row) => {
      const sid = row[0];
      go("qtable", { method: m.name, ck, state: sid }, true);
      detail.innerHTML = "";
      detail.append(h("h2", {}, "State " + sid), h("p", {}, row[1]), h("p", { class: "muted" }, row[2] + " members, " + row[4] + " visits"));
      const mine = q.rows.filter(r => r[0] === sid).map(r => [r[1], thoughtText.get(r[1]) || "(removed)", r[2], r[3], r[4]]);
      detail.append(h("h3", {}, "Thoughts"), grid(["thought", "text", "q", "visits", "last step"], mine, { name: "state-thoughts", sort: 2, desc: true }));
      const pr = pruned.rows.filter(r => r[0] === sid);
      detail.append(h("h3", {}, "Pruned by forgetting"), pr.length ? grid(["state", "thought", "text"], pr, { name: "state-pruned" }) : h("p", { class: "muted" }, "nothing pruned in this state"));
      const hist = h("div", {}, h("button", { onclick: async () => {
        hist.innerHTML = "";
        const all = await Promise.all(m.checkpoints.map(c => memory(m.name, c)));
        const ths = new Set();
        const vals = all.map(ts => { const qt = ts.find(t => t.name === "qtable"); const o = {}; for (const r of (qt ? qt.rows : [])) if (r[0] === sid) { o[r[1]] = r[2]; ths.add(r[1]); } return o; });
        const cols = ["checkpoint", ...[...ths].sort((a, b) => a - b).map(t => "thought " + t)];
        const rows = m.checkpoints.map((c, i) => [c, ...[...ths].sort((a, b) => a - b).map(t => vals[i][t] == null ? "" : vals[i][t])]);
        hist.append(grid(cols, rows, { name: "state-history" }));
        const ser = [...ths].sort((a, b) => a - b).map(t => ({ name: "thought " + t, points: m.checkpoints.map((c, i) => [i + 1, vals[i][t] == null ? NaN : Number(vals[i][t])]).filter(p => !isNaN(p[1])) }));
        hist.append(chart("Q across checkpoints", ser, { x: "checkpoint" }));
      } }, "history across checkpoints"));
      detail.append(h("h3", {}, "History"), hist);
    };
    out.push(h("div", { class: "cols" }, h("div", {}, h("h2", {}, "States"),
      grid(states.columns, states.rows, { name: "states", sort: states.columns.indexOf("best q"), desc: true, onRow: showState })), detail));
    out.push(h("h2", {}, "All pruned pairs"), grid(pruned.columns, pruned.rows, { name: "pruned" }));
    if (p.state) { const r = states.rows.find(r => r[0] === p.state); if (r) await showState(r); }
    return out;
  },

  async memory(p) {
    const ms = S.ix.methods;
    const out = [h("h1", {}, "Memory")];
    if (!ms.length) { out.push(h("p", { class: "muted" }, "No trained method in this run.")); return out; }
    const m = ms.find(x => x.name === p.method) || ms[0];
    out.push(h("div", { class: "controls" }, select("method", ms.map(x => x.name), m.name, v => go("memory", { method: v }))));
    if (!m.checkpoints || !m.checkpoints.length) { out.push(h("p", { class: "muted" }, m.memory_error || (m.name + " shows no memory."))); return out; }
    const ck = m.checkpoints.includes(p.ck) ? p.ck : m.checkpoints[m.checkpoints.length - 1];
    const tabs = await memory(m.name, ck);
    const t = tabs.find(x => x.name === p.table) || tabs[0];
    out[1].append(select("checkpoint", m.checkpoints, ck, v => go("memory", { method: m.name, ck: v, table: t && t.name })),
      select("table", tabs.map(x => x.name), t && t.name, v => go("memory", { method: m.name, ck, table: v }), tabs.map(x => x.name + " (" + x.rows.length + ")")));
    if (m.memory_error) out.push(h("p", { class: "err" }, m.memory_error));
    if (t) out.push(h("h2", {}, m.name + ": " + t.name + " at " + ck), grid(t.columns, t.rows, { name: "memory-" + t.name }));
    return out;
  },

  provenance() {
    const ix = S.ix, out = [h("h1", {}, "Provenance and usage")];
    const block = (title, v) => { if (v != null) out.push(h("h2", {}, title), h("pre", {}, JSON.stringify(v, null, 2))); };
    if (ix.provenance) block("Provenance", ix.provenance); else out.push(h("p", { class: "muted" }, "This run records no provenance.json."));
    block("Configuration (config.json)", ix.config);
    const usage = [];
    const addUsage = (where, acct) => {
      if (!acct || !acct.methods) return;
      for (const [m, r] of Object.entries(acct.methods)) { const t = r.total || {}; usage.push([where, m, String(t.requests || 0), String(t.prompt_tokens || 0), String(t.completion_tokens || 0), String(t.cached_tokens || 0), fmt(t.cost_usd || 0, 4)]); }
    };
    addUsage("train", ix.train_usage);
    for (const e of ix.evals) addUsage("eval " + e.name, e.usage);
    out.push(h("h2", {}, "Usage"), usage.length ? grid(["run", "method", "requests", "prompt tokens", "completion tokens", "cached tokens", "cost (USD)"], usage, { name: "usage" }) : h("p", { class: "muted" }, "No usage account in this run."));
    block("Training usage (train-usage.json)", ix.train_usage);
    for (const e of ix.evals) block("Evaluation provenance: " + e.name, e.provenance);
    for (const e of ix.evals) block("Evaluation usage: " + e.name, e.usage);
    if (ix.notes && ix.notes.length) out.push(h("h2", {}, "Notes"), h("ul", {}, ix.notes.map(n => h("li", {}, n))));
    return out;
  },
};

function tokensOf(x) {
  if (typeof x.tokens === "number") return x.tokens;
  if (x.usage && x.usage.total) return (x.usage.total.prompt_tokens || 0) + (x.usage.total.completion_tokens || 0);
  return undefined;
}

// renderEpisode shows an episode step by step with what memory read.
function renderEpisode(ref, ep) {
  const o = ep.outcome || {};
  const box = h("div", { class: "episode", "data-episode": ref.id });
  box.append(h("p", {}, outcome(ref), " in " + (o.steps || 0) + " steps, score " + fmt(o.score) + (o.max_score ? " of " + fmt(o.max_score) : "") +
    (ep.trial ? ", trial " + (ep.trial + 1) : "") + (ref.mode === "train" ? ", training iteration " + (ref.iteration + 1) : "") + (ep.superseded ? " (a later trial is the task's result)" : "")));
  if (ep.task && ep.task.goal) box.append(h("p", {}, h("strong", {}, "Goal: "), ep.task.goal));
  if (o.error) box.append(h("p", { class: "err" }, o.error));
  if (ep.opening) box.append(h("h3", {}, "Opening observation"), h("pre", {}, ep.opening));
  for (const tr of ep.transitions || []) {
    const d = tr.decision || {}, r = tr.result || {};
    const st = h("div", { class: "step", id: ref.id + "-step-" + tr.step, "data-step": tr.step, "data-guided": d.guided ? "1" : "0" });
    st.append(h("div", { class: "head" }, h("strong", {}, "Step " + (tr.step + 1)), h("span", { class: "act" }, d.action),
      d.guided ? h("span", { class: "badge guided" }, "guided by memory") : null,
      d.recall && d.recall.explored ? h("span", { class: "badge explored" }, "explored") : null,
      h("span", { class: "muted" }, "reward " + fmt(r.reward) + ", score " + fmt(r.score))));
    if (d.thought) st.append(h("div", {}, h("span", { class: "muted" }, "thought: "), d.thought));
    if (d.recall) st.append(renderRecall(d.recall));
    st.append(h("pre", {}, r.text || ""));
    box.append(st);
  }
  return box;
}

function renderRecall(rc) {
  const box = h("div", { class: "recall" });
  if (rc.state) box.append(h("div", {}, h("span", { class: "muted" }, "state: "), rc.state));
  if (rc.match) box.append(h("div", { class: "match", "data-match": rc.match }, h("span", { class: "muted" }, "matched: "), rc.match, rc.similarity ? " (similarity " + fmt(rc.similarity) + ")" : ""));
  else if (rc.state && rc.items == null) box.append(h("div", { class: "muted" }, "matched no memory entry"));
  const items = rc.items || [];
  if (items.length) {
    const keys = [...new Set(items.flatMap(i => Object.keys(i.scores || {})))];
    const tb = h("table", { class: "recall-items" }, h("thead", {}, h("tr", {}, h("th", {}, "kind"), h("th", {}, "id"), h("th", {}, "memory"), ...keys.map(k => h("th", { class: "num" }, k)), h("th", {}, "used"))));
    const body = h("tbody");
    for (const it of items) {
      const sc = it.scores || {};
      body.append(h("tr", { class: it.used ? "used" : null, "data-used": it.used ? "1" : "0", "data-id": it.id || "", "data-q": sc.q != null ? String(sc.q) : null },
        h("td", {}, it.kind || ""), h("td", {}, it.id || ""), h("td", {}, it.text), ...keys.map(k => h("td", { class: "num" }, fmt(sc[k]))), h("td", {}, it.used ? "✔" : "")));
    }
    tb.append(body);
    box.append(tb);
  }
  if (rc.plan) box.append(h("div", {}, h("span", { class: "muted" }, "plan:")), h("pre", {}, rc.plan));
  if (rc.notes && rc.notes.length) box.append(h("ul", {}, rc.notes.map(n => h("li", {}, n))));
  return box;
}

// --- routing
function go(view, p, quiet) {
  const hash = "#" + view + (p && Object.keys(p).length ? "?" + qs(p) : "");
  if (quiet) history.replaceState(null, "", hash); else location.hash = hash;
}
let seq = 0;
async function route() {
  const my = ++seq;
  document.body.dataset.ready = "0";
  const raw = location.hash.slice(1) || "compare";
  const [path, q] = raw.split("?");
  const [name, ...args] = path.split("/").map(decodeURIComponent);
  const view = views[name] ? name : "compare";
  document.querySelectorAll("[data-nav]").forEach(a => a.classList.toggle("on", a.dataset.nav === view || (view === "episode" || view === "pair") && a.dataset.nav === "episodes"));
  const main = document.getElementById("main");
  let nodes;
  try {
    nodes = await views[view](params(q), ...args);
  } catch (e) {
    nodes = [h("p", { class: "err" }, String(e && e.message || e))];
    document.body.dataset.error = String(e && e.message || e);
  }
  if (my !== seq) return;
  main.innerHTML = "";
  main.append(...nodes);
  document.body.dataset.view = view;
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = "1";
}
function boot() {
  if (boot.done) return;
  boot.done = true;
  document.getElementById("run-name").textContent = S.ix.run;
  document.title = S.ix.run + " · run viewer";
  window.addEventListener("hashchange", route);
  route();
}
