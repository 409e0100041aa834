"""trec_eval 10.0's command line: its options, measure table and ``.params`` syntax.

The measure table follows ``measures.c`` (its order is the output's order); each row says
how trec_eval prints the measure and which rankset metric computes it.
"""

from __future__ import annotations

import getopt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankset.errors import RanksetError

__all__ = [
    "GROUPS",
    "JG_PREFIX",
    "MEASURE_TABLE",
    "ONLY_IN_10",
    "PREFS",
    "PREFS_PREFIX",
    "REL_FORMATS",
    "USAGE",
    "VERSIONS",
    "Column",
    "Measure",
    "Options",
    "TrecEvalError",
    "atof",
    "atol",
    "parse_command_line",
    "plan_columns",
    "read_file_bytes",
    "read_label_fields",
]

USAGE = (
    "Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file\n"
    "   -h: Give full help information, including other options\n"
    "   -q: In addition to summary evaluation, give evaluation for each query\n"
    "   -m: calculate and print measures indicated by 'measure'\n"
    "       ('-m all_qrels' prints all qrels measures, '-m official' is default)\n"
)
_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: trec_eval's 14 preference measures, in its table's order.
PREFS = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
#: The label formats of -R; each measure reads one (runid and num_q read any).
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
#: The prefix of the rankset metric of a judgment-group measure's column.
JG_PREFIX = "avgjg:"
#: The prefix of a preference measure's column (computed by _trec_eval_prefs, not rankset).
PREFS_PREFIX = "prefs:"
_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


class TrecEvalError(RanksetError):
    """A trec_eval failure: its message lines for stderr and its exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Measure:
    """One row of trec_eval's measure table and how rankset computes it.

    ``kind``: ``runid``, ``num_q``, ``long`` (a count, summed), ``double`` (averaged),
    ``geometric`` (summary only), ``cut_long`` / ``cut_double`` (one value per cutoff),
    ``param`` (one value; parameters change its printed name) and ``relstring``.
    ``metric`` spells the rankset metric of one cutoff or of the parameter text.
    """

    name: str
    kind: str
    metric: Callable[[str], str] | None = None
    defaults: tuple[float, ...] = ()


def _fixed(name: str) -> Callable[[str], str]:
    return lambda _: name


def _utility_metric(params: str, n_docs: int = 0) -> str:
    coefficients = [atof(part) for part in (params or "1,-1,0,0").split(",")]
    if len(coefficients) != 4:  # trec_eval finds out when it scores the first query
        msg = (
            "trec_eval.calc_utility: improper number of coefficients\n"
            "trec_eval: Can't calculate measure 'utility'"
        )
        raise TrecEvalError(msg, 4)
    a, b, c, d = coefficients
    return f"utility(a={a!r},b={b!r},c={c!r},d={d!r},n_docs={n_docs})"


#: The measures whose parameters are a gain map (trec_eval's setup_gains).
_GAIN_MAPS = frozenset({"G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg"})


def _init_error(message: str, name: str) -> TrecEvalError:
    """Refuse parameters trec_eval cannot use: its message, then it stops (status 2)."""
    return TrecEvalError(f"{message}\ntrec_eval: Cannot initialize measure '{name}'", 2)


def _pairs(name: str, params: str) -> list[tuple[str, float]]:
    """trec_eval's ``name=value,...`` parameters (``get_param_pairs``), values as ``atof``.

    Malformed as trec_eval judges it: the text must end in a ``name=value`` pair, with no
    empty item and no second ``=`` in one item.
    """
    last = ","
    for char in params:
        if char == ",":
            if last == ",":
                break
            last = ","
        elif char == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if last != "=":
        raise _init_error(f"trec_eval: malformed pair parameters in '{params}'", name)
    pairs = []
    for part in params.split(","):
        key, _, value = part.partition("=")
        pairs.append((key, atof(value)))
    return pairs


def _pair_metric(base: str) -> Callable[[str], str]:
    """Rbp and rbp_resid: ``p=value`` (the last one counts); other names are ignored."""

    def metric(params: str) -> str:
        if not params:
            return base
        persistence = [value for key, value in _pairs(base, params) if key == "p"]
        return f"{base}(p={persistence[-1]!r})" if persistence else base

    return metric


def _set_f_metric(params: str) -> str:
    return f"set_f(x={atof(params.split(',')[0])!r})" if params else "set_f"


def _gain_metric(base: str, name: str) -> Callable[[str], str]:
    """trec_eval's gain pairs ``1=3,2=9`` as rankset's ``gains=1:3;2:9``.

    A pair whose name is not an integer (``x=3``) is ignored, as 10.0's ``setup_gains``
    ignores it, and the first pair of a level counts. A gain for a negative level would
    reach the retrieved documents outside the labels, which rankset's evaluation does
    not see: refused rather than printed without them.
    """

    def metric(params: str) -> str:
        if not params:
            return base
        pairs = _pairs(name, params)
        levels: dict[int, float] = {}
        for key, gain in pairs:
            if re.fullmatch(r"[+-]?\d+", key):
                levels.setdefault(int(key), gain)
        if any(level < 0 for level in levels):
            msg = (
                f"rankset trec_eval: {name}.{params}: a gain for a negative level (unjudged "
                "documents) is not supported"
            )
            raise TrecEvalError(msg, 1)
        if not levels:
            return base
        gains = ";".join(f"{level}:{gain!r}" for level, gain in levels.items())
        return f"{base}(gains={gains})"

    return metric


def _points_metric(params: str) -> str:
    """11pt_avg's own recall levels (``atof``), ascending (10.0 mis-averages others)."""
    if not params:
        return "iprec_avg"
    points = [atof(part) for part in params.split(",")]
    if points != sorted(points):
        msg = (
            f"rankset trec_eval: 11pt_avg.{params}: give the recall levels in ascending order "
            "(trec_eval walks them from the last down and mis-averages others)"
        )
        raise TrecEvalError(msg, 1)
    return f"iprec_avg(points={';'.join(repr(point) for point in points)})"


#: trec_eval 10.0's measure table, in its order (``measures.c``), for the measures of
#: ``all_trec``; ``metric`` is None where rankset has no counterpart yet.
MEASURE_TABLE: tuple[Measure, ...] = (
    Measure("runid", "runid"),
    Measure("num_q", "num_q"),
    Measure("num_ret", "long", _fixed("num_ret")),
    Measure("num_rel", "long", _fixed("num_rel")),
    Measure("num_rel_ret", "long", _fixed("num_rel_ret")),
    Measure("map", "double", _fixed("ap")),
    Measure("gm_map", "geometric", _fixed("gm_map")),
    Measure("Rprec", "double", _fixed("rprec")),
    Measure("bpref", "double", _fixed("bpref")),
    Measure("recip_rank", "double", _fixed("rr")),
    Measure("iprec_at_recall", "cut_double", lambda r: f"iprec_at_recall(recall={r})", _POINTS),
    Measure("P", "cut_long", lambda k: f"precision@{k}", _CUTS),
    Measure("relstring", "relstring", None, (10,)),
    Measure("recall", "cut_long", lambda k: f"recall@{k}", _CUTS),
    Measure("infAP", "double", _fixed("infap")),
    Measure("gm_bpref", "geometric", _fixed("gm_bpref")),
    Measure("Rprec_mult", "cut_double", lambda m: f"rprec_mult(mult={m})", _MULTS),
    Measure("utility", "param", _utility_metric),
    Measure("11pt_avg", "param", _points_metric),
    Measure("binG", "double", _fixed("bing")),
    Measure("G", "param", _gain_metric("g", "G")),
    Measure("dcg", "param", _gain_metric("dcg", "dcg")),
    Measure("ideal_dcg", "param", _gain_metric("ideal_dcg", "ideal_dcg")),
    Measure("ndcg", "param", _gain_metric("ndcg", "ndcg")),
    Measure("ndcg_rel", "param", _gain_metric("ndcg_rel", "ndcg_rel")),
    Measure("Rndcg", "param", _gain_metric("rndcg", "Rndcg")),
    Measure("ndcg_cut", "cut_long", lambda k: f"ndcg@{k}", _CUTS),
    Measure("map_cut", "cut_long", lambda k: f"ap@{k}", _CUTS),
    Measure("relative_P", "cut_long", lambda k: f"relative_p@{k}", _CUTS),
    Measure("success", "cut_long", lambda k: f"hit@{k}", (1, 5, 10)),
    Measure("set_P", "double", _fixed("set_p")),
    Measure("set_relative_P", "double", _fixed("set_relative_p")),
    Measure("set_recall", "double", _fixed("set_recall")),
    Measure("set_map", "double", _fixed("set_map")),
    Measure("set_F", "param", _set_f_metric),
    Measure("num_nonrel_judged_ret", "long", _fixed("num_nonrel_judged_ret")),
    # preference measures (-R prefs, -R qrels_prefs): rankset.compat.trec_eval._prefs
    *(
        Measure(name, "prefs_long" if "num_prefs" in name else "prefs", _fixed(name))
        for name in PREFS
    ),
    # judgment-group measures (-R qrels_jg): the value over each group, averaged
    Measure("map_avgjg", "jg_double", _fixed("ap")),
    Measure("P_avgjg", "jg_cut_long", lambda k: f"precision@{k}", _CUTS),
    Measure("Rprec_mult_avgjg", "jg_cut_double", lambda m: f"rprec_mult(mult={m})", _MULTS),
    Measure("yaap", "double", _fixed("yaap")),
    Measure("rbp", "param", _pair_metric("rbp")),
    Measure("rbp_resid", "param", _pair_metric("rbp_resid")),
    Measure("unj", "cut_long", lambda k: f"unj@{k}", (5, 10, 20)),
)
_BY_NAME = {measure.name: measure for measure in MEASURE_TABLE}
#: The trec_eval versions ``--trec-eval-version`` reproduces.
VERSIONS = ("10.0", "9.0.8")
#: Measures 10.0 added to the table (9.0.8 calls them illegal; its groups lack them).
ONLY_IN_10 = frozenset({"dcg", "ideal_dcg", "rbp", "rbp_resid", "unj"})
_COUNTS = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret"]
_OFFICIAL = [*_COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]
#: trec_eval's groups of measures (``-m official``, ``all_trec``, ``set``); membership is
#: what counts: measures print in the table's order.
GROUPS: dict[str, frozenset[str]] = {
    "official": frozenset(_OFFICIAL),
    # every measure of the table but those of other label formats, yaap, dcg, ideal_dcg
    "all_trec": frozenset(
        m.name
        for m in MEASURE_TABLE
        if m.name not in ("dcg", "ideal_dcg", "yaap") and not m.kind.startswith(("prefs", "jg_"))
    ),
    "all_prefs": frozenset(["runid", "num_q", *PREFS]),
    "prefs": frozenset(["runid", "num_q", *PREFS[:6]]),
    "qrels_jg": frozenset(["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]),
    "set": frozenset(
        [*_COUNTS, "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"]
    ),
}


@dataclass
class Options:
    """trec_eval's command line, parsed."""

    qrels: str
    run: str
    per_query: bool = False
    summary: bool = True
    complete: bool = False
    level: int = 1
    max_depth: int | None = None
    judged_only: bool = False
    n_docs: int = 0
    measures: dict[str, str] | None = None  # name -> parameter text ("" = defaults)
    version: str = "10.0"  # or "9.0.8" (--trec-eval-version)
    zscores: str | None = None  # -Z: a file of "query measure mean stddev" lines
    rel_format: str = "qrels"  # -R: qrels, qrels_jg, prefs or qrels_prefs
    results_format: str = "trec_results"  # -T: trec_results only
    debug_level: int = 0  # -D N: trec_eval's debug traces (0: none)
    debug_query: str | None = None  # -D N.QID: evaluate that query alone


@dataclass(frozen=True)
class Column:
    """One printed value of a measure: its printed name and its rankset metric (canonical)."""

    printed: str
    metric: str | None
    kind: str


def parse_command_line(argv: Sequence[str]) -> Options:
    """Read trec_eval's options (GNU getopt, as trec_eval's ``getopt_long``)."""
    long_options = [
        "help",
        "version",
        "query_eval_wanted",
        "measure=",
        "complete_rel_info_wanted",
        "level_for_rel=",
        "nosummary",
        "Debug_level=",
        "Judged_docs_only",
        "Number_docs_in_coll=",
        "Max_retrieved_per_topic=",
        "Rel_info_format=",
        "Results_format=",
        "Zscore=",
        "trec-eval-version=",
    ]
    try:
        pairs, rest = getopt.gnu_getopt(list(argv), "hvqm:cl:nD:JN:M:R:T:oZ:", long_options)
    except getopt.GetoptError as error:
        raise TrecEvalError(f"trec_eval: {error}\n{USAGE}", 1) from None
    asked: list[str] = []
    settings: dict[str, object] = {}
    version = next((v for f, v in pairs if f == "--trec-eval-version"), "10.0")
    for flag, value in pairs:
        if flag in ("-m", "--measure"):
            _mark({}, value, version)  # an illegal measure stops here, as in trec_eval
            asked.append(value)
        elif flag in ("-D", "--Debug_level"):
            level, dot, query = value.partition(".")
            settings["debug_level"] = atol(level)
            settings["debug_query"] = query if dot else None
        elif flag in ("-Z", "--Zscore"):
            settings["zscores"] = value
        elif flag in ("-v", "--version"):  # trec_eval prints its version and exits
            raise TrecEvalError(f"trec_eval version {_VERSION_IDS.get(version, version)}", 0)
        elif flag == "--trec-eval-version":
            if value not in VERSIONS:
                msg = f"rankset trec_eval: --trec-eval-version {value}: expected 10.0 or 9.0.8"
                raise TrecEvalError(msg, 1)
            settings["version"] = value
        elif flag in _SWITCHES:
            settings[_SWITCHES[flag][0]] = _SWITCHES[flag][1]
        elif flag in _NUMBERS:
            settings[_NUMBERS[flag]] = atol(value)
        elif flag in ("-R", "--Rel_info_format"):
            settings["rel_format"] = value  # checked once the file is read, as trec_eval
        elif flag in ("-T", "--Results_format"):
            settings["results_format"] = value
        else:
            msg = f"rankset trec_eval: option {flag} is not supported; see `rankset measures`"
            raise TrecEvalError(msg, 1)
    if len(rest) != 2:
        raise TrecEvalError(USAGE.rstrip("\n"), 1)
    measures: dict[str, str] = {}
    for text in asked:
        _mark(measures, text, str(settings.get("version", "10.0")))
    sharing = [name for name in ("dcg", "ideal_dcg", "ndcg") if name in measures]
    if len(sharing) > 1 and any(measures[name] for name in sharing):
        msg = (
            f"rankset trec_eval: {', '.join(sharing)} share one gain map in trec_eval 10.0 "
            "(a map given to one applies to all, and trec_eval then crashes at exit); ask "
            "for them in separate calls"
        )
        raise TrecEvalError(msg, 1)
    return Options(qrels=rest[0], run=rest[1], measures=measures or None, **settings)  # type: ignore[arg-type]


#: What ``trec_eval -v`` prints after "trec_eval version " (9.0.8's source says 9.0.7).
_VERSION_IDS = {"10.0": "10.0-rc3", "9.0.8": "9.0.7"}

_SWITCHES = {
    "-q": ("per_query", True),
    "--query_eval_wanted": ("per_query", True),
    "-n": ("summary", False),
    "--nosummary": ("summary", False),
    "-c": ("complete", True),
    "--complete_rel_info_wanted": ("complete", True),
    "-J": ("judged_only", True),
    "--Judged_docs_only": ("judged_only", True),
}
_NUMBERS = {
    "-l": "level",
    "--level_for_rel": "level",
    "-M": "max_depth",
    "--Max_retrieved_per_topic": "max_depth",
    "-N": "n_docs",
    "--Number_docs_in_coll": "n_docs",
}


def read_file_bytes(path: str) -> bytes:
    """Return the whole file, ``b""`` when it cannot be read (trec_eval reads it whole)."""
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def read_label_fields(
    path: str, *, reader: str, what: str, width: int, version: str, opener: str = ""
) -> list[list[bytes]]:
    """Split a label file into lines of ``width`` fields as trec_eval's readers do.

    The file is read whole; C's ``isspace`` separates fields; every line needs exactly
    ``width`` (a blank line is malformed, numbered among the lines parsed). 10.0 skips one
    line starting with ``#`` and parses the next as data whatever it is; it crashes on a
    comment as the last line, and its reader misreads a NUL byte: both refused (status 1).
    Errors otherwise carry trec_eval's text and status 2, naming ``reader`` (``opener``,
    when given, in the message for a file that cannot be read).
    """
    quit_line = f"\ntrec_eval: Quit in file '{path}'"
    data = read_file_bytes(path)
    if not data:
        msg = f"trec_eval.{opener or reader}: Cannot read {what} file '{path}'"
        raise TrecEvalError(f"{msg}{quit_line}", 2)
    if b"\0" in data:
        msg = f"rankset trec_eval: '{path}' holds a NUL byte; trec_eval's reader misreads there"
        raise TrecEvalError(msg, 1)
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    rows: list[list[bytes]] = []
    position = 0
    while position < len(lines):
        line = lines[position]
        if version == "10.0" and line.startswith(b"#"):
            position += 1  # one comment line is skipped; the next is data whatever it is
            if position == len(lines):
                msg = f"rankset trec_eval: '{path}' ends with a comment line (10.0 crashes)"
                raise TrecEvalError(msg, 1)
            line = lines[position]
        fields = line.split()  # bytes.split() splits on exactly C's isspace bytes
        if len(fields) != width:
            raise TrecEvalError(f"trec_eval.{reader}: Malformed line {len(rows) + 1}{quit_line}", 2)
        rows.append(fields)
        position += 1
    return rows


#: The longest leading number C's ``strtod`` reads: decimal, hexadecimal, inf, nan.
_C_NUMBER = re.compile(
    rb"\s*([+-]?(?:0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?\d+)?"
    rb"|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf(?:inity)?|nan))",
    re.IGNORECASE,
)


def atof(text: str | bytes) -> float:
    """C's ``atof``: the longest leading number of ``text`` (hex, inf, nan too), 0 if none."""
    match = _C_NUMBER.match(text.encode() if isinstance(text, str) else text)
    if match is None:
        return 0.0
    number = match[1].decode("ascii")
    return float.fromhex(number) if "x" in number.lower() else float(number)


def atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text``, 0 if none."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match[1]) if match else 0


def _mark(measures: dict[str, str], text: str, version: str) -> None:
    name, _, params = text.partition(".")
    if "." in text and not params:  # "P." or "all_trec.": trec_eval names it twice
        msg = f"trec_eval: improper measure in parameter '{name}'"
        raise TrecEvalError(f"{msg}\ntrec_eval: illegal measure '{name}'", 1)
    if name in GROUPS:
        for member in GROUPS[name]:
            if version == "10.0" or member not in ONLY_IN_10:
                measures.setdefault(member, "")
        return
    if name not in _BY_NAME or (version != "10.0" and name in ONLY_IN_10):
        raise TrecEvalError(f"trec_eval: illegal measure '{name}'", 1)
    if params and not measures.get(name):
        measures[name] = params  # the first parameters given count, as in trec_eval
    else:
        measures.setdefault(name, "")


def plan_columns(options: Options) -> tuple[list[tuple[Measure, list[Column]]], list[str]]:
    """Return the measures asked, in table order, with their printed values; and those left out."""
    asked = options.measures or dict.fromkeys(GROUPS["official"], "")
    planned: list[tuple[Measure, list[Column]]] = []
    unsupported = []
    for measure in MEASURE_TABLE:
        if measure.name not in asked:
            continue
        params = asked[measure.name]
        if measure.kind in ("runid", "num_q", "relstring"):
            printed = f"{measure.name}_{params}" if params else measure.name
            planned.append((measure, [Column(printed, None, measure.kind)]))
        elif measure.metric is None:
            unsupported.append(measure.name)
        else:
            planned.append((measure, _columns(measure, params, options)))
    return planned, unsupported


def _columns(measure: Measure, params: str, options: Options) -> list[Column]:
    assert measure.metric is not None
    if measure.kind.startswith("prefs"):  # no parameters; computed from the preferences
        kind = "long" if measure.kind == "prefs_long" else "double"
        return [Column(measure.name, f"{PREFS_PREFIX}{measure.name}", kind)]
    if measure.kind.startswith("jg_"):  # rankset's metric over each group, marked
        plain = Measure(measure.name, measure.kind[3:], measure.metric, measure.defaults)
        return [
            Column(c.printed, f"{JG_PREFIX}{c.metric}", c.kind)
            for c in _columns(plain, params, options)
        ]
    if measure.kind == "cut_long":
        cutoffs = _cutoffs(params, int, measure.name) if params else list(measure.defaults)
        return [
            Column(f"{measure.name}_{int(k)}", _canonical(measure.metric(str(int(k)))), "double")
            for k in cutoffs
        ]
    if measure.kind == "cut_double":
        points = _cutoffs(params, float, measure.name) if params else list(measure.defaults)
        return [
            Column(
                f"{measure.name}_{p:3.2f}",
                _canonical(_versioned(measure.metric(repr(p)), options)),
                "double",
            )
            for p in points
        ]
    if measure.kind in ("long", "double", "geometric"):
        params = ""  # trec_eval ignores parameters given to a measure that takes none
    printed = f"{measure.name}_{params}" if params else measure.name
    if params and options.version == "9.0.8" and measure.name in _GAIN_MAPS:
        # 9.0.8's setup_gains reads every pair's name with atol ("x=5" is level 0)
        pairs = _pairs(measure.name, params)
        params = ",".join(f"{atol(key)}={gain!r}" for key, gain in pairs)
    metric = (
        _utility_metric(params, options.n_docs)
        if measure.name == "utility"
        else measure.metric(params)
    )
    kind = "double" if measure.kind == "param" else measure.kind
    return [Column(printed, _canonical(_versioned(metric, options)), kind)]


def _versioned(metric: str, options: Options) -> str:
    """Give 9.0.8's interpolated precision its rounding of recall x R (trunc(x R + 0.9))."""
    if options.version == "10.0" or not metric.startswith(("iprec_at_recall", "iprec_avg")):
        return metric
    if metric.endswith(")"):
        return metric[:-1] + ", rounding=v9)"
    return metric + "(rounding=v9)"


def _canonical(name: str) -> str:
    from rankset.measures import parse_metric

    return parse_metric(name).name


def _cutoffs(text: str, kind: type[int] | type[float], name: str) -> list[float]:
    """trec_eval's cutoff lists: ``atol`` (or ``atof``) each, sorted; checked as it checks."""
    values = sorted((atol if kind is int else atof)(part) for part in text.split(","))
    if kind is int and values[0] <= 0:
        raise _init_error("trec_eval: Negative cutoff detected", name)
    if len(set(values)) != len(values):
        raise _init_error("trec_eval: duplicate cutoffs detected", name)
    return [float(value) for value in values]
