"""Execute every tutorial notebook top to bottom in a fresh kernel (nbclient), with the shared data folder.

Slow by nature (each notebook trains models); the notebooks must each finish within 5 minutes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

pytestmark = [pytest.mark.notebook, pytest.mark.slow]


def test_notebooks_found():
    assert len(NOTEBOOKS) >= 3


def test_notebooks_are_clean():
    nbformat = pytest.importorskip("nbformat")
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs not cleared"


def _client_modules():
    try:
        import nbclient
        import nbformat
    except ImportError as exc:  # the "test" extra installs them
        msg = f"nbclient/nbformat not installed ({exc}); pip install '.[test]'"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return nbclient, nbformat


# The pieces the notebooks use (written in parallel; until all are in, the notebooks skip outside CI).
PIECES = [("algorithms.preprocessing", "CrowdTruthFilter"), ("algorithms.inprocessing", "AnnotatorAwareClassifier"),
          ("metrics", "OpinionExclusionMetric"), ("metrics", "SubgroupDiscoveryMetric"),
          ("detectors", "detect_subgroups"), ("quality", "crowdtruth_scores"), ("datasets", "LeWiDiDataset"),
          ("plotting", "plot_group_performance"), ("plotting", "plot_summary_radar")]


def _require_pieces():
    import importlib

    missing = []
    for module, name in PIECES:
        try:
            getattr(importlib.import_module(f"aif360_subjective.{module}"), name)
        except (ImportError, AttributeError):
            missing.append(f"{module}.{name}")
    if missing:
        msg = f"the notebooks need {missing}, not available yet"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)


#: Lines a reader should never see: aif360's notices about optional extras (tensorflow, fairlearn, ...) and
#: pandas' deprecation notice of the option used to read COMPAS for aif360 0.6.1.
NOISE = ("WARNING:root:No module named", "Pandas4Warning")


def _execute(path: Path, data: Path, tmp_path: Path, monkeypatch):
    nbclient, nbformat = _client_modules()
    _require_pieces()
    monkeypatch.setenv("AIF360_SUBJECTIVE_DATA", str(data))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # the kernel imports the package from this checkout even when it is not installed
    repo = str(path.parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    for noise in NOISE:
        assert noise not in text, f"{path.name} prints {noise!r}"
    return text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
@pytest.mark.data
def test_notebook_runs(path, shared_data, tmp_path, monkeypatch):
    text = _execute(path, shared_data, tmp_path, monkeypatch)
    if path.name.startswith("01_"):
        # the sentence under Figure 3 is computed from the numbers, for the generated and the real data
        assert text.count("Model 2 narrows the gap") + text.count("Model 2 widens the gap") \
            + text.count("Model 2 leaves the gap as it is") == 2
        _check_interval_sentences(text)
        assert "thin groups:" in text  # the min_group_size demonstration ran
        # Model 1 on MultiPICo reads the text and predicts both labels (it once answered "not ironic" throughout)
        counts = re.search(r"Model 1 predictions per label: \{([^}]*)\}", text)
        assert counts and len(counts.group(1).split(",")) == 2, text[-2000:]
        assert "constant classifier" not in text
    if path.name.startswith("02_"):
        m = re.search(r"95% intervals \[(\S+), (\S+)\] before, \[(\S+), (\S+)\] after, which (do not overlap|"
                      r"overlap)", text)
        assert m, text[-2000:]
        a, b, c, d = (float(x) for x in m.groups()[:4])
        assert (m.group(5) == "overlap") is (a <= d and c <= b)
    if path.name.startswith("05_"):
        _check_excluded_groups(text)
        assert "POPQUORN not found" not in text
        # POPQUORN, raw and item-adjusted: an answer each (which one is the data's, not the notebook's to fix)
        assert len(re.findall(r"POPQUORN, adjust='(?:none|items)': (?:Served worse|No annotator group|Cannot)",
                              text)) == 2, text[-3000:]


def _check_excluded_groups(text: str) -> None:
    """Notebook 05's simulated parts: the planted pair found as finding 0, the null's detectable-gap sentence, the
    item-confounded group reported raw and not item-adjusted."""
    assert "Served worse: gender=woman AND education=phd" in text, text[:3000]
    assert "identical to it: True" in text
    assert "No annotator group is served worse at alpha = 0.05" in text
    assert "would have been found about 80% of the time" in text
    assert re.search(r"adjust='none': Served worse: region=east", text), text
    assert re.search(r"adjust='items': No annotator group is served worse", text), text


def _check_interval_sentences(text: str) -> None:
    """Each "narrows/widens" sentence says whether the intervals overlap, and says it truly."""
    found = re.findall(r"unfairness \S+ \[(\S+), (\S+)\] against Model 1's \S+ \[(\S+), (\S+)\]; the 95% "
                       r"intervals (do not overlap|overlap)", text)
    assert len(found) == 2, text[-3000:]
    for lo2, hi2, lo1, hi1, said in found:
        overlapping = float(lo2) <= float(hi1) and float(lo1) <= float(hi2)
        assert (said == "overlap") is overlapping


def test_opinion_notebook_without_data_says_where_to_get_it(tmp_path, monkeypatch):
    """Without the data folder the real-data part is skipped with directions, not a TypeError."""
    empty = tmp_path / "empty_data"
    empty.mkdir()
    path = next(p for p in NOTEBOOKS if p.name.startswith("01_"))
    text = _execute(path, empty, tmp_path, monkeypatch)
    assert f"MultiPICo not found in {empty}: the real-data part below is skipped." in text
    assert "https://github.com/Le-Wi-Di/le-wi-di.github.io" in text and "AIF360_SUBJECTIVE_DATA" in text


def test_real_data_notebook_without_data_stops_with_directions(tmp_path, monkeypatch):
    """Notebook 04 is about published data only: without it, its first cell stops with where to get each dataset
    (a FileNotFoundError naming the folders), not a TypeError further down."""
    nbclient, nbformat = _client_modules()
    _require_pieces()
    empty = tmp_path / "empty_data"
    empty.mkdir()
    path = next(p for p in NOTEBOOKS if p.name.startswith("04_"))
    monkeypatch.setenv("AIF360_SUBJECTIVE_DATA", str(empty))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(path.parents[1]),
                                                                    os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(nbclient.exceptions.CellExecutionError) as exc:
        client.execute()
    message = str(exc.value)
    assert "FileNotFoundError" in message and "TypeError" not in message
    for folder in ("lewidi2023/", "popquorn/", "csc/"):
        assert folder in message
    assert "AIF360_SUBJECTIVE_DATA" in message and "https://github.com/Jiaxin-Pei/Potato-Prolific-Dataset" in message


def test_excluded_groups_notebook_without_data_skips_the_real_data(tmp_path, monkeypatch):
    """Notebook 05 without the data folder: the simulated parts run, POPQUORN is skipped with directions."""
    empty = tmp_path / "empty_data"
    empty.mkdir()
    path = next(p for p in NOTEBOOKS if p.name.startswith("05_"))
    text = _execute(path, empty, tmp_path, monkeypatch)
    _check_excluded_groups(text)
    assert f"POPQUORN not found in {empty}: the real-data part below is skipped." in text
    assert "https://github.com/Jiaxin-Pei/Potato-Prolific-Dataset" in text and "AIF360_SUBJECTIVE_DATA" in text
    assert "POPQUORN, adjust=" not in text
