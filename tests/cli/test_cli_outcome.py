"""``subgroups --task`` (binary, auto, multi-class, ordinal, regression tables; rating data as ordinal), its former
spelling ``--outcome``, ``--data-task`` and ``--groups``."""

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
                                 "predicted", "--task", "auto", "--groups", "person", "--discovery", "patterns",
                                 "--out", str(out_html)])
    assert code == 0
    assert "task='auto' chose 'ordinal'" in out and out.count("Read data") == 1
    assert "Unit of inference: 150 clusters of rows by person" in out
    # the over-predicted region: disadvantaged by its absolute error, favoured by its bias (mean error)
    assert "Most significantly disadvantaged: region=north" in out and "mean absolute error +0." in out
    assert "A positive mean absolute error or a negative mean error (bias)" in out
    described = out.split("task: ordinal")[1].split("\n")[1]
    assert described.startswith("600 rows, 2 attributes")  # region and sex: the id is the unit, not a feature
    text = out_html.read_text(encoding="utf-8")
    assert "Rankings by metric" in text and "Unit of inference" in text


@pytest.mark.parametrize(("extra", "message"), [
    (["--task", "ordinal", "--model", "logistic"], "--task ordinal reads the predictions from --prediction-col"),
    (["--task", "ordinal", "--prediction-col", "predicted", "--groups", "nobody"],
     "--groups 'nobody' is not a column of ratings.csv"),
])
def test_errors(capsys, ratings_csv, extra, message):
    code, out, err = _run(capsys, ["subgroups", str(ratings_csv), "--label-col", "rating", "--discovery", "patterns",
                                   *extra])
    assert code == 2 and message in err


@pytest.mark.data
@pytest.mark.slow
def test_popquorn_ratings_as_an_ordinal_audit(capsys, shared_data):
    code, out, _ = _run(capsys, ["subgroups", str(shared_data / "popquorn"), "--task", "ordinal", "--model",
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
    code, out, _ = _run(capsys, ["subgroups", str(path), "--label-col", "y", "--prediction-col", "yhat", "--task",
                                 "multiclass", "--discovery", "patterns", "--out", str(tmp_path / "c.html")])
    assert code == 0 and "task='multiclass' (given)" in out
    assert "statistical parity (class owl)" in out and "region=north" in out


# ------------------------------------------------------------------------------------------------ --task
def _table(tmp_path, kind: str):
    """A small table whose model errs on region north, with truth ``y`` and prediction ``yhat`` of one kind."""
    rng = np.random.default_rng(3)
    n = 400
    region = rng.choice(["north", "south", "east"], n)
    north = region == "north"
    if kind == "binary":
        y = rng.integers(0, 2, n)
        yhat = np.where(north, 1, y)
    elif kind == "yes/no":
        y = rng.choice(["no", "yes"], n)
        yhat = np.where(north, "yes", y)
    elif kind == "ordinal":
        y = rng.integers(1, 6, n)
        yhat = np.clip(y + 2 * north, 1, 5)
    elif kind == "regression":
        y = rng.normal(size=n).round(3)
        yhat = (y + 1.5 * north + rng.normal(0, 0.2, n)).round(3)
    else:  # classes
        y = rng.choice(["cat", "dog", "owl"], n)
        yhat = np.where(north, "owl", y)
    path = tmp_path / f"{kind.replace('/', '_')}.csv"
    pd.DataFrame({"region": region, "sex": rng.choice(["f", "m"], n), "y": y, "yhat": yhat}).to_csv(path, index=False)
    return path


def _subgroups(capsys, path, *extra):
    return _run(capsys, ["subgroups", str(path), "--label-col", "y", "--prediction-col", "yhat", "--discovery",
                         "patterns", "--alpha", "0.05", *extra])


@pytest.mark.parametrize(("kind", "task", "task_line", "metric"), [
    ("binary", "binary", "favourable label: 0", "Statistical parity"),
    ("binary", None, "favourable label: 0", "Statistical parity"),  # the command's default: binary
    ("binary", "auto", "--task auto chose 'binary': the labels take 2 values [0, 1]", "Statistical parity"),
    ("classes", "auto", "task='auto' chose 'multiclass': the labels take 3 non-numeric values", "class owl"),
    ("classes", "multiclass", "task='multiclass' (given)", "class owl"),
    ("ordinal", "ordinal", "task='ordinal' (given)", "mean absolute error"),
    ("ordinal", "auto", "task='auto' chose 'ordinal'", "mean absolute error"),
    ("regression", "regression", "task='regression' (given)", "mean absolute error"),
    ("regression", "auto", "task='auto' chose 'regression'", "mean absolute error"),
])
def test_every_task(capsys, tmp_path, kind, task, task_line, metric):
    extra = [] if task is None else ["--task", task]
    code, out, err = _subgroups(capsys, _table(tmp_path, kind), *extra)
    assert code == 0, err
    assert task_line in out  # what the task is, and what "auto" decided
    expected = {"classes": "multiclass"}.get(kind, kind)
    assert (f"task: {expected}" in out) == (expected != "binary")
    assert metric.lower() in out.lower() and "region=north" in out
    assert "Note:" not in err  # no deprecated spelling


def test_auto_on_a_binary_table_keeps_the_favourable_label(capsys, tmp_path):
    path = _table(tmp_path, "yes/no")
    code, out, _ = _subgroups(capsys, path, "--task", "auto", "--favorable-label", "no")
    assert code == 0
    assert "favourable label: 'no'" in out and "--task auto chose 'binary': --favorable-label no names" in out
    # two labels other than 0/1 are binary decisions, whose favourable one the user names
    code, _, err = _subgroups(capsys, path, "--task", "auto")
    assert code == 2 and "holds ['no', 'yes']; name the favourable one with --favorable-label" in err


def test_outcome_is_a_deprecated_spelling_of_task(capsys, tmp_path):
    path = _table(tmp_path, "ordinal")
    code, out, err = _subgroups(capsys, path, "--outcome", "ordinal")
    assert code == 0 and "task: ordinal" in out and "task='ordinal' (given)" in out
    assert "Note: --outcome is deprecated: use --task ordinal" in err
    code, out, err = _subgroups(capsys, path, "--outcome", "ordinal", "--task", "regression")
    assert code == 2 and "--task regression and --outcome ordinal disagree" in err


@pytest.mark.parametrize(("extra", "message"), [
    (["--task", "regresion"], "argument --task: invalid choice: 'regresion' (choose from auto, binary, multiclass, "
                              "ordinal, regression: what the model predicts; a dataset's annotation task is "
                              "--data-task)"),
    (["--task", ""], "argument --task: invalid choice: ''"),
    (["--outcome", "ratings"], "argument --outcome: invalid choice: 'ratings'"),
])
def test_bad_task_values_are_usage_errors(capsys, tmp_path, extra, message):
    with pytest.raises(SystemExit) as exc:
        _subgroups(capsys, _table(tmp_path, "ordinal"), *extra)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


@pytest.mark.parametrize(("extra", "message"), [
    (["--task", "regression", "--favorable-label", "1"], "--favorable-label names the favourable label of binary "
                                                          "decisions; --task regression compares the labels"),
    (["--task", "binary"], "holds [1, 2, 3, 4, 5]; name the favourable one"),  # five levels: not binary
    (["--data-task", "toxicity"], "--task (--data-task) applies to --format wikipedia or popquorn, not csv"),
])
def test_task_options_that_do_not_fit_the_data_are_one_line_errors(capsys, tmp_path, extra, message):
    code, out, err = _subgroups(capsys, _table(tmp_path, "ordinal"), *extra)
    assert code == 2, out
    assert message in err and err.count("\n") == 1


def test_bad_labels_for_a_task_are_clear(capsys, tmp_path):
    path = tmp_path / "inf.csv"
    pd.DataFrame({"g": ["a", "b"] * 20, "y": [0.5, np.inf] + [1.0] * 38, "yhat": [1.0] * 40}).to_csv(path, index=False)
    code, _, err = _run(capsys, ["subgroups", str(path), "--label-col", "y", "--prediction-col", "yhat", "--task",
                                 "regression", "--discovery", "patterns"])
    assert code != 0 and "infinite value" in err and "Traceback" not in err


def test_task_of_a_dataset_is_data_task_and_the_old_spelling_still_reads(capsys):
    from aif360_subjective.cli import build_parser
    from aif360_subjective.cli.subgroups import SubgroupsSpec

    parser = build_parser().commands["subgroups"]
    spec = SubgroupsSpec.from_namespace(parser.parse_args(["wiki", "--data-task", "aggression", "--task", "auto"]))
    assert (spec.inputs.task, spec.task) == ("aggression", "auto")
    assert capsys.readouterr().err == ""
    # subgroups --task used to name the dataset's task: still read as that, with a note naming --data-task
    spec = SubgroupsSpec.from_namespace(parser.parse_args(["wiki", "--task", "attack"]))
    assert (spec.inputs.task, spec.task) == ("attack", "binary")
    assert "Note: --task attack names the dataset's annotation task, which is --data-task attack" in \
        capsys.readouterr().err
    # audit has no model task: --task is the dataset's there, --data-task its other spelling
    audit = build_parser().commands["audit"]
    assert audit.parse_args(["wiki", "--task", "attack"]).task == audit.parse_args(["wiki", "--data-task",
                                                                                     "attack"]).task == "attack"
