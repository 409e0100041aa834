// The dashboard's pure functions under node's own test runner: `node --test tests/pages/js/`
// (tests/pages/test_script_node.py runs this from pytest).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const core = require(path.join(__dirname, "../../../src/rankset/pages/assets/dashboard_core.js"));

const NA = core.NA;
const MINUS = "\u2212";

/** A small payload: 5 queries, 3 systems, 2 metrics, a diagnosis. */
function payload(overrides) {
  const data = {
    version: core.FORMAT_VERSION, title: "t", snippet: 100, seed: 0, n_resamples: 10,
    systems: ["bm25", "rerank", "dense"],
    metrics: ["ndcg@10", "unj@10"],
    greater: [true, false],
    curve_of: ["ndcg", null],
    baseline: "bm25",
    k: 10,
    depth: 20,
    relevance_level: 1,
    n_queries_total: 5,
    sample: { sampled: false, n_extremes: 0, max_bytes: 1000 },
    queries: ["q1", "q2", "q3", "Q10", "odd & id"],
    query_text: ["cats", "Dogs and cats", null, "fish", "birds"],
    values: [
      // ndcg@10: per system, per query
      [[0.1, 0.5, null, 0.3, 0.2], [0.4, 0.5, 0.2, null, 0.1], [0.2, 0.2, 0.2, 0.2, 0.2]],
      // unj@10 (lower is better)
      [[0.5, 0.1, 0.0, 0.2, 0.4], [0.2, 0.1, 0.3, 0.1, 0.6], [0, 0, 0, 0, 0]]
    ],
    doc_ids: [], grades: [], rankings: [], texts: null, summary: [], compare: {},
    curves: null,
    diagnosis: {
      k: 10, quadrants: ["healthy", "retrieval miss", "reranking miss", "both"],
      thresholds: {}, counts: [],
      quadrant: [[0, 1, null, 2, 0], [0, 0, 3, null, 1], [0, 0, 0, 0, 0]],
      proc: [], pct_proc: []
    },
    history: null,
    suite: null,
    judges: null,
    deep_ranks: null,
    costs: null
  };
  return Object.assign(data, overrides || {});
}

function ctxOf(overrides) { return core.contextOf(payload(overrides)); }

// --- the data contract ---------------------------------------------------------------------

test("PAYLOAD_KEYS names every key once", () => {
  assert.equal(new Set(core.PAYLOAD_KEYS).size, core.PAYLOAD_KEYS.length);
  assert.deepEqual(Object.keys(payload()).sort(), [...core.PAYLOAD_KEYS].sort());
});

test("payloadProblem names missing keys and another version", () => {
  assert.equal(core.payloadProblem(payload()), null);
  const data = payload();
  delete data.rankings;
  delete data.suite;
  assert.equal(core.payloadProblem(data), "the page's data lacks rankings, suite");
  assert.match(core.payloadProblem(payload({ version: 99 })), /layout version 99/);
  assert.equal(core.payloadProblem(null), "the page holds no data");
});

test("contextOf offers the views and quadrants the data has", () => {
  assert.deepEqual(ctxOf().views, ["overview", "queries", "query"]);
  assert.deepEqual(ctxOf({ history: {}, suite: {} }).views,
    ["overview", "queries", "query", "history", "collections"]);
  assert.deepEqual(ctxOf({ judges: {} }).views, ["overview", "queries", "query", "judges"]);
  assert.equal(core.parseFragment("#view=judges&metric=ap", ctxOf({ judges: {} })).view, "judges");
  assert.equal(core.parseFragment("#view=judges", ctxOf()).view, "overview");
  assert.deepEqual(ctxOf().quadrants.slice(-1), [core.UNCLASSIFIED]);
  assert.deepEqual(ctxOf({ diagnosis: null }).quadrants, []);
});

// --- the fragment ----------------------------------------------------------------------------

test("an empty fragment gives the defaults", () => {
  const s = core.parseFragment("", ctxOf());
  assert.deepEqual(s, core.defaultState(ctxOf()));
  assert.equal(s.view, "overview");
  assert.equal(s.a, "bm25");
  assert.equal(s.b, "rerank");
  assert.equal(s.metric, "ndcg@10");
  assert.equal(s.sort, "-diff");
});

test("an old link opens the query view and writes back the same", () => {
  const ctx = ctxOf({ systems: ["bm25", "rerank"] });
  const old = "#query=q003&a=bm25&b=rerank&metric=ndcg@10&k=10";
  const s = core.parseFragment(old, ctx);
  assert.equal(s.view, "query");
  assert.equal(s.query, "q003");
  assert.equal(s.metric, "ndcg@10");
  assert.equal(s.k, 10);
  assert.equal(core.formatFragment(s, ctx), old);
  // without the "#", as location.hash may come
  assert.deepEqual(core.parseFragment(old.slice(1), ctx), s);
});

test("every key of the fragment round-trips", () => {
  const ctx = ctxOf({ history: {} });
  const s = Object.assign(core.defaultState(ctx), {
    view: "history", query: "q2", a: "dense", b: "bm25", metric: "unj@10", k: 3,
    baseline: "rerank", text: "cats & dogs", quadrant: "reranking miss", system: "rerank",
    outcome: "losses", diff: [-0.25, 0.5], sort: "-s2"
  });
  const hash = core.formatFragment(s, ctx);
  assert.deepEqual(core.parseFragment(hash, ctx), s);
  assert.match(hash, /^#query=q2&a=dense&b=bm25&metric=unj@10&k=3&view=history&/);
  assert.match(hash, /&diff=-0\.25,0\.5&sort=-s2$/);
});

test("odd query ids survive the fragment", () => {
  const ctx = ctxOf();
  const odd = [
    "a&b=c", "x#y", "100%", "1+1", "two words", "a/b?c", "ndcg@10,k:5", "é漢字🙂",
    "</script><img src=x>", "'\"`", "q=", "&", "=", "#", "+", "%2F", "\u2028"
  ];
  for (const id of odd) {
    const s = Object.assign(core.defaultState(ctx), { query: id, view: "query" });
    const hash = core.formatFragment(s, ctx);
    assert.equal(core.parseFragment(hash, ctx).query, id, hash);
    assert.equal(hash.indexOf("<"), -1, hash);
    assert.equal(hash.indexOf(" "), -1, hash);
    assert.equal(hash.split("#").length, 2, hash);
  }
  // odd system names and filter text too
  const names = ["sys & co", "a=b", "x#1"];
  const named = ctxOf({ systems: names, baseline: names[0] });
  const s = Object.assign(core.defaultState(named), { a: "x#1", b: "a=b", text: "50% + more" });
  assert.deepEqual(core.parseFragment(core.formatFragment(s, named), named), s);
});

test("encodeValue keeps @ , and : readable", () => {
  assert.equal(core.encodeValue("ndcg@10"), "ndcg@10");
  assert.equal(core.encodeValue("-0.1,0.2"), "-0.1,0.2");
  assert.equal(core.encodeValue("P(rel=2)@10"), "P(rel%3D2)@10");
  assert.equal(core.encodeValue("a b&c"), "a%20b%26c");
});

test("what the data lacks falls back to the defaults", () => {
  const ctx = ctxOf();
  const s = core.parseFragment(
    "#a=nope&b=gone&metric=map&k=500&view=history&quadrant=lost&outcome=maybe&diff=3,1" +
      "&sort=bogus&baseline=x",
    ctx
  );
  assert.equal(s.a, "bm25");
  assert.equal(s.b, "rerank");
  assert.equal(s.metric, "ndcg@10");
  assert.equal(s.k, 20); // clamped to the depth
  assert.equal(s.view, "overview"); // no history in this data
  assert.equal(s.quadrant, null);
  assert.equal(s.outcome, null);
  assert.equal(s.diff, null);
  assert.equal(s.sort, "-diff");
  assert.equal(s.baseline, "bm25");
  assert.equal(core.parseFragment("#k=0", ctx).k, 1);
  assert.equal(core.parseFragment("#k=abc", ctx).k, 10);
  // B follows A when only A is given; the quadrant's system defaults to A
  assert.equal(core.parseFragment("#a=rerank", ctx).b, "bm25");
  const q = core.parseFragment("#a=dense&quadrant=unclassified", ctx);
  assert.equal(q.quadrant, "unclassified");
  assert.equal(q.system, "dense");
  assert.equal(core.parseFragment("#query=", ctx).query, null);
});

test("fragmentOf and historyMode", () => {
  assert.equal(core.fragmentOf("#query=q1"), "#query=q1");
  assert.equal(core.fragmentOf("https://example.org/#x"), null);
  assert.equal(core.fragmentOf(null), null);
  assert.equal(core.historyMode("about:srcdoc"), "memory");
  assert.equal(core.historyMode("about:blank"), "memory");
  assert.equal(core.historyMode("file:///tmp/board.html#view=queries"), "url");
  assert.equal(core.historyMode("http://localhost:8888/lab"), "url");
});

// --- filters ---------------------------------------------------------------------------------

function state(changes) {
  return Object.assign(core.defaultState(ctxOf()), changes || {});
}

test("differences and outcomes follow the metric's direction", () => {
  const data = payload();
  assert.deepEqual(core.differences(data, state()).map((d) => d === null ? null : +d.toFixed(6)),
    [0.3, 0, null, null, -0.1]);
  assert.equal(core.outcomeOf(0.1, true), "wins");
  assert.equal(core.outcomeOf(0.1, false), "losses");
  assert.equal(core.outcomeOf(-1e-12, true), "ties");
  assert.equal(core.outcomeOf(null, true), null);
});

test("the text filter reads ids and texts, case-insensitively", () => {
  const data = payload();
  assert.deepEqual(core.filterQueries(data, state({ text: "CATS" })).rows, [0, 1]);
  assert.deepEqual(core.filterQueries(data, state({ text: "q1" })).rows, [0, 3]);
  assert.deepEqual(core.filterQueries(data, state({ text: "& id" })).rows, [4]);
  assert.deepEqual(core.filterQueries(payload({ query_text: null }),
    state({ text: "cats" })).rows, []);
});

test("the quadrant filter reads the picked system's quadrants", () => {
  const data = payload();
  const rows = (quadrant, system) =>
    core.filterQueries(data, state({ quadrant: quadrant, system: system })).rows;
  assert.deepEqual(rows("healthy", "bm25"), [0, 4]);
  assert.deepEqual(rows("reranking miss", "bm25"), [3]);
  assert.deepEqual(rows("unclassified", "bm25"), [2]);
  assert.deepEqual(rows("both", "rerank"), [2]);
  assert.deepEqual(rows("unclassified", "rerank"), [3]);
});

test("the outcome filter and a histogram bar narrow the list", () => {
  const data = payload();
  assert.deepEqual(core.filterQueries(data, state({ outcome: "wins" })).rows, [0]);
  assert.deepEqual(core.filterQueries(data, state({ outcome: "losses" })).rows, [4]);
  assert.deepEqual(core.filterQueries(data, state({ outcome: "ties" })).rows, [1]);
  const all = core.filterQueries(data, state());
  assert.deepEqual(all.rows, [0, 1, 2, 3, 4]);
  const bar = all.bins.index(0.3);
  const edges = [all.bins.edge(bar), all.bins.edge(bar + 1)];
  const picked = core.filterQueries(data, state({ diff: edges }));
  assert.deepEqual(picked.rows, [0]);
  assert.deepEqual(picked.before, [0, 1, 2, 3, 4]); // the bar filters after the others
  // lower is better: B's higher unjudged share is a loss
  assert.deepEqual(core.filterQueries(data, state({ metric: "unj@10", outcome: "losses" })).rows,
    [2, 4]);
});

test("the histogram counts every query with a difference once", () => {
  const found = core.filterQueries(payload(), state());
  const rows = core.histogram(found);
  assert.equal(rows.reduce((sum, row) => sum + row.count, 0), 3);
  for (const row of rows) {
    assert.ok(row.lo < row.hi);
    assert.ok(["B better", "A better", "tie"].includes(row.outcome));
  }
});

test("binning uses round widths and keeps every value in a bin", () => {
  const bins = core.binning([-0.3, 0.05, 0.9, null]);
  assert.ok([0.05, 0.1].includes(bins.step));
  assert.ok(bins.edge(0) <= -0.3);
  assert.ok(bins.edge(bins.n) >= 0.9);
  assert.equal(bins.index(0.9), bins.n - 1);
  const none = core.binning([null, null]);
  assert.equal(none.n, 1);
});

// --- sorting -----------------------------------------------------------------------------------

test("sorting puts NA last both ways, ties by query id", () => {
  const data = payload();
  const diffs = core.differences(data, state());
  const order = (sort) => core.sortRows(data, state({ sort: sort }), [0, 1, 2, 3, 4], diffs)
    .map((i) => data.queries[i]);
  assert.deepEqual(order("-diff"), ["q1", "q2", "odd & id", "q3", "Q10"]);
  assert.deepEqual(order("diff"), ["odd & id", "q2", "q1", "q3", "Q10"]);
  // bm25's ndcg@10: q3 is NA
  assert.deepEqual(order("s0"), ["q1", "odd & id", "Q10", "q2", "q3"]);
  assert.deepEqual(order("-s0"), ["q2", "Q10", "odd & id", "q1", "q3"]);
  // equal values (dense is 0.2 everywhere): by query id
  assert.deepEqual(order("s2"), ["Q10", "odd & id", "q1", "q2", "q3"]);
  assert.deepEqual(order("-s2"), ["Q10", "odd & id", "q1", "q2", "q3"]);
  assert.deepEqual(order("query"), ["Q10", "odd & id", "q1", "q2", "q3"]);
  assert.deepEqual(order("-query"), ["q3", "q2", "q1", "odd & id", "Q10"]);
});

test("sorting leaves its input alone", () => {
  const data = payload();
  const rows = [4, 3, 2, 1, 0];
  core.sortRows(data, state({ sort: "query" }), rows, core.differences(data, state()));
  assert.deepEqual(rows, [4, 3, 2, 1, 0]);
});

// --- numbers -----------------------------------------------------------------------------------

test("fmt shows four decimals, a true minus, NA as a dash", () => {
  assert.equal(core.fmt(0.12345), "0.1235"); // the double just above 0.12345
  assert.equal(core.fmt(0.99996), "1.0000");
  assert.equal(core.fmt(0.5), "0.5000");
  assert.equal(core.fmt(-0.5), MINUS + "0.5000");
  assert.equal(core.fmt(0.5, true), "+0.5000");
  assert.equal(core.fmt(-0.5, true), MINUS + "0.5000");
  assert.equal(core.fmt(0.00001, true), "0.0000"); // no sign on what shows as zero
  assert.equal(core.fmt(-0.00001, true), "0.0000");
  assert.equal(core.fmt(null), NA);
  assert.equal(core.fmt(undefined), NA);
  assert.equal(core.fmt(NaN), NA);
  assert.equal(core.fmt(Infinity), NA);
  assert.equal(core.fmt(0), "0.0000");
});

test("count, rankText and interval", () => {
  assert.equal(core.count(1234567), "1,234,567");
  assert.equal(core.count(0), "0");
  assert.equal(core.rankText(2), "2");
  assert.equal(core.rankText(1.5), "1.5");
  assert.equal(core.rankText(1.3333), "1.33");
  assert.equal(core.rankText(null), NA);
  assert.equal(core.interval(0.1, 0.2, core.fmt), "[0.1000, 0.2000]");
  assert.equal(core.interval(null, 0.2, core.fmt), NA);
  assert.equal(core.interval(1, 2.5, core.rankText), "[1, 2.5]");
});

// --- two rankings without labels ----------------------------------------------------------------

test("rbo and tau_AP at their ends", () => {
  const list = ["a", "b", "c", "d"];
  assert.ok(Math.abs(core.rbo(list, list, 0.9) - 1) < 1e-12);
  assert.equal(core.rbo([], list, 0.9), null);
  assert.equal(core.rbo(["a", "b"], ["c", "d"], 0.9), 0);
  assert.equal(core.tauAP(list, list), 1);
  assert.equal(core.tauAP([...list].reverse(), list), -1);
  assert.equal(core.tauAP(["a"], ["a"]), null);
});

test("contrast of two top k", () => {
  const c = core.contrast(["a", "b", "c"], ["c", "b", "x"]);
  assert.equal(c.overlap, 2);
  assert.equal(c.jaccard, 2 / 4);
  assert.equal(c.tau_ap, -1); // B orders the shared c, b against A's b, c
  assert.ok(c.rbo > 0 && c.rbo < 1);
  const none = core.contrast([], []);
  assert.equal(none.jaccard, null);
  assert.equal(none.rbo, null);
  assert.equal(none.tau_ap, null);
});

// --- regressions: the delta filter and the largest losses first ---------------------------

test("the delta filter keeps B's losses (or wins) of at least delta, the metric's way", () => {
  const data = payload();
  const rows = (delta, metric) =>
    core.filterQueries(data, state({ delta: delta, metric: metric || "ndcg@10" })).rows;
  // ndcg@10, B - A: [0.3, 0, NA, NA, -0.1]
  assert.deepEqual(rows({ dir: "worse", by: 0.05 }), [4]);
  assert.deepEqual(rows({ dir: "worse", by: 0.1 }), [4]); // "at least": 0.1 itself passes
  assert.deepEqual(rows({ dir: "worse", by: 0.11 }), []);
  assert.deepEqual(rows({ dir: "better", by: 0.3 }), [0]);
  assert.deepEqual(rows({ dir: "better", by: 0 }), [0]); // a tie is neither
  assert.deepEqual(rows({ dir: "worse", by: 0 }), [4]);
  // unj@10 is better lower; B - A: [-0.3, 0, 0.3, -0.1, 0.2]
  assert.deepEqual(rows({ dir: "worse", by: 0.25 }, "unj@10"), [2]);
  assert.deepEqual(rows({ dir: "worse", by: 0.1 }, "unj@10"), [2, 4]);
  assert.deepEqual(rows({ dir: "better", by: 0.1 }, "unj@10"), [0, 3]);
  // it filters before the histogram's bar, as the outcome does
  const found = core.filterQueries(data, state({ delta: { dir: "worse", by: 0.05 } }));
  assert.deepEqual(found.before, [4]);
  assert.equal(core.matchesDelta(null, null, true), true);
  assert.equal(core.fallOf(0.2, true), -0.2);
  assert.equal(core.fallOf(0.2, false), 0.2);
  assert.equal(core.fallOf(null, false), null);
});

test("sorting by fall lists the largest losses first on either kind of metric", () => {
  const data = payload();
  const order = (metric) => core.sortRows(data, state({ metric: metric, sort: "-fall" }),
    [0, 1, 2, 3, 4], core.differences(data, state({ metric: metric })));
  assert.deepEqual(order("ndcg@10"), [4, 1, 0, 2, 3]); // falls 0.1, 0, -0.3; NA last
  assert.deepEqual(order("unj@10"), [2, 4, 1, 3, 0]); // falls 0.3, 0.2, 0, -0.1, -0.3
});

test("the delta filter and the fall sort live in the fragment; old links still open", () => {
  const ctx = ctxOf();
  const s = core.parseFragment("#view=queries&a=bm25&b=rerank&delta=worse:0.05&sort=-fall", ctx);
  assert.deepEqual(s.delta, { dir: "worse", by: 0.05 });
  assert.equal(s.sort, "-fall");
  const hash = core.formatFragment(s, ctx);
  assert.match(hash, /&delta=worse:0\.05&sort=-fall$/);
  assert.deepEqual(core.parseFragment(hash, ctx), s);
  for (const bad of ["worse", "down:0.1", "worse:-1", "better:x", ""]) {
    assert.equal(core.parseFragment("#view=queries&delta=" + bad, ctx).delta, null, bad);
  }
  assert.deepEqual(core.parseFragment("#delta=better:1e-3", ctx).delta, { dir: "better", by: 0.001 });
  // a link written before the filter existed opens as it did, and writes back the same
  const old = "#a=bm25&b=rerank&metric=ndcg@10&k=10&view=queries&outcome=losses";
  assert.equal(core.formatFragment(core.parseFragment(old, ctx), ctx), old);
});

// --- reading aids ------------------------------------------------------------------------

test("queryTerms keeps the words worth marking, once each", () => {
  assert.deepEqual(core.queryTerms("How long is the life cycle of a FLEA? flea"),
    ["long", "life", "cycle", "flea"]);
  assert.deepEqual(core.queryTerms(null), []);
  assert.deepEqual(core.queryTerms("café au lait 42x"), ["café", "lait", "42x"]);
});

test("highlightParts marks whole words that start with a term, and nothing else", () => {
  const parts = core.highlightParts("A flea; Fleas jump, reflea. Life-cycle!", ["flea", "life", "cycle"]);
  assert.deepEqual(parts, [["A ", false], ["flea", true], ["; ", false], ["Fleas", true],
    [" jump, reflea. ", false], ["Life", true], ["-", false], ["cycle", true], ["!", false]]);
  assert.equal(parts.map((p) => p[0]).join(""), "A flea; Fleas jump, reflea. Life-cycle!");
  assert.deepEqual(core.highlightParts("no terms", []), [["no terms", false]]);
  // a term with a regular expression's characters is taken literally
  assert.deepEqual(core.highlightParts("c++ and c", ["c++"]), [["c++", true], [" and c", false]]);
});

test("neighbours steps through the list as it is ordered", () => {
  assert.deepEqual(core.neighbours([4, 1, 7], 1), { prev: 4, next: 7, at: 1 });
  assert.deepEqual(core.neighbours([4, 1, 7], 4), { prev: null, next: 1, at: 0 });
  assert.deepEqual(core.neighbours([4, 1, 7], 7), { prev: 1, next: null, at: 2 });
  assert.deepEqual(core.neighbours([4], 9), { prev: null, next: null, at: -1 });
});

// --- a page without labels ---------------------------------------------------------------------

/** No labels: 4 queries, 2 systems, no metric; rankings only. */
function labelFree() {
  return payload({
    systems: ["a", "b"], metrics: [], greater: [], curve_of: [], baseline: "a", k: 2, depth: 2,
    n_queries_total: 4, queries: ["x1", "x2", "x3", "x4"], query_text: null, values: [],
    doc_ids: [["a", "b"], ["a", "b", "c", "d"], ["a", "b"], ["e"]],
    grades: [[null, null], [null, null, null, null], [null, null], [null]],
    // identical; disjoint; swapped; A retrieved nothing
    rankings: [[[0, 1], [0, 1], [0, 1], []], [[0, 1], [2, 3], [1, 0], [0]]],
    diagnosis: null
  });
}

test("a page without labels opens sorted by RBO, least similar first, without a metric", () => {
  const data = labelFree(), ctx = core.contextOf(data);
  assert.equal(core.isLabelFree(data), true);
  assert.equal(core.isLabelFree(payload()), false);
  const s = core.defaultState(ctx);
  assert.equal(s.metric, null);
  assert.equal(s.sort, core.LABEL_FREE_SORT);
  assert.equal(core.formatFragment(s, ctx), "#a=a&b=b&k=2&view=overview");
  for (const sort of ["rbo", "-rbo", "overlap", "-jaccard", "tau", "query"]) {
    const parsed = core.parseFragment("#view=queries&sort=" + sort, ctx);
    assert.equal(parsed.sort, sort);
    assert.equal(core.parseFragment(core.formatFragment(parsed, ctx), ctx).sort, sort);
  }
  // a metric's orders and filters mean nothing here; a labelled page keeps its own
  const old = core.parseFragment("#sort=-diff&outcome=wins&delta=worse:0.1&metric=ap", ctx);
  assert.equal(old.sort, "rbo");
  assert.equal(old.outcome, null);
  assert.equal(old.delta, null);
  assert.equal(old.metric, null);
  assert.equal(core.parseFragment("#sort=rbo", ctxOf()).sort, core.DEFAULT_SORT);
  assert.equal(core.parseFragment("#sort=-diff", ctxOf()).sort, "-diff");
});

test("queryContrasts, sortRows and meanContrast on a page without labels", () => {
  const data = labelFree();
  assert.deepEqual(core.topIds(data, 1, 1, 2), ["c", "d"]);
  assert.deepEqual(core.topIds(data, 1, 2, 1), ["b"]);
  const c = core.queryContrasts(data, 0, 1, 2);
  assert.deepEqual(c.map((x) => x.overlap), [2, 0, 2, 0]);
  assert.ok(Math.abs(c[0].rbo - 1) < 1e-12);
  assert.equal(c[1].rbo, 0);
  // swapped pair, by hand: X_1 = 0, X_2 = 2; 1 * 0.81 + (0.1 / 0.9) * (2 / 2 * 0.81) = 0.9
  assert.ok(Math.abs(c[2].rbo - 0.9) < 1e-12);
  assert.equal(c[2].tau_ap, -1);
  assert.equal(c[3].rbo, null);
  const found = core.filterQueries(data, core.defaultState(core.contextOf(data)));
  assert.deepEqual(found.rows, [0, 1, 2, 3]);
  const order = (sort) => core.sortRows(data, { sort: sort }, found.rows, found.diffs, c)
    .map((i) => data.queries[i]);
  assert.deepEqual(order("rbo"), ["x2", "x3", "x1", "x4"]); // NA last
  assert.deepEqual(order("-rbo"), ["x1", "x3", "x2", "x4"]);
  assert.deepEqual(order("overlap"), ["x2", "x4", "x1", "x3"]); // ties by query id
  assert.deepEqual(order("-tau"), ["x1", "x3", "x2", "x4"]);
  assert.deepEqual(order("jaccard"), ["x2", "x4", "x1", "x3"]); // x4: 0 of 1
  const mean = core.meanContrast(c);
  assert.equal(mean.overlap, 1);
  assert.ok(Math.abs(mean.rbo - 1.9 / 3) < 1e-12);
  assert.equal(core.meanContrast([]).rbo, null);
});

// --- the history's recorded settings -------------------------------------------------------

test("entryChanges lists only the keys that changed, consecutive or between two picked", () => {
  const recorded = [
    { entry: "main@a", values: { "option.k": "10", "meta.model": "\"x\"" } },
    { entry: "main@b", values: { "option.k": "10", "meta.model": "\"x\"" } },
    { entry: "exp", values: { "option.k": "20", "git_commit": "\"abc\"" } }
  ];
  // consecutive: a -> b changed nothing; b -> exp: k, model dropped, commit added
  assert.deepEqual(core.entryChanges(recorded, "", "exp"), [
    { entry: "exp", previous: "main@b", key: "git_commit", before: null, after: "\"abc\"" },
    { entry: "exp", previous: "main@b", key: "meta.model", before: "\"x\"", after: null },
    { entry: "exp", previous: "main@b", key: "option.k", before: "10", after: "20" }
  ]);
  // two picked entries, either way round; an entry against itself: nothing
  assert.deepEqual(core.entryChanges(recorded, "exp", "main@a").map((c) => c.key),
    ["git_commit", "meta.model", "option.k"]);
  assert.equal(core.entryChanges(recorded, "exp", "main@a")[2].before, "20");
  assert.deepEqual(core.entryChanges(recorded, "main@a", "main@b"), []);
  assert.deepEqual(core.entryChanges(recorded, "main@a", "gone"), []);
});
