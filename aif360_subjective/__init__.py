"""aif360-subjective: fairness tools for subjective labels, as an AIF360 extension.

Subpackages mirror AIF360's layout:

* :mod:`aif360_subjective.datasets`: multi-annotator datasets and loaders.
* :mod:`aif360_subjective.quality`: CrowdTruth 2.0 quality scores.
* :mod:`aif360_subjective.metrics`: opinion-exclusion and subgroup-discovery metrics.
* :mod:`aif360_subjective.detectors`: automated subgroup discovery (ASDF).
* :mod:`aif360_subjective.algorithms`: the CrowdTruth filter and the annotator-aware classifier.
"""

import os
import sys

from ._compat import import_aif360_quietly

__version__ = "0.3.0.dev0"


def _run_as_command() -> bool:
    """Whether this process is the ``aif360-subjective`` command (script or ``python -m``)."""
    argv = list(getattr(sys, "orig_argv", []))
    return len(argv) > 1 and (os.path.basename(argv[1]) == "aif360-subjective"
                              or argv[1:3] == ["-m", "aif360_subjective"])


try:
    import_aif360_quietly()
except KeyboardInterrupt:
    # Ctrl-C while the command starts (AIF360 and scikit-learn take seconds to import): one line and the shell's
    # status for an interrupt, as once the command runs (aif360_subjective.cli.main); a library import re-raises
    if _run_as_command():
        sys.stderr.write("aif360-subjective: interrupted; no output was written\n")
        raise SystemExit(130) from None
    raise

__all__ = ["__version__"]
