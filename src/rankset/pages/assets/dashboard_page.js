/*
 * The dashboard's page, first part: the data, the state and its history, the charts, the
 * controls and the overview. Written by hand, no framework: the state is one object that
 * the URL fragment writes and reads (dashboard_core.js); every change records a history
 * entry and redraws from the state, so back, forward and reload restore a view. User
 * strings reach the page only through textContent and attribute setters, never as markup.
 *
 * Runs after dashboard_core.js and before dashboard_views.js, in one function scope.
 */
/* global renderExplorer, render */
/* exported D, S, M, Q, QI, NQ, CTX, DIAG, QUADS, PAGE_ROWS, PROBLEM, LABEL_FREE, state,
   shownRows, $, el,
   clear, navigate, setData, setSignal, setupControls, syncControls, updateSignals,
   embedCharts, renderOverview, startState, fillSelect */

var D = JSON.parse(document.getElementById("rankset-data").textContent);
var SPECS = JSON.parse(document.getElementById("rankset-specs").textContent);
var PROBLEM = payloadProblem(D);
var CTX = contextOf(D);
var S = D.systems, M = D.metrics, Q = D.queries, NQ = Q.length;
var QI = new Map();
Q.forEach(function (q, i) { QI.set(q, i); });
var DIAG = D.diagnosis;
var QUADS = DIAG ? DIAG.quadrants : [];
var PAGE_ROWS = 100;
// No labels, no metric: the query list shows and sorts by the contrast of A's and B's top k.
var LABEL_FREE = isLabelFree(D);
// The query list's sort orders offered in its menu ("" stands for a column's own order).
var SORT_ORDERS = LABEL_FREE
  ? [["", "by column"], ["rbo", "least similar first (RBO)"],
     ["-rbo", "most similar first (RBO)"], ["overlap", "smallest overlap first"],
     ["tau", "lowest tau_AP first"], ["query", "query id"]]
  : [["", "by column"], ["-diff", "B \u2212 A, largest first"],
     ["diff", "B \u2212 A, smallest first"],
     ["-fall", "B\u2019s largest losses first"], ["query", "query id"]];
var charts = {};
var state = null;
var shownRows = PAGE_ROWS;
var lastHash = null;
// "url": the fragment is the address's (a file, a web page); "memory": the page has no
// address of its own (the notebook's <iframe srcdoc>), the state lives here and in the
// history entries' state objects.
var HISTORY = historyMode(location.href);

function $(id) { return document.getElementById(id); }
function el(tag, attrs, children) {
  var node = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) { return; }
      if (name === "text") { node.textContent = String(value); }
      else if (name === "cls") { node.className = value; }
      else { node.setAttribute(name, value === true ? "" : String(value)); }
    });
  }
  (children || []).forEach(function (child) {
    if (child === null || child === undefined) { return; }
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  });
  return node;
}
function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } return node; }

// --- state and history --------------------------------------------------------------------
function remember(hash, replace) {
  // Record `hash` as the current history entry (a new one unless `replace`).
  if (HISTORY === "url") {
    if (hash === location.hash) { return; }
    try {
      if (replace) { history.replaceState(null, "", hash); }
      else { history.pushState(null, "", hash); }
      return;
    } catch {
      HISTORY = "memory";  // an address that cannot change: keep the state here
    }
  }
  // The address stays; the entry carries the fragment, so back and forward still work
  // where the browser keeps a frame's entries.
  try {
    if (replace) { history.replaceState({ rankset: hash }, ""); }
    else { history.pushState({ rankset: hash }, ""); }
  } catch { /* no history at all: the state lives in this script only */ }
}
function show(next, replace) {
  state = next;
  var hash = formatFragment(state, CTX);
  remember(hash, replace);
  lastHash = hash;
  render();
}
function navigate(changes, replace) {
  var next = Object.assign({}, state, changes, { allMissed: false });
  if (("a" in changes || "b" in changes || "metric" in changes) && !("diff" in changes)) {
    next.diff = null;  // the bins of another difference
  }
  if (Object.keys(changes).some(function (key) { return key !== "k"; })) {
    shownRows = PAGE_ROWS;
  }
  show(next, replace);
}
function startState() {
  // The state the page opens with: the address's fragment, or the history entry's.
  var saved = history.state && typeof history.state.rankset === "string"
    ? history.state.rankset : null;
  var hash = HISTORY === "url" || saved === null ? location.hash : saved;
  state = parseFragment(hash, CTX);
  lastHash = hash;
  if (HISTORY === "memory") { remember(formatFragment(state, CTX), true); }
}
function fromLocation() {
  if (HISTORY !== "url" || location.hash === lastHash) { return; }
  lastHash = location.hash;
  state = parseFragment(location.hash, CTX);
  render();
}
function onPopState(event) {
  var saved = event.state && typeof event.state.rankset === "string"
    ? event.state.rankset : null;
  if (saved === null) { fromLocation(); return; }
  lastHash = saved;
  state = parseFragment(saved, CTX);
  render();
}
function onLinkClick(event) {
  // Every in-page link ("#query=...") is followed here: in a frame without an address a
  // "#..." link resolves against the host page, which the browser would load in its place.
  if (event.defaultPrevented || event.button !== 0) { return; }
  var link = event.target && event.target.closest ? event.target.closest("a[href]") : null;
  var hash = link ? fragmentOf(link.getAttribute("href")) : null;
  if (hash === null) { return; }
  var newTab = event.ctrlKey || event.metaKey || event.shiftKey || event.altKey;
  if (newTab && HISTORY === "url") { return; }  // the browser opens the link elsewhere
  event.preventDefault();
  var before = state.view;
  show(parseFragment(hash, CTX));
  if (state.view !== before) { window.scrollTo(0, 0); }  // another view: from its top
}
window.addEventListener("popstate", onPopState);
window.addEventListener("hashchange", fromLocation);
document.addEventListener("click", onLinkClick);

// --- charts ----------------------------------------------------------------------------
function setData(name, dataset, rows) {
  var chart = charts[name];
  if (!chart) { return; }
  chart.view.data(dataset, rows).run();
}
function withData(spec, dataset, rows) {
  // The specs name their data; the rows are set here, once per chart, from the page's data.
  if (Array.isArray(spec)) {
    return spec.map(function (item) { return withData(item, dataset, rows); });
  }
  if (spec === null || typeof spec !== "object") { return spec; }
  var out = {};
  Object.keys(spec).forEach(function (key) {
    var value = spec[key];
    if (key === "data" && value && value.name === dataset) {
      out[key] = { name: dataset, values: rows };
    } else {
      out[key] = withData(value, dataset, rows);
    }
  });
  return out;
}
function setSignal(name, signal, value) {
  var chart = charts[name];
  if (!chart) { return; }
  try {
    if (chart.view.signal(signal) !== value) { chart.view.signal(signal, value).run(); }
  } catch { /* a chart without that parameter */ }
}
function initialRows(name) {
  if (name === "summary") { return D.summary; }
  if (name === "curves") { return D.curves || []; }
  if (name === "diagnosis") { return DIAG.counts; }
  if (name === "history") { return D.history.rows; }
  if (name === "collections") { return D.suite.cells; }
  if (name === "judges") { return D.judges.boards; }
  if (name === "calibration") { return D.judges.calibration; }
  if (name === "costs") { return D.costs.rows; }
  return histogram(filterQueries(D, state));
}
function embedCharts() {
  var options = { mode: "vega-lite", renderer: "svg", actions: false, ast: true };
  return Promise.all(Object.keys(SPECS).map(function (name) {
    var target = $("chart-" + name);
    if (!target) { return null; }
    var spec = withData(SPECS[name], name, initialRows(name));
    return vegaEmbed(target, spec, options).then(function (result) {
      charts[name] = result;
      result.view.addEventListener("click", function (event, item) {
        onChartClick(name, item && item.datum);
      });
    });
  }));
}
function onChartClick(name, datum) {
  if (!datum) { return; }
  if (name === "diagnosis" && datum.system !== undefined && datum.quadrant !== undefined) {
    navigate({ view: "queries", quadrant: datum.quadrant, system: datum.system });
  } else if (name === "differences" && datum.lo !== undefined) {
    navigate({ view: "queries", diff: [datum.lo, datum.hi] });
  } else if (name === "summary" && datum.system !== undefined) {
    navigate({ baseline: datum.system });
  }
}
function updateSignals() {
  // Only the shown view's charts: a hidden chart redrawn is time for nothing (100 systems'
  // curves take a tenth of a second), and each view's charts are brought up to date when
  // it is shown, as every change of view renders.
  var m = M.indexOf(state.metric), view = state.view;
  if (view === "overview") {
    setSignal("summary", "metric", state.metric);
    setSignal("summary", "baseline", state.baseline);
    if (D.curve_of[m]) { setSignal("curves", "measure", D.curve_of[m]); }
    setSignal("curves", "k", state.k);
    setSignal("diagnosis", "picked_system", state.quadrant ? state.system : null);
    setSignal("diagnosis", "picked_quadrant", state.quadrant);
    setSignal("costs", "metric", state.metric);
  }
  if (view === "history") { setSignal("history", "metric", state.metric); }
  if (view === "collections") {
    setSignal("collections", "metric", state.metric);
    setSignal("collections", "lower", !D.greater[m]);
  }
  if (view === "judges") { setSignal("judges", "metric", state.metric); }
}

// --- controls --------------------------------------------------------------------------
function fillSelect(select, values, labels) {
  clear(select);
  values.forEach(function (value, i) {
    select.appendChild(el("option", { value: value, text: labels ? labels[i] : value }));
  });
}
function setupControls() {
  fillSelect($("metric"), M);
  fillSelect($("baseline"), S);
  fillSelect($("sys-a"), S);
  fillSelect($("sys-b"), S);
  fillSelect($("filter-system"), S);
  fillSelect($("filter-quadrant"), [""].concat(QUADS, DIAG ? [UNCLASSIFIED] : []),
             ["any"].concat(QUADS, DIAG ? [UNCLASSIFIED] : []));
  fillSelect($("filter-outcome"), [""].concat(OUTCOMES),
             ["all", "B wins", "B loses", "ties"]);
  fillSelect($("filter-delta-dir"), ["", "worse", "better"],
             ["vs A: any", "worse than A", "better than A"]);
  fillSelect($("sort-order"), SORT_ORDERS.map(function (o) { return o[0]; }),
             SORT_ORDERS.map(function (o) { return o[1]; }));
  $("k").max = String(D.depth);
  $("metric").addEventListener("change", function (e) { navigate({ metric: e.target.value }); });
  $("baseline").addEventListener("change", function (e) {
    navigate({ baseline: e.target.value });
  });
  $("sys-a").addEventListener("change", function (e) { navigate({ a: e.target.value }); });
  $("sys-b").addEventListener("change", function (e) { navigate({ b: e.target.value }); });
  $("swap").addEventListener("click", function () { navigate({ a: state.b, b: state.a }); });
  // A drag of the slider or a word typed is one step of history: its first event pushes
  // an entry, the next ones replace it, until the control is let go.
  var editing = null;
  var edit = function (control, changes) {
    navigate(changes, editing === control);
    editing = control;
  };
  var done = function () { editing = null; };
  $("k").addEventListener("input", function (e) {
    edit("k", { k: parseInt(e.target.value, 10) });
  });
  $("filter-text").addEventListener("input", function (e) {
    edit("text", { text: e.target.value });
  });
  ["change", "blur"].forEach(function (type) {
    $("k").addEventListener(type, done);
    $("filter-text").addEventListener(type, done);
  });
  $("filter-quadrant").addEventListener("change", function (e) {
    navigate({ quadrant: e.target.value || null,
               system: e.target.value ? $("filter-system").value : null });
  });
  $("filter-system").addEventListener("change", function (e) {
    if (state.quadrant) { navigate({ system: e.target.value }); }
  });
  $("filter-outcome").addEventListener("change", function (e) {
    navigate({ outcome: e.target.value || null });
  });
  var deltaOf = function () {
    var dir = $("filter-delta-dir").value, by = Number($("filter-delta").value);
    return dir ? { dir: dir, by: isFinite(by) && by > 0 ? by : 0 } : null;
  };
  $("filter-delta-dir").addEventListener("change", function () {
    navigate({ delta: deltaOf() });
  });
  $("filter-delta").addEventListener("change", function () {
    if (state.delta) { navigate({ delta: deltaOf() }); }
  });
  $("sort-order").addEventListener("change", function (e) {
    if (e.target.value) { navigate({ sort: e.target.value }); }
  });
  $("clear-diff").addEventListener("click", function () { navigate({ diff: null }); });
  $("clear-filters").addEventListener("click", function () {
    navigate({ text: "", quadrant: null, system: null, outcome: null, diff: null,
               delta: null });
  });
  $("more").addEventListener("click", function () { shownRows += PAGE_ROWS; renderExplorer(); });
  if (LABEL_FREE) {  // no metric to pick, nothing to filter by outcome, difference or quadrant
    ["metric", "filter-quadrant", "filter-system", "filter-outcome", "filter-delta-dir",
     "filter-delta"].forEach(function (id) { $(id).closest("label").hidden = true; });
    $("k").closest("label").dataset.for = "overview queries query";
  }
  document.querySelectorAll("[data-tab]").forEach(function (tab) {
    tab.addEventListener("click", function () { navigate({ view: tab.dataset.tab }); });
  });
}
function syncControls() {
  $("metric").value = state.metric;
  $("baseline").value = state.baseline;
  $("sys-a").value = state.a;
  $("sys-b").value = state.b;
  $("k").value = String(state.k);
  $("k-value").textContent = String(state.k);
  if ($("filter-text").value !== state.text) { $("filter-text").value = state.text; }
  $("filter-quadrant").value = state.quadrant || "";
  $("filter-system").value = state.system || state.a;
  $("filter-outcome").value = state.outcome || "";
  $("filter-delta-dir").value = state.delta ? state.delta.dir : "";
  if (state.delta) { $("filter-delta").value = String(state.delta.by); }
  var listed = SORT_ORDERS.some(function (o) { return o[0] === state.sort; });
  $("sort-order").value = listed ? state.sort : "";
  document.querySelectorAll("[data-tab]").forEach(function (tab) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === state.view));
  });
  document.querySelectorAll("[data-view]").forEach(function (section) {
    section.hidden = section.dataset.view !== state.view;
  });
  document.querySelectorAll("[data-for]").forEach(function (node) {
    node.hidden = node.dataset.for.split(" ").indexOf(state.view) < 0;
  });
}

// --- overview ---------------------------------------------------------------------------
// The summary and comparison rows by system and metric, indexed on first use: with 100
// systems and 10 metrics the overview reads 1,000 cells, each a lookup, not a scan.
var SUMMARY_INDEX = null, COMPARE_INDEX = {};
function rowKey(system, metric) { return system + "\u0000" + metric; }
function indexRows(rows) {
  var index = new Map();
  rows.forEach(function (row) { index.set(rowKey(row.system, row.metric), row); });
  return index;
}
function summaryOf(system, metric) {
  if (SUMMARY_INDEX === null) { SUMMARY_INDEX = indexRows(D.summary); }
  return SUMMARY_INDEX.get(rowKey(system, metric)) || null;
}
function comparisonOf(baseline, system, metric) {
  if (!COMPARE_INDEX[baseline]) { COMPARE_INDEX[baseline] = indexRows((D.compare || {})[baseline] || []); }
  return COMPARE_INDEX[baseline].get(rowKey(system, metric)) || null;
}
/** The baselines the page holds tests against (all, or the one the analysis compared with). */
function testedBaselines() { return Object.keys(D.compare || {}); }
function renderLabelFreeOverview() {
  // Each system's top k against the baseline's, averaged over the queries.
  var table = clear($("systems-table")), k = state.k, base = S.indexOf(state.baseline);
  var names = [["overlap", "overlap@" + k], ["jaccard", "Jaccard@" + k],
               ["rbo", "RBO (p = 0.9)"], ["tau_ap", "tau_AP"]];
  table.appendChild(el("caption", { text: "Mean over the " + count(NQ) + " queries of each " +
    "system’s top " + k + " against " + state.baseline + "’s (no labels: no metric)." }));
  var head = el("tr", null, [el("th", { scope: "col", text: "system" })]);
  names.forEach(function (n) { head.appendChild(el("th", { scope: "col", cls: "num", text: n[1] })); });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  S.forEach(function (system, s) {
    var isBase = s === base;
    var mean = isBase ? null : meanContrast(queryContrasts(D, base, s, k));
    var row = el("tr", { cls: isBase ? "baseline" : null, "data-system": system }, [
      el("th", { scope: "row" },
         [system, isBase ? el("span", { cls: "tag", text: "baseline" }) : null])]);
    names.forEach(function (n) {
      var value = mean ? mean[n[0]] : null;
      row.appendChild(el("td", { cls: "num", "data-measure": n[0],
        text: mean === null ? NA : (n[0] === "overlap" ? (value === null ? NA : value.toFixed(2))
                                                       : fmt(value)) }));
    });
    body.appendChild(row);
  });
  table.appendChild(body);
  $("curves-note").textContent = "";
}
function costText(value) {
  // Costs span units (ms, tokens, money): four significant digits, thousands grouped.
  return value === null || value === undefined ? NA
    : Number(value.toPrecision(4)).toLocaleString("en-US", { maximumFractionDigits: 10 });
}
function renderCosts() {
  // Each system's costs beside its mean on the picked metric, the Pareto front marked.
  if (!D.costs || !$("costs-table")) { return; }
  var table = clear($("costs-table"));
  table.appendChild(el("caption", { text: "Cost per query: mean, median (p50) and 95th " +
    "percentile (p95); ◆ on the Pareto front of " + state.metric + " against that cost." }));
  var names = ["system", "cost", "mean", "p50", "p95", "queries", state.metric, "Pareto front"];
  var head = el("tr");
  names.forEach(function (name, i) {
    head.appendChild(el("th", { scope: "col", cls: i > 1 ? "num" : null, text: name }));
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  D.costs.rows.filter(function (r) { return r.metric === state.metric; }).forEach(function (r) {
    body.appendChild(el("tr", { "data-system": r.system, "data-cost": r.cost,
                                "data-pareto": r.pareto ? "true" : "false" }, [
      el("th", { scope: "row", text: r.system }),
      el("td", { text: r.cost }),
      el("td", { cls: "num", text: costText(r.cost_mean) }),
      el("td", { cls: "num", text: costText(r.cost_p50) }),
      el("td", { cls: "num", text: costText(r.cost_p95) }),
      el("td", { cls: "num", text: r.n_queries === null ? NA : String(r.n_queries) }),
      el("td", { cls: "num", text: fmt(r.quality) }),
      el("td", { cls: "num", text: r.pareto ? "◆" : "" })
    ]));
  });
  table.appendChild(body);
}
function renderOverview() {
  if (LABEL_FREE) { renderLabelFreeOverview(); return; }
  var table = clear($("systems-table"));
  var head = el("tr", null, [el("th", { scope: "col", text: "system" })]);
  M.forEach(function (metric) {
    var th = el("th", { scope: "col", cls: "num pick" + (metric === state.metric ? " current" : ""),
                        title: "show " + metric, text: metric });
    th.addEventListener("click", function () { navigate({ metric: metric }); });
    head.appendChild(th);
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  var tested = testedBaselines();
  var untested = S.length > 1 && tested.length && tested.indexOf(state.baseline) < 0
    ? "not tested: the page holds the tests against " + tested.join(", ") +
      " only; this is the difference of the means" : null;
  $("untested-note").hidden = untested === null;
  $("untested-note").textContent = untested === null ? "" : "No tests against " +
    state.baseline + ": the page holds them against " + tested.join(", ") + " only (pick " +
    (tested.length === 1 ? "it" : "one of them") + " as the baseline to see them). Under " +
    "each mean, the difference of the means with " + state.baseline + ".";
  S.forEach(function (system) {
    var isBase = system === state.baseline;
    var row = el("tr", { cls: isBase ? "baseline" : null }, [
      el("th", { scope: "row" },
         [system, isBase ? el("span", { cls: "tag", text: "baseline" }) : null])
    ]);
    M.forEach(function (metric, m) {
      var s = summaryOf(system, metric);
      var cell = el("td", { cls: "num" + (metric === state.metric ? " current" : "") });
      cell.appendChild(el("span", { cls: "mean", text: s ? fmt(s.mean) : NA }));
      if (s) {
        var ci = "[" + fmt(s.ci_low) + ", " + fmt(s.ci_high) + "]";
        cell.appendChild(el("span", { cls: "ci", text: ci }));
      }
      var c = isBase ? null : comparisonOf(state.baseline, system, metric);
      var base = isBase || c || untested === null ? null : summaryOf(state.baseline, metric);
      if (s && base) {  // a baseline without tests: the difference of the means alone
        cell.appendChild(el("span", { cls: "delta untested", title: untested,
                                      text: fmt(s.mean - base.mean, true) }));
      }
      if (c) {
        var better = c.delta !== null && (D.greater[m] ? c.delta > 0 : c.delta < 0);
        var mark = c.reject ? (better ? " \u25b2" : " \u25bc") : "";
        cell.appendChild(el("span", {
          cls: "delta" + (c.reject ? (better ? " up" : " down") : ""),
          title: "p (Holm) = " + (c.p_adj === null ? NA : c.p_adj.toPrecision(2)) +
                 "; wins/ties/losses " + c.wins + "/" + c.ties + "/" + c.losses,
          text: fmt(c.delta, true) + mark
        }));
      }
      row.appendChild(cell);
    });
    body.appendChild(row);
  });
  table.appendChild(body);
  renderCosts();
  var m = M.indexOf(state.metric);
  $("curves-note").textContent = D.curve_of[m]
    ? "Curves of " + D.curve_of[m] + "@k from k = 1 to " + D.depth +
      "; the dashed rule is k = " + state.k + "."
    : state.metric + " has no cutoff: no curve.";
}
