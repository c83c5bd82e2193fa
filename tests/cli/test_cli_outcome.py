"""``subgroups --outcome`` (multi-class, ordinal, regression tables; rating data as ordinal) and ``--groups``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import main


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    return code, out, err


@pytest.fixture
def ratings_csv(tmp_path):
    rng = np.random.default_rng(0)
    persons, k = 150, 4
    person = np.repeat(np.arange(persons), k)
    region = rng.choice(["north", "south", "east"], persons)[person]
    y = rng.integers(1, 6, persons * k)
    yhat = np.clip(y + rng.integers(-1, 2, persons * k) + 2 * (region == "north"), 1, 5)
    path = tmp_path / "ratings.csv"
    pd.DataFrame({"person": person, "region": region, "sex": rng.choice(["f", "m"], persons)[person],
                  "rating": y, "predicted": yhat}).to_csv(path, index=False)
    return path


def test_ordinal_table_with_groups(capsys, ratings_csv, tmp_path):
    out_html = tmp_path / "r.html"
    code, out, _ = _run(capsys, ["subgroups", str(ratings_csv), "--label-col", "rating", "--prediction-col",
                                 "predicted", "--outcome", "auto", "--groups", "person", "--discovery", "patterns",
                                 "--out", str(out_html)])
    assert code == 0
    assert "task='auto' chose 'ordinal'" in out and out.count("Read data") == 1
    assert "Unit of inference: 150 clusters of rows by person" in out
    # the over-predicted region: disadvantaged by its absolute error, favoured by its bias (mean error)
    assert "Most significantly disadvantaged: region=north" in out and "mean absolute error +0." in out
    assert "A positive mean absolute error or a negative mean error (bias)" in out
    described = out.split("outcome: ordinal")[1].split("\n")[1]
    assert described.startswith("600 rows, 2 attributes")  # region and sex: the id is the unit, not a feature
    text = out_html.read_text(encoding="utf-8")
    assert "Rankings by metric" in text and "Unit of inference" in text


@pytest.mark.parametrize(("extra", "message"), [
    (["--outcome", "ordinal", "--model", "logistic"], "--outcome ordinal reads the predictions from --prediction-col"),
    (["--outcome", "ordinal", "--prediction-col", "predicted", "--groups", "nobody"],
     "--groups 'nobody' is not a column of ratings.csv"),
])
def test_errors(capsys, ratings_csv, extra, message):
    code, out, err = _run(capsys, ["subgroups", str(ratings_csv), "--label-col", "rating", "--discovery", "patterns",
                                   *extra])
    assert code == 2 and message in err


@pytest.mark.data
def test_popquorn_ratings_as_an_ordinal_audit(capsys, shared_data):
    code, out, _ = _run(capsys, ["subgroups", str(shared_data / "popquorn"), "--outcome", "ordinal", "--model",
                                 "rating", "--discovery", "patterns", "--test-size", "0.2"])
    assert code == 0
    assert "Ratings predicted by a ridge regression of the items' mean rating on their text" in out
    assert "clusters of rows by annotator" in out and "mean absolute error" in out


def test_multiclass_table(capsys, tmp_path):
    rng = np.random.default_rng(1)
    n = 600
    region = rng.choice(["north", "south", "east"], n)
    y = rng.choice(["cat", "dog", "owl"], n)
    yhat = np.where((region == "north") & (rng.random(n) < 0.5), "owl", y)
    path = tmp_path / "classes.csv"
    pd.DataFrame({"region": region, "sex": rng.choice(["f", "m"], n), "y": y, "yhat": yhat}).to_csv(path, index=False)
    code, out, _ = _run(capsys, ["subgroups", str(path), "--label-col", "y", "--prediction-col", "yhat", "--outcome",
                                 "multiclass", "--discovery", "patterns", "--out", str(tmp_path / "c.html")])
    assert code == 0 and "task='multiclass' (given)" in out
    assert "statistical parity (class owl)" in out and "region=north" in out
