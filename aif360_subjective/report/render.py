"""Render a :class:`~.model.Report` to one self-contained HTML page with Jinja2 (autoescaping on).

Safety: every string of the model is escaped by the template engine; figures are base64 PNG data URIs;
the page carries a Content-Security-Policy that forbids scripts and any network load, so even a
mistake elsewhere could not run code or fetch anything when the file is opened.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import jinja2
from markupsafe import Markup

from .model import Details, Figure, Paragraph, Report, Table, use_renderer

#: The page's policy: no scripts, no network; images only from data: URIs, inline styles only.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
)


#: Unicode's explicit directional formatting characters (embeddings, overrides, isolates, marks): in a data string
#: an unterminated right-to-left override would reverse the text that follows it on the page.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def isolate_bidi(value: Any) -> Any:
    """A data string holding directional formatting characters wrapped in FIRST STRONG ISOLATE ... POP DIRECTIONAL
    ISOLATE, so that whatever it opens ends with it (the isolate's end closes every embedding and override opened
    inside it); other values as they are. Characters, not markup: it is safe in an attribute and in ``<title>``.

    References:
        Unicode Standard Annex #9, "Unicode Bidirectional Algorithm", rules X5a-X6a (isolates).
    """
    if isinstance(value, str) and not isinstance(value, Markup) and BIDI_CONTROLS.search(value):
        return "\u2068" + value + "\u2069"
    return value


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("aif360_subjective.report", "templates"),
        autoescape=True,  # always, whatever the template's file name
        finalize=isolate_bidi,  # every value printed by the templates, before it is escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.tests["paragraph"] = lambda b: isinstance(b, Paragraph)
    env.tests["table"] = lambda b: isinstance(b, Table)
    env.tests["figure"] = lambda b: isinstance(b, Figure)
    env.tests["details"] = lambda b: isinstance(b, Details)
    return env


@use_renderer
def render_report(report: Report) -> str:
    """Render a report to an HTML string.

    Args:
        report: the report.

    Returns:
        str: the complete HTML page.

    Raises:
        TypeError: ``report`` is not a :class:`Report`, or a section holds an unknown block.
    """
    if not isinstance(report, Report):
        raise TypeError(f"report must be a Report, got {type(report).__name__}")
    for i, section in enumerate(report.sections, start=1):
        section.anchor = f"section-{i}"  # generated, never from data
        _check_blocks(section.blocks, section.title)
    template = _environment().get_template("report.html")
    return template.render(report=report, csp=Markup(CONTENT_SECURITY_POLICY))  # a constant, not data


def _check_blocks(blocks: list[Any], where: str) -> None:
    for b in blocks:
        if isinstance(b, Details):
            _check_blocks(b.blocks, where)
        elif not isinstance(b, (Paragraph, Table, Figure)):
            raise TypeError(f"section {where!r} holds a {type(b).__name__}; expected Paragraph, Table, Figure "
                            "or Details")
