"""The opinion-exclusion engine (Balayn et al. 2019): who is served worse when labels are opinions.

One core and two thin faces, as elsewhere in AIF360: :class:`~aif360_subjective.metrics.OpinionExclusionMetric`
(the AIF360 metric class) and :mod:`.functional` (the ``sklearn``-style functions, re-exported by
:mod:`aif360_subjective.sklearn.metrics`) both build an :class:`OpinionOptions` once and call :mod:`.core`.

Modules, in the order the data flows: :mod:`.options` (options, declared and checked once), :mod:`.annotations`
(encoding, majority vote, ADR), :mod:`.groupers` (one function per grouping kind), :mod:`.groups` (bins, group
sizes, summary), :mod:`.core` (the computation from counts), :mod:`.bootstrap` and :mod:`.uncertainty`
(intervals), :mod:`.equal_service` (the test of equal service, the unfairness interval) and :mod:`.verdict` (the
verdict sentence), :mod:`.excluded`, :mod:`.excluded_candidates`, :mod:`.excluded_statistic` and
:mod:`.excluded_result` (discovering whose opinions are excluded),
:mod:`.functional` (the function face), ``_dask`` (the Dask back end, imported only when a Dask collection arrives).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._deprecation import renamed
from .._lazy import lazy_names
from .core import OpinionExclusionResult
from .groups import GroupingSummary
from .options import IntervalOptions, OpinionOptions, check_opinion_options

if TYPE_CHECKING:
    from .equal_service import ExclusionTest, UnfairnessInterval, exclusion_test, unfairness_interval
    from .excluded import excluded_groups
    from .excluded_result import ExcludedGroups
    from .functional import opinion_exclusion
    from .result_audit import ResultAudit
    from .verdict import verdict_sentence

#: The public names imported on first use, by module: a Dask or Spark worker imports this package to run
#: ``_dask``'s per-partition counts, which need only the core, the groups and the options; the test of equal
#: service (scipy.stats) and the discovery of excluded groups (the subgroup discovery) would cost each worker
#: seconds of imports it never uses.
_LAZY = {
    "ExclusionTest": "equal_service", "UnfairnessInterval": "equal_service", "exclusion_test": "equal_service",
    "unfairness_interval": "equal_service", "excluded_groups": "excluded", "ExcludedGroups": "excluded_result",
    "opinion_exclusion": "functional", "ResultAudit": "result_audit", "verdict_sentence": "verdict",
}

__all__ = [
    "ExcludedGroups",
    "ExclusionTest",
    "GroupingSummary",
    "IntervalOptions",
    "OpinionExclusionResult",
    "OpinionOptions",
    "ResultAudit",
    "UnfairnessInterval",
    "check_opinion_options",
    "excluded_groups",
    "exclusion_test",
    "opinion_exclusion",
    "unfairness_interval",
    "verdict_sentence",
]

# ``GroupingReport``: the former name of GroupingSummary, served with a DeprecationWarning
_renamed = renamed(__name__, {"GroupingReport": ("GroupingSummary", lambda: GroupingSummary)})


# a public name of _LAZY (imported once, then a module attribute) or a former name
__getattr__ = lazy_names(__name__, {name: f".{home}" for name, home in _LAZY.items()}, fallback=_renamed)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
