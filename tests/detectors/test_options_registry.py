"""The subgroup family's options object, its keyword-only face and the one registry of subgroup metrics."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from aif360_subjective._validation import check_alpha
from aif360_subjective.detectors import (
    DIRECTIONS,
    FAIRNESS_METRICS,
    METRICS,
    SUBGROUP_METRICS,
    AnalysisOptions,
    check_analysis_options,
    compare_clusterings,
    detect_subgroups,
)

X = pd.DataFrame({"a": ["u", "v"] * 10, "b": np.arange(20.0)})
Y = np.arange(20) % 2
P = (np.arange(20) // 2) % 2


def test_registry_is_the_one_vocabulary():
    assert METRICS == ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy", "accuracy_error",
                       "false_positive_rate", "false_negative_rate")
    assert FAIRNESS_METRICS == ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy_error",
                                "false_positive_rate", "false_negative_rate")
    assert {m: DIRECTIONS[m] for m in METRICS} == {
        "statistical_parity": "larger",
        "equal_opportunity": "larger",
        "equalized_odds": "larger",
        "accuracy": "smaller",
        "accuracy_error": "smaller",
        "false_positive_rate": "larger",
        "false_negative_rate": "larger",
    }
    # the metrics of the other tasks: error larger = disadvantaged, bias and prediction smaller
    assert {m: DIRECTIONS[m] for m in ("mean_absolute_error", "mean_error", "mean_prediction", "mean_loss")} == {
        "mean_absolute_error": "larger", "mean_error": "smaller", "mean_prediction": "smaller", "mean_loss": "larger"}
    assert SUBGROUP_METRICS["equalized_odds"].label == "Equalized odds"
    assert SUBGROUP_METRICS["accuracy"].reference == "overall accuracy"
    with pytest.raises(dataclasses.FrozenInstanceError):
        SUBGROUP_METRICS["accuracy"].direction = "larger"  # type: ignore[misc]


def test_detect_subgroups_is_keyword_only_after_y_pred():
    with pytest.raises(TypeError, match="positional"):
        detect_subgroups(X, Y, P, 1)  # type: ignore[misc]
    rep = detect_subgroups(X, Y, P, pos_label=1, n_clusters=2, random_state=0)
    assert rep.n_clusters == 2


def test_report_holds_the_options_object():
    rep = detect_subgroups(X, Y, P, n_clusters=2, entropy_threshold=0.5, random_state=0)
    assert isinstance(rep.options, AnalysisOptions)
    assert rep.options.entropy_threshold == 0.5
    assert rep.options.k == 2
    assert rep.options.categorical_features == ["a"]
    settings = rep.settings()
    assert settings["pos_label"] == 1 and settings["n_clusters"] == 2
    with pytest.raises(TypeError):
        settings["pos_label"] = 0  # type: ignore[index]


def test_check_analysis_options_defaults_are_detect_subgroups_defaults():
    opts = check_analysis_options(X)
    assert (opts.clustering, opts.n_clusters, opts.k, opts.entropy_threshold) == ("slink", None, None, 0.65)
    assert (opts.normalization, opts.undefined_rates, opts.mst) == ("cluster", "nan", "auto")
    assert opts.clustering_name == "slink"
    with pytest.raises(ValueError, match="normalization"):
        check_analysis_options(X, normalization="global")


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"selection_metric": "size"}, ValueError, "selection_metric"),
        ({"mst": "prim"}, ValueError, "mst"),
        ({"silhouette_sample_size": 1}, ValueError, "silhouette_sample_size"),
        ({"categorical_features": ["nope"]}, ValueError, "categorical_features"),
    ],
)
def test_compare_clusterings_checks_options_as_detect_subgroups(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        compare_clusterings(X, Y, P, [2, 3], **kwargs)
    with pytest.raises(exc, match=match):
        detect_subgroups(X, Y, P, n_clusters=2, **kwargs)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.05", np.nan])
def test_check_alpha(bad):
    with pytest.raises(ValueError, match="alpha must be a false-discovery rate"):
        check_alpha(bad)
    rep = detect_subgroups(X, Y, P, n_clusters=2, random_state=0)
    with pytest.raises(ValueError, match="alpha must be a false-discovery rate"):
        rep.ranking("statistical_parity", alpha=bad)


def test_check_alpha_accepts_a_rate():
    assert check_alpha(np.float64(0.05)) == 0.05
