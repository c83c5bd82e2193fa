"""``aif360-subjective subgroups --engine spark``: the findings of the library on the same Parquet rows; refusals."""

from __future__ import annotations

import numpy as np
import pytest

from aif360_subjective.cli import main
from aif360_subjective.datasets import make_planted_slice

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    b = make_planted_slice(1500, n_categorical=3, n_numeric=1, planted_share=0.12, effect=0.35, random_state=5)
    frame = b.X.assign(t=np.asarray(b.y_true), p=np.asarray(b.y_pred), id=np.arange(1500))
    path = tmp_path_factory.mktemp("spark_cli") / "table.parquet"
    frame.to_parquet(path, index=False)
    return path


def _run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra, match", [
    (["--out", "r.html"], "--out is not available with --engine spark"),
    (["--groups", "id"], "--groups is not available with --engine spark"),
    (["--discovery", "asdf"], "--discovery asdf is not available with --engine spark"),
    (["--clustering", "kmeans"], "--clustering is not available with --engine spark"),
])
def test_refused_options_are_named(capsys, parquet, extra, match):
    code, _, err = _run(capsys, "subgroups", "--engine", "spark", str(parquet), "--label-col", "t",
                        "--prediction-col", "p", *extra)
    assert code == 2 and match in err


def test_missing_java_names_the_install_command(capsys, parquet, monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    code, _, err = _run(capsys, "subgroups", "--engine", "spark", str(parquet), "--label-col", "t",
                        "--prediction-col", "p")
    assert code == 2 and "apt-get install openjdk-17-jre-headless" in err


@pytest.mark.slow
def test_findings_are_the_librarys(capsys, spark, parquet):
    import pandas as pd

    from aif360_subjective.detectors import detect_subgroups

    code, out, err = _run(capsys, "subgroups", "--engine", "spark", "--master", "local[2]", str(parquet),
                          "--label-col", "t", "--prediction-col", "p", "--exclude", "id", "--seed", "0")
    assert code == 0, err
    assert "1,500 rows, 4 attributes (Spark" in out
    # the library's findings on the same rows: pandas with the keyed permutations, which equals Spark's
    # (test_detect_spark) at a fraction of a second Spark analysis' cost
    frame = pd.read_parquet(parquet).drop(columns="id")
    found = detect_subgroups(frame.drop(columns=["t", "p"]), frame["t"], frame["p"], discovery="patterns",
                             permutation="keyed", random_state=0).findings()
    assert len(found) > 0
    assert found.iloc[0]["description"] in out
