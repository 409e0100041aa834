"""The progress bar in Jupyter: drawn under the cell in a kernel, nothing anywhere else.

``rankset.pages.report.report`` and ``rankset.pages.dashboard.dashboard`` with ``progress=None``
(the default) ask :func:`rankset._progress.notebook_progress` for a bar: in a notebook kernel
it is one output, an HTML ``<progress>`` with a text twin, redrawn in place through
``IPython.display``; in a plain process (this one) there is none and IPython is not
imported. The bar's drawing is tested with a stand-in for ``display``; the last test
runs a report in a real kernel (nbclient) and reads the cell's outputs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from rankset import _progress

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


class FakeDisplay:
    """``IPython.display.display``: records the first bundle, then each update."""

    def __init__(self) -> None:
        self.bundles: list[dict[str, str]] = []
        self.displayed = 0

    def __call__(self, bundle: dict[str, str], *, raw: bool, display_id: bool) -> FakeDisplay:
        assert raw
        assert display_id
        self.displayed += 1
        self.bundles.append(bundle)
        return self

    def update(self, bundle: dict[str, str], *, raw: bool) -> None:  # the display handle
        assert raw
        self.bundles.append(bundle)


def test_the_bar_is_displayed_once_then_redrawn_in_place() -> None:
    display = FakeDisplay()
    bar = _progress.NotebookBar("rankset report", display)
    bar(0, 7, "evaluating")
    bar(1, 7, "comparing")
    bar(7, 7, "done")
    assert display.displayed == 1  # one output: later calls update it
    assert len(display.bundles) == 3
    first, last = display.bundles[0], display.bundles[-1]
    assert '<progress value="0" max="7"' in first["text/html"]
    assert first["text/plain"].startswith("rankset report [" + "." * 24 + "] evaluating  0/7  ")
    assert '<progress value="7" max="7"' in last["text/html"]
    assert last["text/plain"].startswith("rankset report [" + "#" * 24 + "] done  7/7  ")


def test_the_bar_shows_the_count_and_an_eta() -> None:
    bar = _progress.NotebookBar("rankset report", FakeDisplay())
    bundle = bar.bundle(3, 12, "resamples", 6.0)  # 2 s each, 9 left
    assert bundle["text/plain"] == (
        "rankset report [######..................] resamples  3/12  6.0 s, ETA 18 s"
    )
    assert bundle["text/html"].endswith("resamples  3/12  6.0 s, ETA 18 s</div>")


def test_the_bar_escapes_what_it_shows() -> None:
    bundle = _progress.NotebookBar("<t>", FakeDisplay()).bundle(0, 1, "a <b> & c", 0.0)
    assert "&lt;t&gt;" in bundle["text/html"]
    assert "a &lt;b&gt; &amp; c" in bundle["text/html"]
    assert "<b>" not in bundle["text/html"]


def test_a_step_s_inner_text_is_not_redrawn_too_often(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 0.0, 0.05, 0.1, 0.3, 0.31, 0.32, 0.33])
    monkeypatch.setattr(_progress.time, "monotonic", lambda: next(clock))
    display = FakeDisplay()
    bar = _progress.NotebookBar("x", display)  # starts at 0.0
    bar(1, 3, "comparing: 100/1,000 resamples")  # 0.0: the first is drawn
    bar(1, 3, "comparing: 200/1,000 resamples")  # 0.05: the same count, too soon
    bar(1, 3, "comparing: 300/1,000 resamples")  # 0.1: too soon
    bar(1, 3, "comparing: 400/1,000 resamples")  # 0.3: drawn
    bar(1, 3, "comparing: 500/1,000 resamples")  # 0.31: too soon
    bar(2, 3, "writing")  # 0.32: a new count: drawn
    bar(3, 3, "done")  # 0.33: the last: drawn
    shown = [bundle["text/plain"].split("] ")[1].split("  ")[0] for bundle in display.bundles]
    assert shown == [
        "comparing: 100/1,000 resamples",
        "comparing: 400/1,000 resamples",
        "writing",
        "done",
    ]


def _fake_ipython(monkeypatch: pytest.MonkeyPatch, shell: object) -> FakeDisplay:
    display = FakeDisplay()
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell  # type: ignore[attr-defined]
    module = types.ModuleType("IPython.display")
    module.display = display  # type: ignore[attr-defined]
    ipython.display = module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", module)
    return display


def test_a_kernel_gets_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = types.SimpleNamespace(config={"IPKernelApp": {"connection_file": "k.json"}})
    display = _fake_ipython(monkeypatch, kernel)
    bar = _progress.notebook_progress("rankset report")
    assert isinstance(bar, _progress.NotebookBar)
    bar(0, 2, "evaluating")
    assert display.displayed == 1


def test_report_draws_its_bar_in_a_kernel(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from rankset.pages.report import report

    display = _fake_ipython(monkeypatch, types.SimpleNamespace(config={"IPKernelApp": {}}))
    report(
        [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")],
        str(SAMPLE / "qrels.txt"),
        scale="trec_dl",
        n_resamples=100,
        out=tmp_path / "r.html",
    )
    assert display.displayed == 1
    assert display.bundles[0]["text/plain"].startswith("rankset report [")
    assert '<progress value="7" max="7"' in display.bundles[-1]["text/html"]
    # progress=False: nothing, even in a kernel
    report(
        [str(SAMPLE / "bm25.trec")],
        str(SAMPLE / "qrels.txt"),
        scale="trec_dl",
        out=tmp_path / "quiet.html",
        progress=False,
    )
    assert display.displayed == 1


@pytest.mark.parametrize(
    "shell",
    [None, types.SimpleNamespace(config={"TerminalIPythonApp": {}})],
    ids=["no shell", "terminal IPython"],
)
def test_no_bar_outside_a_kernel(monkeypatch: pytest.MonkeyPatch, shell: object) -> None:
    display = _fake_ipython(monkeypatch, shell)
    assert _progress.notebook_progress("rankset report") is None
    assert _progress.resolve_progress(None, "rankset report") is None
    assert display.displayed == 0


def test_a_plain_process_does_not_import_ipython() -> None:
    code = (
        "import sys; from rankset import _progress; "
        "assert _progress.notebook_progress('x') is None; "
        "print('IPython' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- in a real kernel ----------------------------------------------------------------------


@pytest.mark.slow
def test_a_report_in_a_notebook_cell_shows_a_bar(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    spec_dir = tmp_path / "kernels" / "rankset-progress"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "rankset tests",
        "language": "python",
        "env": {"IPYTHONDIR": str(tmp_path / "ipython")},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    source = (
        "from rankset.pages.report import report\n"
        f"runs = [{str(SAMPLE / 'bm25.trec')!r}, {str(SAMPLE / 'rerank.trec')!r}]\n"
        f"path = report(runs, {str(SAMPLE / 'qrels.txt')!r}, scale='trec_dl', "
        f"n_resamples=200, out={str(tmp_path / 'r.html')!r}).path\n"
        "print(path.name)"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    manager = KernelManager(
        kernel_name="rankset-progress",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")]),
    )
    client = nbclient.NotebookClient(nb, km=manager, timeout=120, startup_timeout=60)
    client.execute(cleanup_kc=True)
    outputs: list[Any] = nb.cells[0].outputs
    bars = [out for out in outputs if out["output_type"] == "display_data"]
    assert len(bars) == 1  # one bar, redrawn in place (update_display_data)
    final = bars[0]["data"]
    assert '<progress value="7" max="7"' in final["text/html"]
    assert final["text/plain"].startswith("rankset report [" + "#" * 24 + "] done  7/7  ")
    printed = "".join(out.get("text", "") for out in outputs if out["output_type"] == "stream")
    assert printed == "r.html\n"  # nothing on stderr, the bar is no stream
