"""Report sections built from the package's results, one module per family.

* :func:`subgroup_sections` (:mod:`.subgroup_sections`): the answer, the rankings and the ASDF dashboard's
  views of a subgroup-discovery result.
* :func:`opinion_sections` (:mod:`.opinion_sections`): an opinion-exclusion audit of one or several models.
* :func:`crowdtruth_sections` (:mod:`.crowdtruth_sections`): CrowdTruth annotator quality and the annotators
  a filter removed.
* :func:`excluded_groups_section` (:mod:`.excluded_sections`): whose opinions are excluded (the annotator groups a
  discovery found served worse).
* :mod:`.answer`: the answer block (who is served worst, how sure that is, the significant findings) shared by
  the report and the command line.

Each builder returns a list of :class:`~.model.Section` to add to a :class:`~.model.Report` with
``report.extend``. This module gathers their public names (the import path used so far).
"""

from __future__ import annotations

from ._text import format_q, interval_text, q_columns_as_text, share_text
from .crowdtruth_sections import crowdtruth_sections
from .excluded_sections import excluded_groups_section
from .opinion_sections import (
    interval_meaning,
    opinion_sections,
    opinion_summary_table,
    thin_group_line,
)
from .subgroup_sections import (
    ALTERNATIVES_MAX_ROWS,
    SIGN_CONVENTION,
    discovery_section,
    lopsided_alternatives,
    pattern_texts,
    patterns_as_in_table,
    significance_mark,
    subgroup_interval_table,
    subgroup_sections,
    whole_numbers_as_int,
)

__all__ = [
    "ALTERNATIVES_MAX_ROWS",
    "SIGN_CONVENTION",
    "crowdtruth_sections",
    "discovery_section",
    "excluded_groups_section",
    "format_q",
    "interval_meaning",
    "interval_text",
    "lopsided_alternatives",
    "opinion_sections",
    "opinion_summary_table",
    "pattern_texts",
    "patterns_as_in_table",
    "q_columns_as_text",
    "share_text",
    "significance_mark",
    "subgroup_interval_table",
    "subgroup_sections",
    "thin_group_line",
    "whole_numbers_as_int",
]
