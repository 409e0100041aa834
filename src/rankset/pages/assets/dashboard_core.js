/*
 * The dashboard's pure functions: the data contract, the state in the URL fragment, the
 * query list's filters and order, the numbers as the page shows them, and the label-free
 * contrast of two rankings. Nothing here touches the DOM: the page runs this file first,
 * in the same function scope as dashboard_page.js and dashboard_views.js, and node runs
 * it in the unit tests (tests/pages/js), through the exports at the end.
 */
"use strict";

/** Version of the embedded data's layout this script reads (FORMAT_VERSION in Python). */
var FORMAT_VERSION = 1;

/**
 * The top-level keys of the embedded data (the JSON element "rankset-data"), as
 * rankset.pages.dashboard._payload.DashboardData declares them: the tests check that the
 * page, the TypedDict and this list agree.
 */
var PAYLOAD_KEYS = [
  "version", "title", "snippet", "seed", "n_resamples",
  "systems", "metrics", "greater", "curve_of", "baseline", "k", "depth", "relevance_level",
  "n_queries_total", "sample", "queries", "query_text", "values", "doc_ids", "grades",
  "rankings", "texts", "summary", "compare", "curves", "diagnosis", "history", "suite",
  "judges", "deep_ranks", "costs"
];

var NA = "\u2013";
var MINUS = "\u2212";
var UNCLASSIFIED = "unclassified";
var OUTCOMES = ["wins", "losses", "ties"];
var DEFAULT_SORT = "-diff";
/** The default order of a page without labels: least similar first (ascending RBO). */
var LABEL_FREE_SORT = "rbo";
/** The query list's contrast columns (sort keys) and the contrast() field each reads. */
var CONTRAST_KEYS = { overlap: "overlap", jaccard: "jaccard", rbo: "rbo", tau: "tau_ap" };

// --- the data ---------------------------------------------------------------------------

/** Whether the page has no labels (no metric): its rankings are contrasted instead. */
function isLabelFree(data) { return !data.metrics.length; }

/** Say what is wrong with the embedded data (missing keys, another version), or null. */
function payloadProblem(data) {
  if (data === null || typeof data !== "object") { return "the page holds no data"; }
  var missing = PAYLOAD_KEYS.filter(function (key) { return !(key in data); });
  if (missing.length) { return "the page's data lacks " + missing.join(", "); }
  if (data.version !== FORMAT_VERSION) {
    return "the page's data has layout version " + data.version + ", this script reads " +
      FORMAT_VERSION;
  }
  return null;
}

/** What the fragment's parser needs to know of the data. */
function contextOf(data) {
  var diagnosis = data.diagnosis;
  return {
    systems: data.systems,
    metrics: data.metrics,
    baseline: data.baseline,
    k: data.k,
    depth: data.depth,
    views: ["overview", "queries", "query"].concat(data.history ? ["history"] : [],
      data.suite ? ["collections"] : [], data.judges ? ["judges"] : []),
    quadrants: diagnosis ? diagnosis.quadrants.concat([UNCLASSIFIED]) : [],
    labelFree: isLabelFree(data)
  };
}

// --- numbers ----------------------------------------------------------------------------

/** A value with four decimals (NA as a dash, the minus sign U+2212); signed: "+" too. */
function fmt(value, signed) {
  if (value === null || value === undefined || !isFinite(value)) { return NA; }
  var text = Math.abs(value) < 5e-5 ? (0).toFixed(4) : value.toFixed(4);
  if (signed && value >= 5e-5) { text = "+" + text; }
  return text.replace("-", MINUS);
}

/** A count with thousands separators (1,234). */
function count(n) { return n.toLocaleString("en-US"); }

/** A rank: whole as it is, else two decimals at most; NA as a dash. */
function rankText(value) {
  if (value === null || value === undefined) { return NA; }
  return value === Math.round(value) ? String(value) : String(Math.round(value * 100) / 100);
}

/** "[low, high]" with each end shown by `text`; NA when an end is missing. */
function interval(low, high, text) {
  if (low === null || low === undefined || high === null || high === undefined) { return NA; }
  return "[" + text(low) + ", " + text(high) + "]";
}

// --- state <-> URL fragment -------------------------------------------------------------

function otherThan(systems, name) {
  for (var i = 0; i < systems.length; i++) { if (systems[i] !== name) { return systems[i]; } }
  return name;
}

/** The state of a page opened without a fragment. */
function defaultState(ctx) {
  return {
    view: "overview", query: null, a: ctx.baseline, b: otherThan(ctx.systems, ctx.baseline),
    metric: ctx.metrics.length ? ctx.metrics[0] : null, k: ctx.k, baseline: ctx.baseline,
    text: "", quadrant: null, system: null, outcome: null, diff: null, delta: null,
    sort: ctx.labelFree ? LABEL_FREE_SORT : DEFAULT_SORT
  };
}

/**
 * Read a state from a fragment ("#query=q003&a=bm25&b=rerank&metric=ndcg@10&k=10"; the "#"
 * is optional). What the data does not hold (a system, a metric, a view) is left at its
 * default, so an old or edited link still opens a page.
 */
function parseFragment(hash, ctx) {
  var s = defaultState(ctx);
  var p = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  var isSystem = function (name) { return name !== null && ctx.systems.indexOf(name) >= 0; };
  var a = p.get("a"), b = p.get("b");
  if (isSystem(a)) { s.a = a; }
  if (isSystem(b)) { s.b = b; } else if (isSystem(a)) { s.b = otherThan(ctx.systems, a); }
  var metric = p.get("metric");
  if (metric !== null && ctx.metrics.indexOf(metric) >= 0) { s.metric = metric; }
  var k = parseInt(p.get("k"), 10);
  if (isFinite(k)) { s.k = Math.max(1, Math.min(ctx.depth, k)); }
  if (isSystem(p.get("baseline"))) { s.baseline = p.get("baseline"); }
  if (p.get("query") !== null && p.get("query") !== "") { s.query = p.get("query"); }
  var view = p.get("view");
  s.view = view !== null && ctx.views.indexOf(view) >= 0
    ? view : (s.query !== null ? "query" : "overview");
  s.text = p.get("text") || "";
  var quadrant = p.get("quadrant");
  if (quadrant !== null && ctx.quadrants.indexOf(quadrant) >= 0) {
    s.quadrant = quadrant;
    s.system = isSystem(p.get("system")) ? p.get("system") : s.a;
  }
  if (OUTCOMES.indexOf(p.get("outcome")) >= 0) { s.outcome = p.get("outcome"); }
  var diff = (p.get("diff") || "").split(",").map(Number);
  if (diff.length === 2 && isFinite(diff[0]) && isFinite(diff[1]) && diff[0] < diff[1]) {
    s.diff = diff;
  }
  var delta = /^(worse|better):(\d*\.?\d+(?:e-?\d+)?)$/.exec(p.get("delta") || "");
  if (delta) { s.delta = { dir: delta[1], by: Number(delta[2]) }; }
  var sorts = ctx.labelFree ? /^-?(query|overlap|jaccard|rbo|tau)$/ : /^-?(query|diff|fall|s\d+)$/;
  if (sorts.test(p.get("sort") || "")) { s.sort = p.get("sort"); }
  if (ctx.labelFree) {  // no metric: nothing to filter by outcome, difference or quadrant
    s.outcome = null;
    s.diff = null;
    s.delta = null;
  }
  return s;
}

/** Percent-encode a value of the fragment; '@', ',' and ':' stay (ndcg@10 reads well). */
function encodeValue(value) {
  return encodeURIComponent(value).replace(/%40/g, "@").replace(/%2C/g, ",")
    .replace(/%3A/g, ":");
}

/** Write a state as a fragment, "#" first; what equals the default is left out. */
function formatFragment(s, ctx) {
  var pairs = [];
  var add = function (key, value) { pairs.push(key + "=" + encodeValue(value)); };
  if (s.query !== null) { add("query", s.query); }
  add("a", s.a);
  add("b", s.b);
  if (s.metric !== null) { add("metric", s.metric); }
  add("k", String(s.k));
  if (!(s.view === "query" && s.query !== null)) { add("view", s.view); }
  if (s.baseline !== ctx.baseline) { add("baseline", s.baseline); }
  if (s.text) { add("text", s.text); }
  if (s.quadrant) { add("quadrant", s.quadrant); add("system", s.system); }
  if (s.outcome) { add("outcome", s.outcome); }
  if (s.diff) { add("diff", s.diff[0] + "," + s.diff[1]); }
  if (s.delta) { add("delta", s.delta.dir + ":" + s.delta.by); }
  if (s.sort !== defaultState(ctx).sort) { add("sort", s.sort); }
  return "#" + pairs.join("&");
}

/** The fragment of an in-page link ("#..."), or null for a link elsewhere. */
function fragmentOf(href) {
  return typeof href === "string" && href.charAt(0) === "#" ? href : null;
}

/**
 * Where the page keeps its state: "url" when the address can hold the fragment (a file or
 * a web page), "memory" in a document without an address of its own (about:srcdoc, the
 * notebook's frame, or about:blank), where a link's "#..." would resolve against the host.
 */
function historyMode(href) {
  return /^about:/i.test(String(href)) ? "memory" : "url";
}

// --- the query list ---------------------------------------------------------------------

/** B - A of every query on the state's metric (null where either is NA; all without one). */
function differences(data, s) {
  var m = data.metrics.indexOf(s.metric);
  if (m < 0) { return data.queries.map(function () { return null; }); }
  var va = data.values[m][data.systems.indexOf(s.a)];
  var vb = data.values[m][data.systems.indexOf(s.b)];
  var out = new Array(va.length);
  for (var i = 0; i < va.length; i++) {
    out[i] = va[i] === null || vb[i] === null ? null : vb[i] - va[i];
  }
  return out;
}

/** "wins", "losses" or "ties" of B against A for a difference, or null for NA. */
function outcomeOf(diff, greater) {
  if (diff === null || diff === undefined) { return null; }
  if (Math.abs(diff) < 1e-9) { return "ties"; }
  return (diff > 0) === greater ? "wins" : "losses";
}

/**
 * How far B fell behind A for a difference B - A: positive when B is worse (lower on a
 * higher-is-better metric, higher on a lower-is-better one), null for NA.
 */
function fallOf(diff, greater) {
  if (diff === null || diff === undefined) { return null; }
  return greater ? -diff : diff;
}

/**
 * Whether a difference passes the state's delta filter: B worse than A by at least
 * delta.by ("worse"), or better by at least that ("better"); a tie passes neither.
 */
function matchesDelta(delta, diff, greater) {
  if (!delta) { return true; }
  var fall = fallOf(diff, greater);
  if (fall === null) { return false; }
  var gap = delta.dir === "worse" ? fall : -fall;
  return gap > 1e-9 && gap >= delta.by - 1e-9;
}

/** Bins of about 24 round-width bars over the differences (NA left out). */
function binning(diffs) {
  var lo = Infinity, hi = -Infinity;
  diffs.forEach(function (d) { if (d !== null) { lo = Math.min(lo, d); hi = Math.max(hi, d); } });
  if (lo === Infinity) { lo = 0; hi = 0; }
  var span = hi - lo || 1, raw = span / 24;
  var magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
  var step = [1, 2, 2.5, 5, 10].map(function (f) { return f * magnitude; })
    .filter(function (width) { return width >= raw; })[0];
  var start = Math.floor(lo / step + 1e-9) * step;
  var n = Math.max(1, Math.floor((hi - start) / step + 1e-9) + 1);
  return {
    start: start, step: step, n: n,
    index: function (d) {
      return Math.min(n - 1, Math.max(0, Math.floor((d - start) / step + 1e-9)));
    },
    edge: function (i) { return Number((start + i * step).toFixed(10)); }
  };
}

function matchesText(data, i, text) {
  if (!text) { return true; }
  if (data.queries[i].toLowerCase().indexOf(text) >= 0) { return true; }
  var texts = data.query_text;
  return Boolean(texts && texts[i] && texts[i].toLowerCase().indexOf(text) >= 0);
}

function matchesQuadrant(data, s, i) {
  if (!s.quadrant) { return true; }
  var diagnosis = data.diagnosis;
  var code = diagnosis.quadrant[data.systems.indexOf(s.system)][i];
  return s.quadrant === UNCLASSIFIED
    ? code === null : code === diagnosis.quadrants.indexOf(s.quadrant);
}

/**
 * The queries the list shows, as positions in data.queries: `before` passes the text,
 * quadrant and outcome filters, `rows` also the picked bar of the histogram.
 */
function filterQueries(data, s) {
  var greater = data.greater[data.metrics.indexOf(s.metric)];
  if (isLabelFree(data)) { s = Object.assign({}, s, { outcome: null, delta: null, diff: null }); }
  var diffs = differences(data, s), bins = binning(diffs);
  var text = (s.text || "").toLowerCase();
  var picked = s.diff ? bins.index((s.diff[0] + s.diff[1]) / 2) : null;
  var before = [], rows = [];
  for (var i = 0; i < data.queries.length; i++) {
    if (!matchesText(data, i, text) || !matchesQuadrant(data, s, i)) { continue; }
    if (s.outcome && outcomeOf(diffs[i], greater) !== s.outcome) { continue; }
    if (!matchesDelta(s.delta, diffs[i], greater)) { continue; }
    before.push(i);
    if (picked !== null && (diffs[i] === null || bins.index(diffs[i]) !== picked)) { continue; }
    rows.push(i);
  }
  return { diffs: diffs, bins: bins, before: before, rows: rows, greater: greater };
}

/** The histogram's rows: one per (bar, outcome) of the filtered queries (before the bar). */
function histogram(found) {
  var counts = {};
  var names = { wins: "B better", ties: "tie", losses: "A better" };
  found.before.forEach(function (i) {
    var d = found.diffs[i];
    if (d === null) { return; }
    var key = found.bins.index(d) + "|" + outcomeOf(d, found.greater);
    counts[key] = (counts[key] || 0) + 1;
  });
  return Object.keys(counts).map(function (key) {
    var parts = key.split("|"), i = Number(parts[0]);
    return { lo: found.bins.edge(i), hi: found.bins.edge(i + 1), outcome: names[parts[1]],
             count: counts[key] };
  });
}

/**
 * Order query positions by the state's sort: "query", "diff", "fall" (how far B fell behind
 * A: "-fall" lists the largest losses first, whichever way the metric points) or "s<i>"
 * (system i's value), or on a page without labels a contrast of A's and B's top k
 * ("overlap", "jaccard", "rbo", "tau": `contrasts` from queryContrasts), "-" first for
 * descending. NA values go last either way; ties by query id.
 */
function sortRows(data, s, rows, diffs, contrasts) {
  var key = s.sort.replace(/^-/, ""), desc = s.sort.charAt(0) === "-";
  var Q = data.queries, values = null, m = data.metrics.indexOf(s.metric);
  if (key.charAt(0) === "s") {
    values = data.values[m][Number(key.slice(1))];
  }
  var value = function (i) {
    if (key === "query") { return Q[i]; }
    if (key === "fall") { return fallOf(diffs[i], data.greater[m]); }
    if (CONTRAST_KEYS[key]) { return contrasts ? contrasts[i][CONTRAST_KEYS[key]] : null; }
    var v = key === "diff" ? diffs[i] : (values ? values[i] : null);
    return v === undefined ? null : v;
  };
  return rows.slice().sort(function (x, y) {
    var a = value(x), b = value(y);
    if (a === null || b === null) {
      if (a === b) { return x - y; }
      return a === null ? 1 : -1;
    }
    var order = a < b ? -1 : (a > b ? 1 : 0);
    return (desc ? -order : order) || (Q[x] < Q[y] ? -1 : (Q[x] > Q[y] ? 1 : 0));
  });
}

// --- reading aids of the query view -----------------------------------------------------

/** Words too common to mark in a snippet. */
var STOPWORDS = new Set(("a an and are as at be by can do does did for from how in is it its " +
  "of on or that the this to was what when where which who why will with").split(" "));

/** The words of a query worth marking: letters or digits, 3 or more, not a stop word. */
function queryTerms(text) {
  var seen = new Set(), terms = [];
  String(text || "").toLowerCase().split(/[^\p{L}\p{N}]+/u).forEach(function (word) {
    if (word.length >= 3 && !STOPWORDS.has(word) && !seen.has(word)) {
      seen.add(word);
      terms.push(word);
    }
  });
  return terms;
}

/**
 * Split a text into [segment, marked] pairs: a word that starts with a query term is marked
 * whole ("flea" marks "fleas"), case-insensitively; no terms, one unmarked segment.
 */
function highlightParts(text, terms) {
  text = String(text);
  if (!terms.length) { return [[text, false]]; }
  var escaped = terms.map(function (t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); });
  var pattern = new RegExp("(?<![\\p{L}\\p{N}])(?:" + escaped.join("|") + ")[\\p{L}\\p{N}]*", "giu");
  var parts = [], last = 0, match;
  while ((match = pattern.exec(text)) !== null) {
    if (match.index > last) { parts.push([text.slice(last, match.index), false]); }
    parts.push([match[0], true]);
    last = match.index + match[0].length;
  }
  if (last < text.length) { parts.push([text.slice(last), false]); }
  return parts;
}

/** The positions before and after `position` in a list of query positions (null at ends). */
function neighbours(rows, position) {
  var at = rows.indexOf(position);
  if (at < 0) { return { prev: null, next: null, at: -1 }; }
  return { prev: at > 0 ? rows[at - 1] : null,
           next: at + 1 < rows.length ? rows[at + 1] : null, at: at };
}

// --- two rankings without labels --------------------------------------------------------

/** Extrapolated rank-biased overlap over the shorter list (rankset.label_quality.rbo). */
function rbo(first, second, p) {
  var k = Math.min(first.length, second.length);
  if (!k) { return null; }
  var seenFirst = new Set(), seenSecond = new Set(), overlap = 0, total = 0;
  for (var depth = 1; depth <= k; depth++) {
    var x = first[depth - 1], y = second[depth - 1];
    overlap += (seenSecond.has(x) ? 1 : 0) + (seenFirst.has(y) ? 1 : 0) + (x === y ? 1 : 0);
    seenFirst.add(x);
    seenSecond.add(y);
    total += overlap / depth * Math.pow(p, depth);
  }
  return overlap / k * Math.pow(p, k) + (1 - p) / p * total;
}

/** tau_AP of `estimated` against `truth` (rankset.label_quality.tau_ap); null under 2. */
function tauAP(estimated, truth) {
  if (estimated.length < 2) { return null; }
  var position = new Map();
  truth.forEach(function (item, i) { position.set(item, i); });
  var total = 0;
  for (var i = 1; i < estimated.length; i++) {
    var correct = 0;
    for (var j = 0; j < i; j++) {
      if (position.get(estimated[j]) < position.get(estimated[i])) { correct++; }
    }
    total += correct / i;
  }
  return 2 * total / (estimated.length - 1) - 1;
}

/** Overlap, Jaccard, RBO (p = 0.9) and tau_AP (B's order of the shared against A's). */
function contrast(listA, listB) {
  var inA = new Set(listA), inB = new Set(listB);
  var shared = listA.filter(function (d) { return inB.has(d); });
  var union = new Set(listA.concat(listB)).size;
  var sharedB = listB.filter(function (d) { return inA.has(d); });
  return {
    overlap: shared.length,
    jaccard: union ? shared.length / union : null,
    rbo: rbo(listA, listB, 0.9),
    tau_ap: shared.length >= 2 ? tauAP(sharedB, shared) : null
  };
}

/** System s's top k of query q, as document ids. */
function topIds(data, s, q, k) {
  var ids = data.doc_ids[q];
  return data.rankings[s][q].slice(0, k).map(function (d) { return ids[d]; });
}

/** contrast() of systems a's and b's top k (positions in data.systems) for every query. */
function queryContrasts(data, a, b, k) {
  return data.queries.map(function (_, q) {
    return contrast(topIds(data, a, q, k), topIds(data, b, q, k));
  });
}

/** The mean of each contrast field over the queries (NA values left out; null if none). */
function meanContrast(contrasts) {
  var out = {};
  ["overlap", "jaccard", "rbo", "tau_ap"].forEach(function (field) {
    var sum = 0, n = 0;
    contrasts.forEach(function (c) {
      if (c[field] !== null && c[field] !== undefined) { sum += c[field]; n++; }
    });
    out[field] = n ? sum / n : null;
  });
  return out;
}

// --- the history's recorded settings ----------------------------------------------------

/**
 * The recorded keys (options, meta, commit) whose value differs between two entries of
 * data.history.recorded, sorted by key: [{key, before, after}] (null: not recorded).
 */
function settingChanges(before, after) {
  var keys = Object.keys(before.values).concat(Object.keys(after.values).filter(function (k) {
    return !(k in before.values);
  })).sort();
  return keys.filter(function (key) { return before.values[key] !== after.values[key]; })
    .map(function (key) {
      return { key: key, before: key in before.values ? before.values[key] : null,
               after: key in after.values ? after.values[key] : null };
    });
}

/**
 * The changes the History view lists: between the entries named `from` and `to` (their
 * `entry` names), or with `from` empty, each entry against the one before it.
 * [{entry, previous, key, before, after}], in logged order.
 */
function entryChanges(recorded, from, to) {
  var byName = {};
  recorded.forEach(function (r) { byName[r.entry] = r; });
  var pairs = [];
  if (from) {
    if (byName[from] && byName[to]) { pairs.push([byName[from], byName[to]]); }
  } else {
    for (var i = 1; i < recorded.length; i++) { pairs.push([recorded[i - 1], recorded[i]]); }
  }
  var out = [];
  pairs.forEach(function (pair) {
    settingChanges(pair[0], pair[1]).forEach(function (c) {
      out.push({ entry: pair[1].entry, previous: pair[0].entry, key: c.key,
                 before: c.before, after: c.after });
    });
  });
  return out;
}

if (typeof module !== "undefined" && module.exports) {
  module.exports = {
    FORMAT_VERSION: FORMAT_VERSION, PAYLOAD_KEYS: PAYLOAD_KEYS, NA: NA, MINUS: MINUS,
    UNCLASSIFIED: UNCLASSIFIED, OUTCOMES: OUTCOMES, DEFAULT_SORT: DEFAULT_SORT,
    LABEL_FREE_SORT: LABEL_FREE_SORT, CONTRAST_KEYS: CONTRAST_KEYS, isLabelFree: isLabelFree,
    payloadProblem: payloadProblem, contextOf: contextOf,
    fmt: fmt, count: count, rankText: rankText, interval: interval,
    otherThan: otherThan, defaultState: defaultState, parseFragment: parseFragment,
    encodeValue: encodeValue, formatFragment: formatFragment, fragmentOf: fragmentOf,
    historyMode: historyMode,
    differences: differences, outcomeOf: outcomeOf, fallOf: fallOf, matchesDelta: matchesDelta,
    binning: binning,
    matchesText: matchesText, matchesQuadrant: matchesQuadrant, filterQueries: filterQueries,
    histogram: histogram, sortRows: sortRows,
    queryTerms: queryTerms, highlightParts: highlightParts, neighbours: neighbours,
    rbo: rbo, tauAP: tauAP, contrast: contrast, topIds: topIds,
    queryContrasts: queryContrasts, meanContrast: meanContrast,
    settingChanges: settingChanges, entryChanges: entryChanges
  };
}
