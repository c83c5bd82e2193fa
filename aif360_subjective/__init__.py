"""aif360-subjective: fairness tools for subjective labels, as an AIF360 extension.

Subpackages mirror AIF360's layout:

* :mod:`aif360_subjective.datasets`: multi-annotator datasets and loaders.
* :mod:`aif360_subjective.quality`: CrowdTruth 2.0 quality scores.
* :mod:`aif360_subjective.metrics`: opinion-exclusion and subgroup-discovery metrics.
* :mod:`aif360_subjective.detectors`: automated subgroup discovery (ASDF).
* :mod:`aif360_subjective.algorithms`: the CrowdTruth filter and the annotator-aware classifier.
"""

from ._compat import install_quiet_aif360_import

__version__ = "0.3.0.dev0"

# aif360 is imported by the subpackages that need it (not here: the command line's --version stays fast); its
# optional-extras notices are filtered whenever that happens.
install_quiet_aif360_import()

__all__ = ["__version__"]
