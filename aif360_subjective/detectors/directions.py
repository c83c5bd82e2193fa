"""Which side of each subgroup metric means "the subgroup is disadvantaged": one table for every consumer.

The ranking, the HTML report, the command line and the plots all read :data:`DIRECTIONS` (the registry's
directions) so that "most
disadvantaged" means the same thing everywhere:

* ``statistical_parity``, ``equal_opportunity``, ``equalized_odds`` are rest minus subgroup: a **larger**
  value means the subgroup gets the favourable prediction less often (disadvantaged); the reference is 0.
* ``accuracy_error`` is subgroup accuracy minus overall accuracy and ``accuracy`` is the subgroup's accuracy:
  a **smaller** value means the model errs more on the subgroup (disadvantaged); the reference is 0 for
  ``accuracy_error`` and the overall accuracy for ``accuracy``.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", Table 1
    (the metric definitions; the dashboard sorts every metric the same way, which inverts accuracy error).
"""

from __future__ import annotations

from .._param_tables import SUBGROUP_PARAMS
from .._validation import check_choice
from .subgroup_metrics import ALL_METRICS

__all__ = ["DIRECTIONS", "DIRECTION_CHOICES", "check_direction", "disadvantaged_is_larger", "sort_descending"]

#: metric -> ``"larger"`` or ``"smaller"``: the side on which the subgroup is disadvantaged (read from the
#: registries :data:`~aif360_subjective.detectors.subgroup_metrics.ALL_METRICS`, every task's metrics).
DIRECTIONS: dict[str, str] = {name: m.direction for name, m in ALL_METRICS.items()}

#: The values of the ``direction`` argument of the rankings.
DIRECTION_CHOICES: tuple[str, ...] = SUBGROUP_PARAMS.choices("direction")


def check_direction(direction: object) -> str:
    """Validate a ``direction`` argument.

    Raises:
        ValueError: not one of :data:`DIRECTION_CHOICES`.
    """
    return check_choice(direction, "direction", DIRECTION_CHOICES)


def disadvantaged_is_larger(metric: str) -> bool:
    """True when larger values of ``metric`` mean the subgroup is disadvantaged.

    Raises:
        ValueError: ``metric`` not in :data:`DIRECTIONS`.
    """
    return DIRECTIONS[check_choice(metric, "metric", DIRECTIONS)] == "larger"


def sort_descending(metric: str, direction: str) -> bool:
    """Whether the raw ranking of ``metric`` in ``direction`` sorts values from largest to smallest.

    ``"size"`` has no disadvantaged side: ``"disadvantaged"`` (the default) lists the largest subgroups first,
    ``"favoured"`` the smallest.
    """
    check_direction(direction)
    larger = True if metric == "size" else disadvantaged_is_larger(metric)
    return larger == (direction == "disadvantaged")
