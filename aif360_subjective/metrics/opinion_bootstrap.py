"""Deprecated alias of :mod:`aif360_subjective.opinion.bootstrap` (moved in 0.3; removed in 0.4)."""

from aif360_subjective._deprecation import moved

moved(__name__, "aif360_subjective.opinion.bootstrap")
