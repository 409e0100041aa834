/*
 * The dashboard's page, second part: the query list, the query view (two rankings side by
 * side), the history, collections and judges views, and the start.
 *
 * The label-free contrast of two rankings (dashboard_core.js) is computed as
 * rankset.label_quality.rbo and rankset.label_quality.tau_ap define it (the tests compare
 * the page's numbers with theirs): overlap@k and Jaccard@k of the two top k, extrapolated
 * RBO (p = 0.9) over the shorter of the two lists, and tau_AP of B's order of the documents
 * both top k hold against A's order (NA under two shared documents).
 *
 * Runs after dashboard_core.js and dashboard_page.js, in one function scope.
 */
/* global D, S, M, Q, QI, NQ, CTX, DIAG, QUADS, PAGE_ROWS, PROBLEM, LABEL_FREE, state,
   shownRows, $, el,
   clear, navigate, setData, setSignal, setupControls, syncControls, updateSignals,
   embedCharts, renderOverview, startState, fillSelect */
/* exported renderExplorer, render */

// --- query explorer ---------------------------------------------------------------------
function queryLink(i, label) {
  var s = Object.assign({}, state, { query: Q[i], view: "query" });
  return el("a", { href: formatFragment(s, CTX), cls: "qlink", text: label });
}
function baselineMark(value, baseValue, greater, isBase) {
  // How a cell differs from the baseline's value on the same query: a class and a title
  // (the mark itself is drawn by the stylesheet, so the cell's text stays the number).
  if (isBase || value === null || baseValue === null) { return null; }
  var d = value - baseValue;
  if (Math.abs(d) < 1e-9) { return null; }
  var better = (d > 0) === greater;
  return { cls: better ? "better" : "worse",
           title: (better ? "better" : "worse") + " than the baseline " + state.baseline +
             " (" + fmt(d, true) + ")" };
}
function listContrasts() {
  // Without labels: the contrast of A's and B's top k for every query (the list's columns).
  return LABEL_FREE ? queryContrasts(D, S.indexOf(state.a), S.indexOf(state.b), state.k) : null;
}
var CONTRAST_COLUMNS = [["overlap", "overlap@"], ["jaccard", "Jaccard@"], ["rbo", "RBO"],
                        ["tau", "tau_AP"]];
function renderLabelFreeExplorer() {
  // The queries with the contrast of A's and B's top k: least similar first by default.
  var found = filterQueries(D, state), contrasts = listContrasts(), k = state.k;
  var rows = sortRows(D, state, found.rows, found.diffs, contrasts);
  $("chart-differences").hidden = true;
  $("differences-note").textContent = "";
  $("query-count").textContent = count(rows.length) + " of " + count(NQ) + " queries" +
    (D.sample.sampled ? " in this file (" + count(D.n_queries_total) + " with rankings)" : "") +
    " · the top " + k + " of A = " + state.a + " against B = " + state.b +
    ", without labels";
  $("active-filters").textContent = "";
  $("clear-diff").hidden = true;
  var table = clear($("query-table"));
  var columns = [["query", "query"]];
  if (D.query_text) { columns.push([null, "text"]); }
  CONTRAST_COLUMNS.forEach(function (c) {
    columns.push([c[0], c[1] + (c[0] === "overlap" || c[0] === "jaccard" ? k : "")]);
  });
  var head = el("tr");
  columns.forEach(function (column) {
    var key = column[0], current = state.sort.replace(/^-/, "") === key;
    var arrow = current ? (state.sort.charAt(0) === "-" ? " \u25be" : " \u25b4") : "";
    var th = el("th", { scope: "col", text: column[1] + arrow, "data-sort": key,
      cls: (key && key !== "query" ? "num " : "") + (key ? "sortable" : "") });
    if (key) {
      th.addEventListener("click", function () {
        navigate({ sort: current && state.sort.charAt(0) !== "-" ? "-" + key : key }, true);
      });
    }
    head.appendChild(th);
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  rows.slice(0, shownRows).forEach(function (i) {
    var c = contrasts[i];
    var tr = el("tr", { "data-query": Q[i] }, [el("th", { scope: "row" }, [queryLink(i, Q[i])])]);
    if (D.query_text) { tr.appendChild(el("td", { cls: "qtext", text: D.query_text[i] || "" })); }
    [["overlap", String(c.overlap)], ["jaccard", fmt(c.jaccard)], ["rbo", fmt(c.rbo)],
     ["tau", fmt(c.tau_ap)]].forEach(function (pair) {
      tr.appendChild(el("td", { cls: "num", "data-measure": pair[0], text: pair[1] }));
    });
    body.appendChild(tr);
  });
  if (!rows.length) {
    body.appendChild(el("tr", null, [el("td", { colspan: columns.length, text: "No query matches." })]));
  }
  table.appendChild(body);
  $("more").hidden = rows.length <= shownRows;
  $("more").textContent = "Show " + count(Math.min(PAGE_ROWS, rows.length - shownRows)) + " more";
}
// With more systems than this the query list shows the columns of A, B and the baseline
// only: 100 systems' columns are 10,000 cells per 100 rows, a third of a second to lay out.
var LIST_SYSTEMS = 12;
function listedSystems(a, b, base) {
  if (S.length <= LIST_SYSTEMS) { return S.map(function (_, i) { return i; }); }
  return S.map(function (_, i) { return i; }).filter(function (i) {
    return i === a || i === b || i === base;
  });
}
function renderExplorer() {
  if (LABEL_FREE) { renderLabelFreeExplorer(); return; }
  var found = filterQueries(D, state);
  var m = M.indexOf(state.metric), a = S.indexOf(state.a), b = S.indexOf(state.b);
  var base = S.indexOf(state.baseline);
  setData("differences", "differences", histogram(found));
  setSignal("differences", "picked_bin", state.diff ? found.bins.edge(
    found.bins.index((state.diff[0] + state.diff[1]) / 2)) : null);
  var listed = listedSystems(a, b, base);
  $("differences-note").textContent = "B \u2212 A on " + state.metric + ": A = " + state.a +
    ", B = " + state.b + ". Click a bar to list its queries." +
    (listed.length < S.length ? " The list shows the values of A, B and the baseline " +
      state.baseline + " (" + S.length + " systems: pick others as A or B)." : "");
  var rows = sortRows(D, state, found.rows, found.diffs);
  var wins = 0, losses = 0, ties = 0;
  found.rows.forEach(function (i) {
    var o = outcomeOf(found.diffs[i], found.greater);
    if (o === "wins") { wins++; }
    else if (o === "losses") { losses++; }
    else if (o === "ties") { ties++; }
  });
  $("query-count").textContent = count(rows.length) + " of " + count(NQ) + " queries" +
    (D.sample.sampled ? " in this file (" + count(D.n_queries_total) + " evaluated)" : "") +
    " \u00b7 B wins " + count(wins) + ", loses " + count(losses) + ", ties " + count(ties);
  var chips = [];
  if (state.quadrant) { chips.push(state.system + ": " + state.quadrant); }
  if (state.diff) {
    chips.push("B \u2212 A in [" + fmt(state.diff[0]) + ", " + fmt(state.diff[1]) + ")");
  }
  if (state.delta) {
    chips.push("B " + state.delta.dir + " than A by at least " + fmt(state.delta.by));
  }
  $("active-filters").textContent = chips.length ? "Filtered by " + chips.join("; ") : "";
  $("clear-diff").hidden = !state.diff;
  var table = clear($("query-table"));
  var columns = [["query", "query"]];
  if (D.query_text) { columns.push([null, "text"]); }
  listed.forEach(function (i) { columns.push(["s" + i, S[i]]); });
  columns.push(["diff", "B \u2212 A"]);
  var head = el("tr");
  columns.forEach(function (column) {
    var key = column[0], current = state.sort.replace(/^-/, "") === key;
    var arrow = current ? (state.sort.charAt(0) === "-" ? " \u25be" : " \u25b4") : "";
    var isSystem = key && key.charAt(0) === "s";
    var th = el("th", {
      scope: "col", text: column[1] + arrow,
      cls: (key && key !== "query" ? "num " : "") + (key ? "sortable" : "") +
           (isSystem && Number(key.slice(1)) === a ? " sys-a" : "") +
           (isSystem && Number(key.slice(1)) === b ? " sys-b" : ""),
      "data-sort": key
    });
    if (key) {
      th.addEventListener("click", function () {
        navigate({ sort: current && state.sort.charAt(0) === "-" ? key : "-" + key }, true);
      });
    }
    head.appendChild(th);
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  rows.slice(0, shownRows).forEach(function (i) {
    var tr = el("tr", { "data-query": Q[i] }, [el("th", { scope: "row" }, [queryLink(i, Q[i])])]);
    if (D.query_text) { tr.appendChild(el("td", { cls: "qtext", text: D.query_text[i] || "" })); }
    listed.forEach(function (s) {
      var mark = baselineMark(D.values[m][s][i], D.values[m][base][i], D.greater[m], s === base);
      tr.appendChild(el("td", { cls: "num" + (s === a ? " sys-a" : "") + (s === b ? " sys-b" : "") +
                                (mark ? " vs-base " + mark.cls : ""),
                                title: mark ? mark.title : null,
                                text: fmt(D.values[m][s][i]) }));
    });
    var o = outcomeOf(found.diffs[i], found.greater);
    tr.appendChild(el("td", { cls: "num diff " + (o || ""), text: fmt(found.diffs[i], true) }));
    body.appendChild(tr);
  });
  if (!rows.length) {
    var none = el("td", { colspan: columns.length, text: "No query matches." });
    body.appendChild(el("tr", null, [none]));
  }
  table.appendChild(body);
  $("more").hidden = rows.length <= shownRows;
  $("more").textContent = "Show " + count(Math.min(PAGE_ROWS, rows.length - shownRows)) + " more";
}

// --- query view (the SERP diff) -----------------------------------------------------------
var MISSED_ROWS = 10;
function snippetNode(text, terms) {
  // The shipped text with the query's words marked; cut to three lines until clicked.
  var node = el("div", { cls: "snippet", title: "click to show the whole text" },
    highlightParts(text, terms).map(function (part) {
      return part[1] ? el("mark", { text: part[0] }) : part[0];
    }));
  node.addEventListener("click", function () { node.classList.toggle("open"); });
  return node;
}
function queryNav(qi) {
  // Previous and next query of the query list as it is filtered and sorted now.
  var found = filterQueries(D, state);
  var rows = sortRows(D, state, found.rows, found.diffs, listContrasts());
  var near = neighbours(rows, qi);
  var step = function (position, label, id) {
    if (position === null) {
      return el("button", { type: "button", cls: "small", id: id, disabled: true, text: label });
    }
    return el("a", { cls: "button small", id: id, text: label, href: formatFragment(
      Object.assign({}, state, { query: Q[position], view: "query" }), CTX) });
  };
  return el("p", { cls: "query-nav", id: "query-nav" }, [
    step(near.prev, "\u2190 previous", "prev-query"), " ",
    step(near.next, "next \u2192", "next-query"), " ",
    el("span", { cls: "explain", text: near.at < 0
      ? "This query is not in the query list as filtered."
      : "Query " + count(near.at + 1) + " of " + count(rows.length) +
        " in the query list (as filtered and sorted there)." })
  ]);
}
function gradeCell(grade) {
  if (grade === null || grade === undefined) {
    return el("td", { cls: "grade unjudged", text: "unjudged" });
  }
  var cls = grade >= D.relevance_level ? "rel" : (grade > 0 ? "partial" : "nonrel");
  return el("td", { cls: "grade " + cls, text: String(grade) });
}
function moveCell(rank, other, otherName, k, isB) {
  // How B placed the document against A: up when B ranks it higher than A does. With
  // deep_ranks the other run's rank is known at its full depth, so "new" means "not
  // retrieved at all" rather than "below the shipped depth".
  if (other === undefined) {
    var where = D.deep_ranks ? "\u2019s ranking" : "\u2019s top " + D.depth;
    return el("td", { cls: "move out", text: (isB ? "new" : "dropped") + " (not in " + otherName +
      where + ")" });
  }
  var up = isB ? other - rank : rank - other;
  var label = String(other);
  var cls = "move";
  if (up > 0) { label += " \u2191" + up; cls += " up"; }
  else if (up < 0) { label += " \u2193" + (-up); cls += " down"; }
  else { label += " ="; }
  if (other > k) { cls += " beyond"; }
  return el("td", { cls: cls, text: label });
}
function serpTable(qi, list, otherRanks, otherName, k, side, terms) {
  var ids = D.doc_ids[qi], grades = D.grades[qi];
  var table = el("table", { cls: "serp", id: "serp-" + side });
  table.appendChild(el("thead", null, [el("tr", null, [
    el("th", { scope: "col", cls: "num", text: "rank" }),
    el("th", { scope: "col", text: "document" }),
    LABEL_FREE ? null : el("th", { scope: "col", text: "grade" }),
    el("th", { scope: "col", text: otherName + "\u2019s rank" })
  ])]));
  var body = el("tbody");
  list.slice(0, k).forEach(function (doc, r) {
    var id = ids[doc], text = D.texts ? D.texts[id] : null;
    var docCell = el("td", { cls: "doc" }, [el("code", { text: id }),
      text ? snippetNode(text, terms) : null]);
    body.appendChild(el("tr", { "data-doc": id }, [
      el("td", { cls: "num", text: String(r + 1) }), docCell,
      LABEL_FREE ? null : gradeCell(grades[doc]),
      moveCell(r + 1, otherRanks.get(doc), otherName, k, side === "b")
    ]));
  });
  if (!list.length) {
    body.appendChild(el("tr", null, [el("td", { colspan: LABEL_FREE ? 3 : 4,
                                                 text: "No document retrieved." })]));
  }
  table.appendChild(body);
  return table;
}
function ranksOf(list, s, qi) {
  // Rank of each document in system s's ranking of query qi: the shipped top depth, then
  // the shown documents it holds further down (deep_ranks: [doc, rank, doc, rank, ...]).
  var ranks = new Map();
  list.forEach(function (doc, r) { ranks.set(doc, r + 1); });
  var deep = D.deep_ranks ? D.deep_ranks[s][qi] : [];
  for (var i = 0; i + 1 < deep.length; i += 2) { ranks.set(deep[i], deep[i + 1]); }
  return ranks;
}
function renderQuery() {
  var view = clear($("query-body"));
  var qi = QI.has(state.query) ? QI.get(state.query) : -1;
  $("query-title").textContent = state.query === null ? "No query chosen" : "Query " + state.query;
  if (qi < 0) {
    view.appendChild(el("p", { cls: "note", id: "query-missing", text: state.query === null
      ? "Pick a query in the Queries tab."
      : "The query " + state.query + " is not in this file" +
        (D.sample.sampled ? " (it holds a sample of the queries)." : ".") }));
    return;
  }
  var a = S.indexOf(state.a), b = S.indexOf(state.b), k = state.k;
  var listA = D.rankings[a][qi], listB = D.rankings[b][qi];
  var terms = queryTerms(D.query_text ? D.query_text[qi] : "");
  view.appendChild(queryNav(qi));
  if (D.query_text && D.query_text[qi]) {
    view.appendChild(el("p", { cls: "qtext-full", id: "query-text", text: D.query_text[qi] }));
  }
  var metrics = el("table", { id: "query-metrics" });
  metrics.appendChild(el("thead", null, [el("tr", null, [
    el("th", { scope: "col", text: "metric" }),
    el("th", { scope: "col", cls: "num sys-a", text: "A: " + state.a }),
    el("th", { scope: "col", cls: "num sys-b", text: "B: " + state.b }),
    el("th", { scope: "col", cls: "num", text: "B \u2212 A" })
  ])]));
  var body = el("tbody");
  M.forEach(function (metric, m) {
    var x = D.values[m][a][qi], y = D.values[m][b][qi], d = x === null || y === null ? null : y - x;
    body.appendChild(el("tr", { cls: metric === state.metric ? "current" : null }, [
      el("th", { scope: "row", text: metric }), el("td", { cls: "num", text: fmt(x) }),
      el("td", { cls: "num", text: fmt(y) }),
      el("td", { cls: "num diff " + (outcomeOf(d, D.greater[m]) || ""), text: fmt(d, true) })
    ]));
  });
  metrics.appendChild(body);
  var topA = listA.slice(0, k).map(function (d) { return D.doc_ids[qi][d]; });
  var topB = listB.slice(0, k).map(function (d) { return D.doc_ids[qi][d]; });
  var c = contrast(topA, topB);
  var facts = el("dl", { cls: "contrast", id: "contrast" });
  [["overlap@" + k, String(c.overlap)], ["Jaccard@" + k, fmt(c.jaccard)],
   ["RBO (p = 0.9)", fmt(c.rbo)], ["tau_AP (B vs A)", fmt(c.tau_ap)]].forEach(function (pair) {
    facts.appendChild(el("dt", { text: pair[0] }));
    facts.appendChild(el("dd", { "data-measure": pair[0], text: pair[1] }));
  });
  var side = el("div", { cls: "side" }, [
    LABEL_FREE ? null : el("div", null, [el("h3", { text: "Metrics" }), metrics]),
    el("div", { cls: "narrow" }, [
      el("h3", { text: "The two top " + k + ", without labels" }), facts,
      el("p", { cls: "explain", text: "Overlap and Jaccard of the two top " + k +
        "; rank-biased overlap; tau_AP of B\u2019s order of the shared documents" +
        " against A\u2019s." })])
  ]);
  if (DIAG) {
    var lines = el("ul", { id: "query-quadrants", cls: "plain" });
    [[a, state.a], [b, state.b]].forEach(function (pair) {
      var code = DIAG.quadrant[pair[0]][qi];
      lines.appendChild(el("li", { text: pair[1] + ": " +
        (code === null ? UNCLASSIFIED : QUADS[code]) + " (PROC@" + DIAG.k + " " +
        fmt(DIAG.proc[pair[0]][qi]) + ", %PROC@" + DIAG.k + " " +
        fmt(DIAG.pct_proc[pair[0]][qi]) + ")" }));
    });
    side.appendChild(el("div", null, [el("h3", { text: "Diagnosis" }), lines]));
  }
  view.appendChild(side);
  var ranksA = ranksOf(listA, a, qi), ranksB = ranksOf(listB, b, qi);
  view.appendChild(el("div", { cls: "serps" }, [
    el("div", null, [el("h3", { cls: "sys-a", text: "A: " + state.a }),
                     serpTable(qi, listA, ranksB, state.b, k, "a", terms)]),
    el("div", null, [el("h3", { cls: "sys-b", text: "B: " + state.b }),
                     serpTable(qi, listB, ranksA, state.a, k, "b", terms)])
  ]));
  if (LABEL_FREE) { return; }  // no labels: no relevant document to miss
  var shown = new Set(listA.slice(0, k).concat(listB.slice(0, k)));
  var missing = [];
  D.grades[qi].forEach(function (grade, doc) {
    if (grade !== null && grade >= D.relevance_level && !shown.has(doc)) { missing.push(doc); }
  });
  view.appendChild(el("h3", { id: "missed-title", text: "Relevant documents neither top " + k +
    " holds (" + missing.length + ")" }));
  var missed = el("ul", { id: "missed", cls: "missed" });
  missing.slice(0, state.allMissed ? missing.length : MISSED_ROWS).forEach(function (doc) {
    var id = D.doc_ids[qi][doc], text = D.texts ? D.texts[id] : null;
    var where = [[ranksA, state.a], [ranksB, state.b]].map(function (pair) {
      var rank = pair[0].get(doc);
      return rank === undefined ? null : pair[1] + " " + rank;
    }).filter(function (x) { return x; });
    missed.appendChild(el("li", { "data-doc": id }, [el("code", { text: id }),
      el("span", { cls: "grade rel", text: "grade " + D.grades[qi][doc] }),
      el("span", { cls: "explain", text: where.length ? " ranked " + where.join(", ") : "" }),
      text ? snippetNode(text, terms) : null]));
  });
  view.appendChild(missing.length ? missed : el("p", { cls: "explain", text: "None." }));
  if (missing.length > MISSED_ROWS && !state.allMissed) {
    var all = el("button", { type: "button", id: "all-missed",
                             text: "Show all " + missing.length });
    all.addEventListener("click", function () { state.allMissed = true; renderQuery(); });
    view.appendChild(all);
  }
}

// --- history: an experiment store's logged means ----------------------------------------
function renderHistoryChanges() {
  // The recorded options, meta and commit that changed: each entry against the one before,
  // or between the two entries picked.
  var H = D.history, box = $("history-changes-box");
  if (!box) { return; }
  var recorded = H.recorded || [];
  box.hidden = recorded.length < 2;
  if (recorded.length < 2) { return; }
  var from = $("history-from"), to = $("history-to");
  if (!from.options.length) {
    var names = recorded.map(function (r) { return r.entry; });
    fillSelect(from, [""].concat(names), ["each entry against the one before"].concat(names));
    fillSelect(to, names);
    to.value = names[names.length - 1];
    from.addEventListener("change", renderHistoryChanges);
    to.addEventListener("change", renderHistoryChanges);
  }
  to.disabled = !from.value;
  var rows = entryChanges(recorded, from.value, to.value);
  var table = clear($("history-changes"));
  table.appendChild(el("caption", { text: rows.length
    ? "Only the recorded options (option.*), meta (meta.*) and git commits whose value changed."
    : "No recorded option, meta or commit changed." }));
  var head = el("tr");
  ["entry", "against", "recorded", "before", "after"].forEach(function (name) {
    head.appendChild(el("th", { scope: "col", text: name }));
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  rows.forEach(function (r) {
    body.appendChild(el("tr", { "data-key": r.key }, [
      el("th", { scope: "row", text: r.entry }), el("td", { text: r.previous }),
      el("td", null, [el("code", { text: r.key })]),
      el("td", { text: r.before === null ? "(not recorded)" : r.before }),
      el("td", { text: r.after === null ? "(not recorded)" : r.after })
    ]));
  });
  table.appendChild(body);
}
function renderHistory() {
  renderHistoryChanges();
  var H = D.history, table = clear($("history-table")), missing = $("history-missing");
  var held = H.metrics.indexOf(state.metric) >= 0;
  missing.hidden = held || !H.metrics.length;
  missing.textContent = held ? "" : state.metric + " was not logged in the store; of this " +
    "dashboard's metrics it holds " + H.metrics.join(", ") + ".";
  $("chart-history").hidden = !held;
  table.hidden = !held;
  if (!held) { return; }
  var greater = D.greater[M.indexOf(state.metric)];
  table.appendChild(el("caption", { text: "Each system\u2019s last logged mean and its " +
    "change from the entry before (" + state.metric + "); p: paired randomization test of " +
    "that change over the queries both entries scored, bold below 0.05." }));
  var head = el("tr");
  [["system", ""], ["entries", "num"], ["last entry", ""], ["logged (UTC)", ""],
   ["last mean", "num"], ["the one before", "num"], ["change", "num"],
   ["p", "num"]].forEach(function (c) {
    head.appendChild(el("th", { scope: "col", cls: c[1] || null, text: c[0] }));
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  H.latest.forEach(function (row) {
    if (row.metric !== state.metric) { return; }
    body.appendChild(el("tr", { "data-system": row.system }, [
      el("th", { scope: "row", text: row.system }),
      el("td", { cls: "num", text: count(row.n_entries) }),
      el("td", null, [el("code", { text: row.last_entry })]),
      el("td", { text: row.last_time }),
      el("td", { cls: "num", text: fmt(row.last_mean) }),
      el("td", { cls: "num", text: fmt(row.previous_mean) }),
      el("td", { cls: "num diff " + (outcomeOf(row.change, greater) || ""),
                 text: fmt(row.change, true) }),
      el("td", { cls: "num p" + (row.p !== null && row.p !== undefined && row.p < 0.05
        ? " significant" : ""),
                 text: row.p === null || row.p === undefined ? NA : row.p.toPrecision(2) })
    ]));
  });
  table.appendChild(body);
}

// --- collections: the same systems over a suite of collections ------------------------
function renderSuite() {
  var C = D.suite, table = clear($("collections-table")), missing = $("collections-missing");
  var held = C.metrics.indexOf(state.metric) >= 0;
  missing.hidden = held || !C.metrics.length;
  missing.textContent = held ? "" : state.metric + " was not evaluated over the " +
    "collections; of this dashboard's metrics the suite has " + C.metrics.join(", ") + ".";
  $("chart-collections").hidden = !held;
  table.hidden = !held;
  if (!held) { return; }
  var caption = "Over the " + C.collections.length + " collections (" + state.metric +
    "; best mean rank first): the mean of the collection means, the mean rank (1 = best), " +
    "the Borda count (n \u2212 rank points per collection)";
  if (C.confidence !== null) {
    caption += "; " + Math.round(C.confidence * 100) + "% percentile bootstrap intervals " +
      "over " + count(C.n_resamples) + " resamples, of the collections and of the queries " +
      "within each";
  }
  table.appendChild(el("caption", { text: caption + "." }));
  var head = el("tr");
  [["system", ""], ["collections", "num"], ["macro mean", "num"], ["CI (collections)", "num"],
   ["CI (queries)", "num"], ["mean rank", "num"], ["rank CI", "num"], ["Borda", "num"]
  ].forEach(function (c) {
    head.appendChild(el("th", { scope: "col", cls: c[1] || null, text: c[0] }));
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  C.aggregate.forEach(function (row) {
    if (row.metric !== state.metric) { return; }
    body.appendChild(el("tr", { "data-system": row.system }, [
      el("th", { scope: "row", text: row.system }),
      el("td", { cls: "num", text: count(row.n_collections) }),
      el("td", { cls: "num", text: fmt(row.macro_mean) }),
      el("td", { cls: "num", text: interval(row.ci_low, row.ci_high, fmt) }),
      el("td", { cls: "num", text: interval(row.ci_low_queries, row.ci_high_queries, fmt) }),
      el("td", { cls: "num", text: rankText(row.mean_rank) }),
      el("td", { cls: "num", text: interval(row.rank_low, row.rank_high, rankText) }),
      el("td", { cls: "num", text: rankText(row.borda) })
    ]));
  });
  table.appendChild(body);
}

// --- judges: other label sets against the human labels ---------------------------------
var CORRELATION_NAMES = { kendall: "Kendall \u03c4-b", pearson: "Pearson r",
  spearman: "Spearman \u03c1", tauap_b: "\u03c4 AP-b", tau_gap: "\u03c4 GAP" };
function correlationName(name) {
  var parts = name.split("@");
  return (CORRELATION_NAMES[parts[0]] || parts[0]) + (parts.length > 1 ? "@" + parts[1] : "");
}
function rankChange(change) {
  if (change === null || change === undefined) { return [NA, ""]; }
  if (change > 0) { return ["\u2191" + change, " up"]; }
  if (change < 0) { return ["\u2193" + (-change), " down"]; }
  return ["=", ""];
}
function judgeCorrelations(J, metric) {
  var table = clear($("judges-correlations"));
  table.appendChild(el("caption", { text: "How far each judge\u2019s leaderboard by " + metric +
    " agrees with the humans\u2019 (" + J.reference + "): 1 is the same order; \u03c4 AP-b " +
    "and \u03c4 GAP weigh the top more, Kendall@10 reads the humans\u2019 ten best systems. " +
    "Below each value its " + Math.round(J.confidence * 100) + "% bootstrap interval over " +
    "topics; a dash: undefined (a leaderboard of equal means)." }));
  var head = el("tr", null, [el("th", { scope: "col", text: "judge" }),
    el("th", { scope: "col", cls: "num", text: "systems" }),
    el("th", { scope: "col", cls: "num", text: "topics" })]);
  J.correlations.forEach(function (name) {
    head.appendChild(el("th", { scope: "col", cls: "num", text: correlationName(name) }));
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  J.judges.forEach(function (judge) {
    var rows = J.rows.filter(function (r) { return r.judge === judge && r.metric === metric; });
    if (!rows.length) { return; }
    var tr = el("tr", { "data-judge": judge }, [el("th", { scope: "row", text: judge }),
      el("td", { cls: "num", text: count(rows[0].n_systems) }),
      el("td", { cls: "num", text: count(rows[0].n_topics) })]);
    J.correlations.forEach(function (name) {
      var row = rows.filter(function (r) { return r.correlation === name; })[0];
      var td = el("td", { cls: "num", "data-correlation": name });
      td.appendChild(el("span", { cls: "mean", text: row ? fmt(row.value) : NA }));
      if (row) { td.appendChild(el("span", { cls: "ci", text: interval(row.ci_low, row.ci_high, fmt) })); }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  });
  table.appendChild(body);
}
function judgeBoards(J, metric) {
  var table = clear($("judges-boards"));
  var rows = J.boards.filter(function (r) { return r.metric === metric; });
  var judges = J.judges.filter(function (j) {
    return rows.some(function (r) { return r.judge === j; });
  });
  if (!judges.length) { return; }
  table.appendChild(el("caption", { text: "The leaderboards by mean " + metric + ": under the " +
    "human labels (" + J.reference + ") and each judge\u2019s (rank 1 = best; \u2191 the judge " +
    "ranks the system higher than the humans do, \u2193 lower)." }));
  var head = el("tr", null, [el("th", { scope: "col", text: "system" }),
    el("th", { scope: "col", cls: "num", text: J.reference + " mean" }),
    el("th", { scope: "col", cls: "num", text: "rank" })]);
  judges.forEach(function (j) {
    head.appendChild(el("th", { scope: "col", cls: "num judge-first", text: j + " mean" }));
    head.appendChild(el("th", { scope: "col", cls: "num", text: "rank" }));
    head.appendChild(el("th", { scope: "col", cls: "num", text: "change" }));
  });
  table.appendChild(el("thead", null, [head]));
  var body = el("tbody");
  rows.filter(function (r) { return r.judge === judges[0]; }).forEach(function (truth) {
    var tr = el("tr", { "data-system": truth.system }, [
      el("th", { scope: "row", text: truth.system }),
      el("td", { cls: "num", text: fmt(truth.truth_mean) }),
      el("td", { cls: "num", text: rankText(truth.truth_rank) })]);
    judges.forEach(function (j) {
      var row = rows.filter(function (r) { return r.judge === j && r.system === truth.system; })[0];
      var change = rankChange(row ? row.rank_change : null);
      tr.appendChild(el("td", { cls: "num judge-first", "data-judge": j,
                                text: row ? fmt(row.judge_mean) : NA }));
      tr.appendChild(el("td", { cls: "num", text: row ? rankText(row.judge_rank) : NA }));
      tr.appendChild(el("td", { cls: "num move" + change[1], text: change[0] }));
    });
    body.appendChild(tr);
  });
  table.appendChild(body);
}
function judgeTopics(J, metric) {
  var box = clear($("judges-topics"));
  $("judges-topics-title").textContent = "Where the judges and the humans disagree most (" +
    metric + ")";
  J.judges.forEach(function (judge) {
    var rows = J.topics.filter(function (r) { return r.judge === judge && r.metric === metric; });
    var part = el("div", { "data-judge": judge }, [el("h3", { text: judge })]);
    if (!rows.length) {
      part.appendChild(el("p", { cls: "explain", text: "No topic with a defined correlation." }));
      box.appendChild(part);
      return;
    }
    var table = el("table", { cls: "judge-topics" });
    var head = el("tr", null, [el("th", { scope: "col", cls: "num", text: "#" }),
      el("th", { scope: "col", text: "query" })]);
    if (D.query_text) { head.appendChild(el("th", { scope: "col", text: "text" })); }
    head.appendChild(el("th", { scope: "col", cls: "num", text: "Kendall \u03c4-b" }));
    head.appendChild(el("th", { scope: "col", cls: "num", text: "systems" }));
    table.appendChild(el("thead", null, [head]));
    var body = el("tbody");
    rows.forEach(function (row, r) {
      var target = Object.assign({}, state, { query: row.query_id, view: "query" });
      var tr = el("tr", { "data-query": row.query_id }, [
        el("td", { cls: "num", text: String(r + 1) }),
        el("th", { scope: "row" }, [el("a", { href: formatFragment(target, CTX), cls: "qlink",
                                             text: row.query_id })])]);
      if (D.query_text) {
        var qi = QI.has(row.query_id) ? QI.get(row.query_id) : -1;
        tr.appendChild(el("td", { cls: "qtext", text: qi < 0 ? "" : D.query_text[qi] || "" }));
      }
      tr.appendChild(el("td", { cls: "num", text: fmt(row.kendall) }));
      tr.appendChild(el("td", { cls: "num", text: count(row.n_systems) }));
      body.appendChild(tr);
    });
    table.appendChild(body);
    part.appendChild(table);
    box.appendChild(part);
  });
}
function renderJudges() {
  var J = D.judges, metric = state.metric, missing = $("judges-missing");
  var held = !J.note && J.metrics.indexOf(metric) >= 0;
  missing.hidden = held;
  missing.textContent = held ? "" : (J.note || metric + " was not meta-evaluated; the judges " +
    "view has " + J.metrics.join(", ") + ".");
  $("judges-body").hidden = !held;
  if (held) {
    judgeCorrelations(J, metric);
    judgeBoards(J, metric);
    judgeTopics(J, metric);
  }
  var pairs = {};
  J.calibration.forEach(function (row) { pairs[row.judge] = (pairs[row.judge] || 0) + row.n; });
  var fitted = Object.keys(pairs).map(function (j) { return j + ": " + count(pairs[j]) + " pairs"; });
  var text = fitted.length
    ? "On the (query, document) pairs both labelled (" + fitted.join("; ") + "): the mean " +
      "human grade at each of the judge\u2019s grades, and the monotone (isotonic) map from " +
      "the judge\u2019s grade to the expected human gain. A judge on the humans\u2019 scale " +
      "lies on the dashed diagonal."
    : "";
  if (J.uncalibrated.length) {
    text += (text ? " " : "") + "No calibration for " + J.uncalibrated.join(", ") +
      ": no pair carries both its label and a human one.";
  }
  $("calibration-explain").textContent = text;
}

// --- start ------------------------------------------------------------------------------
function render() {
  syncControls();
  updateSignals();
  if (state.view === "overview") { renderOverview(); }
  else if (state.view === "queries") { renderExplorer(); }
  else if (state.view === "history") { renderHistory(); }
  else if (state.view === "collections") { renderSuite(); }
  else if (state.view === "judges") { renderJudges(); }
  else { renderQuery(); }
}
function start() {
  if (PROBLEM !== null) {
    document.body.setAttribute("data-ready", "error");
    console.error("rankset dashboard: " + PROBLEM);
    return;
  }
  startState();
  setupControls();
  render();
  embedCharts().then(function () {
    render();
    document.body.setAttribute("data-ready", "true");
  }).catch(function (error) {
    document.body.setAttribute("data-ready", "error");
    console.error(error);
  });
}
start();
