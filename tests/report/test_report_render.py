"""The HTML report: escaping of every user string, self-containment, embedded figures, model checks."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from payloads import DANGEROUS, PAYLOADS, figure, payload_frame, payload_report

from aif360_subjective.report import Figure, Report, Table, format_value, render_report


@pytest.fixture(scope="module")
def html() -> str:
    return payload_report().render()


@pytest.mark.parametrize("payload", PAYLOADS)
def test_raw_payload_never_appears(html, payload):
    assert payload not in html


@pytest.mark.parametrize("marker", DANGEROUS)
def test_no_dangerous_markup(html, marker):
    assert marker.lower() not in html.lower()


def test_payloads_are_shown_as_text(html):
    # The escaped form is there: the user sees the string, the browser does not run it.
    assert "&lt;script&gt;window.__pwned=1;document.title=&#39;PWNED&#39;&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&#34;window.__pwned=1" in html


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs = set(), set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)


def test_every_tag_is_from_the_template(html):
    parser = _Collector()
    parser.feed(html)
    tags = parser.tags
    allowed = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p", "div", "nav", "ol",
               "li", "a", "main", "section", "figure", "figcaption", "table", "thead", "tbody", "tr", "th", "td",
               "img", "details", "summary", "footer"}
    assert tags <= allowed, tags - allowed
    # No event-handler attribute anywhere.
    assert parser.attrs <= {"lang", "charset", "http-equiv", "content", "name", "id", "href", "class", "src", "alt",
                            "scope", "aria-label", "open"}, parser.attrs


def test_self_contained(html):
    lower = html.lower()
    assert "<script" not in lower
    assert "<link" not in lower
    assert "@import" not in lower
    assert "url(" not in lower
    for attr in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", html, flags=re.IGNORECASE):
        assert attr.startswith(("data:image/png;base64,", "#section-")), attr
    assert "http://" not in lower and "https://" not in lower
    assert "Content-Security-Policy" in html and "content=\"default-src 'none'; img-src data:;" in html


def test_figures_embedded_as_png(html):
    srcs = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(srcs) == 2
    for s in srcs:
        assert base64.b64decode(s).startswith(b"\x89PNG\r\n\x1a\n")


def test_table_cells_exact():
    df = pd.DataFrame({"a": [1, 2], "b": [0.12345, np.nan], "c": ["x", None]},
                      index=pd.Index(["i1", "i2"], name="item"))
    t = Table.from_frame(df, "cap")
    assert t.header == [["item", "a", "b", "c"]]
    assert t.rows == [["i1", "1", "0.123", "x"], ["i2", "2", "–", "–"]]
    assert t.numeric == [False, True, True, False]
    assert t.n_index == 1 and t.n_rows_hidden == 0


def test_table_multiindex_and_truncation():
    idx = pd.MultiIndex.from_tuples([("cluster", 0), ("entropy", 1), ("entropy", 2)], names=["kind", "id"])
    cols = pd.MultiIndex.from_tuples([("sp", "mean"), ("sp", "std")])
    df = pd.DataFrame([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], index=idx, columns=cols)
    t = Table.from_frame(df, max_rows=2)
    assert t.header == [["", "", "sp", "sp"], ["kind", "id", "mean", "std"]]
    assert t.rows[1] == ["entropy", "1", "0.300", "0.400"]
    assert t.n_rows_hidden == 1
    rep = Report("x")
    rep.section("s").table(df, max_rows=2)
    assert "1 more rows not shown." in rep.render()


def test_table_without_index_and_series():
    t = Table.from_frame(pd.Series([1.0, 2.0], name="v"), index=False)
    assert t.header == [["v"]] and t.rows == [["1.000"], ["2.000"]]


@pytest.mark.parametrize(("value", "text"), [
    (None, "–"), (np.nan, "–"), (pd.NA, "–"), (3, "3"), (np.int64(1234), "1,234"), (0.5, "0.500"),
    (np.float32(0.25), "0.250"), (True, "True"), (np.inf, "∞"), ("a<b", "a<b"),
    (pd.Timestamp(0), "1970-01-01 00:00:00"),
])
def test_format_value(value, text):
    assert format_value(value) == text


def test_figure_from_matplotlib_and_png(tmp_path):
    f = Figure.from_matplotlib(figure(), caption="c")
    assert f.png_bytes.startswith(b"\x89PNG") and f.alt == "c"
    p = tmp_path / "f.png"
    p.write_bytes(f.png_bytes)
    assert Figure.from_png(p).png_base64 == f.png_base64
    with pytest.raises(ValueError, match="PNG"):
        Figure.from_png(b"<svg onload=alert(1)>")
    with pytest.raises(TypeError, match="matplotlib Figure"):
        Figure.from_matplotlib("not a figure")


def test_bad_input_errors():
    with pytest.raises(TypeError, match="title must be a str"):
        Report(3)
    with pytest.raises(TypeError, match="frame must be a pandas DataFrame"):
        Report("r").section("s").table([[1, 2]])
    with pytest.raises(ValueError, match="kind must be"):
        Report("r").section("s").text("x", kind="html")
    with pytest.raises(TypeError, match="report must be a Report"):
        render_report("x")
    rep = Report("r")
    rep.section("s").blocks.append("<b>raw</b>")
    with pytest.raises(TypeError, match="holds a str"):
        rep.render()


def test_save_and_figures_listing(tmp_path):
    rep = payload_report()
    assert len(rep.figures()) == 2
    path = rep.save(tmp_path / "r.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")


def test_payload_frame_cells_roundtrip():
    # The table keeps the exact user strings (escaping happens in the template only).
    t = Table.from_frame(payload_frame(PAYLOADS[0]))
    assert t.header[0][0] == f"id {PAYLOADS[0]}"
    assert t.header[0][1] == PAYLOADS[0]
    assert t.rows[0][0] == PAYLOADS[0] and t.rows[0][3] == PAYLOADS[0]


def test_facts_given_to_the_constructor_are_kept_and_formatted():
    rep = Report("Audit", facts={"unfairness": 0.123456, "annotators": 150})
    assert rep.facts == {"unfairness": format_value(0.123456, 3), "annotators": format_value(150, 3)}
    assert rep.facts["unfairness"] == "0.123"
    rep.fact("groups", 5)
    assert list(rep.facts) == ["unfairness", "annotators", "groups"]
    assert "0.123" in render_report(rep)
    with pytest.raises(TypeError, match="facts must be a mapping"):
        Report("Audit", facts=[("a", 1)])


def test_rewrite_text_reaches_every_sentence_and_nothing_else():
    from aif360_subjective.report import Details, Paragraph, Report, Table

    rep = Report("title x", summary=["summary x"])
    rep.fact("fact x", "value x")
    sec = rep.section("section x")
    sec.text("para x").table(pd.DataFrame({"col x": ["cell x"]}), "caption x")
    inner = sec.details("details x")
    inner.text("inner x", kind="note")
    rep.rewrite_text(lambda t: t.replace("x", "Y"))
    assert rep.summary == ["summary Y"] and rep.title == "title x" and rep.facts == {"fact x": "value x"}
    para, table, details = sec.blocks
    assert isinstance(para, Paragraph) and para.text == "para Y"
    assert isinstance(table, Table) and table.caption == "caption Y" and table.rows == [["0", "cell x"]]
    assert table.header == [["", "col x"]]
    assert isinstance(details, Details) and details.summary == "details Y" and details.blocks[0].text == "inner Y"
    assert sec.title == "section x"


def test_bidi_controls_in_data_are_isolated_everywhere():
    # An unterminated right-to-left override in a value would reverse the page's text after it; each data string
    # holding one is wrapped in FSI ... PDI (characters, so titles and attributes stay valid).
    evil = "region\u202egnp.exe"
    rep = Report(title=f"audit {evil}", summary=[f"lead {evil}"], facts={f"fact {evil}": evil}, footer=f"foot {evil}")
    rep.section(f"Section {evil}").text(f"text {evil}").table(
        pd.DataFrame({f"col {evil}": [evil, "plain"]}, index=pd.Index([evil, "b"], name="id")), caption=evil)
    html = render_report(rep)
    wrapped_count = html.count("\u2068")
    assert wrapped_count >= 10 and wrapped_count == html.count("\u2069")
    assert "\u2068plain" not in html and "plain\u2069" not in html  # strings without controls are untouched
    # every override opened in the page is closed before its element ends: between two tags, each U+202E
    # follows an FSI that a later PDI closes
    for chunk in re.split(r"<[^>]+>", html):
        for pos in (m.start() for m in re.finditer("\u202e", chunk)):
            assert chunk.rfind("\u2068", 0, pos) >= 0 and chunk.find("\u2069", pos) > pos, repr(chunk)
