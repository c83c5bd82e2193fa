"""The public faces and the parameter tables: faces delegate rather than copy signatures, every keyword of every face
is a table row (or on a short stated list), and every face refuses the invalid values generated from a row's
constraints with an error naming the argument (as scikit-learn's common tests do for estimators' parameters)."""

from __future__ import annotations

import inspect

import pytest


# ------------------------------------------------------------------------------------------------ faces delegate
def test_opinion_metric_excluded_groups_is_the_functions_options_keyword_only():
    from aif360_subjective.metrics import OpinionExclusionMetric
    from aif360_subjective.opinion import excluded_groups

    method = inspect.signature(OpinionExclusionMetric.excluded_groups).parameters
    function = inspect.signature(excluded_groups).parameters
    options = [p for name, p in method.items() if name != "self"]
    assert options and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in options)
    # the same options as the function, with the same defaults, but the two the metric already knows
    # (None = the metric's performance measure and random_state)
    for p in options:
        assert p.name in function, p.name
        expected = None if p.name in ("performance", "random_state") else function[p.name].default
        assert p.default == expected, p.name
    with pytest.raises(TypeError):
        OpinionExclusionMetric.excluded_groups(object(), ["gender"])  # type: ignore[misc]


def test_sklearn_style_metrics_are_the_functions_themselves():
    """The sklearn-style module re-exports: each name is the function of its home module, not a copy."""
    from aif360_subjective.metrics import perspectivist
    from aif360_subjective.opinion import functional
    from aif360_subjective.sklearn import metrics

    for name in metrics.__all__:
        home = functional if hasattr(functional, name) else perspectivist
        assert getattr(metrics, name) is getattr(home, name), name
