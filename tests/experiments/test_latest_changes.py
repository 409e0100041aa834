"""latest_changes: each system's last logged mean, the one before it and the change."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

from rankset.errors import SchemaError
from rankset.experiments import LATEST_COLUMNS, latest_changes


def _day(day: int) -> datetime:
    return datetime(2026, 3, day, tzinfo=UTC)


# Written out of time order: e3 (day 9) comes first, e1 (day 1) last.
HISTORY = pl.DataFrame(
    {
        "entry_id": ["e3", "e3", "e2", "e2", "e2", "e1", "e1"],
        "time": [_day(9), _day(9), _day(5), _day(5), _day(5), _day(1), _day(1)],
        "system": ["bm25", "bm25", "bm25", "bm25", "splade", "bm25", "bm25"],
        "metric": ["ap", "rr", "ap", "rr", "ap", "ap", "rr"],
        "mean": [0.30, 0.60, 0.35, 0.50, 0.40, 0.20, 0.55],
    }
)


def test_the_last_two_entries_by_time_give_the_change() -> None:
    latest = latest_changes(HISTORY)
    assert latest.columns == list(LATEST_COLUMNS)
    rows = {(r["system"], r["metric"]): r for r in latest.iter_rows(named=True)}
    bm25_ap = rows[("bm25", "ap")]
    assert bm25_ap["n_entries"] == 3
    assert bm25_ap["last_entry"] == "e3"
    assert bm25_ap["last_time"] == _day(9)
    assert bm25_ap["last_mean"] == 0.30
    assert bm25_ap["previous_mean"] == 0.35  # e2, not e1 (which the frame lists last)
    assert bm25_ap["change"] == pytest.approx(-0.05)
    assert rows[("bm25", "rr")]["change"] == pytest.approx(0.10)
    splade = rows[("splade", "ap")]
    assert (splade["n_entries"], splade["last_entry"]) == (1, "e2")
    assert splade["previous_mean"] is None
    assert splade["change"] is None


def test_rows_follow_the_metrics_asked_then_the_system() -> None:
    latest = latest_changes(HISTORY, ["rr", "ndcg@10", "ap"])  # ndcg@10: not held, skipped
    assert latest.select("metric", "system").rows() == [
        ("rr", "bm25"),
        ("ap", "bm25"),
        ("ap", "splade"),
    ]
    # by default, every metric in the order the history first names them
    assert latest_changes(HISTORY)["metric"].to_list() == ["ap", "ap", "rr"]
    assert latest_changes(HISTORY, ["ndcg@10"]).height == 0


def test_a_frame_that_is_not_a_history_is_refused() -> None:
    with pytest.raises(SchemaError, match=r"lacks the columns \['time'\]"):
        latest_changes(HISTORY.drop("time"))
