"""CrowdTruth 2.0 quality metrics on annotation tables (pure computation, no AIF360 classes).

* :func:`crowdtruth_scores`: unit, worker and annotation quality scores.
* :class:`CrowdTruthResult`: what it returns.
"""

from .crowdtruth import CrowdTruthResult, crowdtruth_scores

__all__ = ["CrowdTruthResult", "crowdtruth_scores"]
