"""CrowdTruth 2.0 quality metrics on annotation tables (pure computation, no AIF360 classes).

* :func:`crowdtruth_scores`: unit, worker and annotation quality scores.
* :class:`CrowdTruthResult`: what it returns.
"""

from .crowdtruth import crowdtruth_scores
from .engine import CrowdTruthResult

__all__ = ["CrowdTruthResult", "crowdtruth_scores"]
