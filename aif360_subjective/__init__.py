"""aif360-subjective: fairness tools for subjective labels, as an AIF360 extension.

Subpackages mirror AIF360's layout:

* :mod:`aif360_subjective.datasets`: multi-annotator datasets and loaders.
* :mod:`aif360_subjective.quality`: CrowdTruth 2.0 quality scores.
* :mod:`aif360_subjective.metrics`: opinion-exclusion and subgroup-discovery metrics.
* :mod:`aif360_subjective.detectors`: automated subgroup discovery (ASDF).
* :mod:`aif360_subjective.algorithms`: the CrowdTruth filter and the annotator-aware classifier.
"""

from ._compat import import_aif360_quietly

__version__ = "0.3.0.dev0"

import_aif360_quietly()

__all__ = ["__version__"]
