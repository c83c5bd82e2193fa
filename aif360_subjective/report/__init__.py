"""Self-contained HTML reports: one file with tables, embedded figures and explanations.

The generic model (:class:`Report`, :class:`Section`, :class:`Table`, :class:`Figure`, :class:`Details`)
is rendered by a Jinja2 template with autoescaping on; builders turn the package's results into sections
that mirror the ASDF dashboard and the opinion-exclusion audit.
"""

from .model import Details, Figure, Paragraph, Report, Section, Table, format_value
from .render import CONTENT_SECURITY_POLICY, render_report

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "Details",
    "Figure",
    "Paragraph",
    "Report",
    "Section",
    "Table",
    "format_value",
    "render_report",
]
