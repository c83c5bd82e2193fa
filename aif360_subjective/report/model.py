"""The report model: a title, a summary and sections of paragraphs, tables, figures and details.

Everything here is plain data; :mod:`.render` turns it into one self-contained HTML file with a
Jinja2 template whose autoescaping is on, so every string (ids, column names, category values,
titles) reaches the page escaped. Nothing in this module produces HTML.
"""

from __future__ import annotations

import base64
import io
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from .._labels import group_label

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# The model knows no renderer: :mod:`.render` (which imports this module, never the reverse) installs its
# ``render_report`` here with :func:`use_renderer`, so ``Report.render()`` works without an import cycle.
_RENDERER: Callable[[Report], str] | None = None


def use_renderer(renderer: Callable[[Report], str]) -> Callable[[Report], str]:
    """Install the function behind :meth:`Report.render` (returned unchanged, to use as a decorator)."""
    global _RENDERER
    _RENDERER = renderer
    return renderer
_MISSING = "–"


def _check_str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


def format_value(value: Any, digits: int = 3) -> str:
    """Format one table cell as text (the template escapes it).

    Args:
        value: any scalar.
        digits: decimals of floats.

    Returns:
        str: ``"–"`` for missing values, integers without decimals, floats with ``digits`` decimals,
        anything else through ``str``.
    """
    if value is None:
        return _MISSING
    if isinstance(value, pd.Interval):  # a bin of a grouping: one readable form everywhere (0.00–0.07)
        return group_label(value)
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isnan(v):
            return _MISSING
        if math.isinf(v):
            return "∞" if v > 0 else "-∞"
        return f"{v:,.{digits}f}"
    try:
        if pd.isna(value):
            return _MISSING
    except (TypeError, ValueError):  # arrays, lists: not a scalar NA
        pass
    return str(value)


def _id_text(value: Any) -> str:
    """A row label: integer ids as written (item 1046, not 1,046); anything else as :func:`format_value`."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    return format_value(value)


def _label(key: Any) -> str:
    """Header text of a (possibly MultiIndex) column or index label."""
    if isinstance(key, tuple):
        return " / ".join(format_value(k) for k in key if not (isinstance(k, str) and k == ""))
    return format_value(key)


@dataclass
class Paragraph:
    """A paragraph of plain text (never interpreted as HTML).

    Attributes:
        text: the text.
        kind: ``"text"``, ``"note"`` (highlighted explanation) or ``"warning"``.
    """

    text: str
    kind: str = "text"

    def __post_init__(self) -> None:
        _check_str("text", self.text)
        if self.kind not in ("text", "note", "warning"):
            raise ValueError(f"kind must be 'text', 'note' or 'warning', got {self.kind!r}")


@dataclass
class Table:
    """A table built from a DataFrame; cells and headers are kept as text and escaped when rendered.

    Attributes:
        header: rows of header cells (one row, or one per level of MultiIndex columns).
        rows: rows of body cells; the first ``n_index`` cells of a row are the row labels.
        n_index: number of leading label cells per row.
        caption: text shown above the table.
        n_rows_total: number of rows of the frame (the table may show fewer, see ``max_rows``).
        numeric: per column, whether to align it right.
    """

    header: list[list[str]]
    rows: list[list[str]]
    n_index: int
    caption: str = ""
    n_rows_total: int = 0
    numeric: list[bool] = field(default_factory=list)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame | pd.Series, caption: str = "", *, index: bool = True,
                   digits: int = 3, max_rows: int | None = 200) -> Table:
        """Convert a DataFrame (or Series) to a table of strings.

        Args:
            frame: the data.
            caption: text shown above the table.
            index: show the row labels (index levels become the first columns).
            digits: decimals of floats.
            max_rows: show at most this many rows (the caption says how many were left out); None = all.

        Returns:
            Table: the table.

        Raises:
            TypeError: ``frame`` is not a DataFrame or Series.
        """
        if isinstance(frame, pd.Series):
            frame = frame.to_frame()
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame or Series, got {type(frame).__name__}")
        _check_str("caption", caption)
        n_total = len(frame)
        shown = frame if max_rows is None else frame.iloc[:max_rows]
        idx_names = [_label(n) if n is not None else "" for n in frame.index.names] if index else []
        n_index = len(idx_names)
        ncol_levels = frame.columns.nlevels
        header: list[list[str]] = []
        for level in range(ncol_levels):
            cols = [format_value(c[level] if ncol_levels > 1 else c) for c in frame.columns]
            header.append((idx_names if level == ncol_levels - 1 else [""] * n_index) + cols)
        numeric = [False] * n_index + [
            pd.api.types.is_numeric_dtype(frame.iloc[:, j]) and not pd.api.types.is_bool_dtype(frame.iloc[:, j])
            for j in range(frame.shape[1])
        ]
        values = shown.to_numpy(dtype=object)
        labels = list(shown.index)
        rows = []
        for lab, vals in zip(labels, values, strict=True):
            if isinstance(frame.index, pd.MultiIndex):
                lab_cells = [_id_text(x) for x in lab]
            elif isinstance(lab, tuple):  # one level holding tuples (e.g. intersections of attributes)
                lab_cells = [" & ".join(_id_text(x) for x in lab)]
            else:
                lab_cells = [_id_text(lab)]
            rows.append((lab_cells if index else []) + [format_value(v, digits) for v in vals])
        return cls(header=header, rows=rows, n_index=n_index, caption=caption, n_rows_total=n_total,
                   numeric=numeric)

    @property
    def n_rows_hidden(self) -> int:
        """Rows of the frame not shown."""
        return max(self.n_rows_total - len(self.rows), 0)


@dataclass
class Figure:
    """A PNG image embedded in the page as base64.

    Attributes:
        png_base64: the PNG file, base64-encoded (ASCII).
        caption: text under the figure.
        alt: alternative text.
    """

    png_base64: str
    caption: str = ""
    alt: str = ""

    @classmethod
    def from_matplotlib(cls, fig: Any, caption: str = "", alt: str = "", *, dpi: int = 110,
                        close: bool = True) -> Figure:
        """Embed a matplotlib Figure (or Axes: its figure) as a PNG.

        Args:
            fig: a ``matplotlib.figure.Figure`` or ``Axes``.
            caption: text under the figure.
            alt: alternative text (defaults to the caption).
            dpi: resolution.
            close: close the figure afterwards (frees memory in long runs).

        Returns:
            Figure: the figure.

        Raises:
            TypeError: ``fig`` is not a matplotlib Figure or Axes.
        """
        from matplotlib.axes import Axes
        from matplotlib.figure import Figure as MplFigure

        if isinstance(fig, Axes):
            fig = fig.figure
        if not isinstance(fig, MplFigure):
            raise TypeError(f"fig must be a matplotlib Figure or Axes, got {type(fig).__name__}")
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
        if close:
            import matplotlib.pyplot as plt

            plt.close(fig)
        return cls.from_png(buf.getvalue(), caption=caption, alt=alt)

    @classmethod
    def from_png(cls, png: bytes | str | Path, caption: str = "", alt: str = "") -> Figure:
        """Embed a PNG given as bytes or a file path.

        Raises:
            ValueError: the data is not a PNG file.
        """
        if isinstance(png, (str, Path)):
            png = Path(png).read_bytes()
        if not isinstance(png, (bytes, bytearray)) or not bytes(png).startswith(_PNG_MAGIC):
            raise ValueError("png must be the bytes (or path) of a PNG file")
        _check_str("caption", caption)
        _check_str("alt", alt)
        return cls(base64.b64encode(bytes(png)).decode("ascii"), caption=caption, alt=alt or caption)

    @property
    def png_bytes(self) -> bytes:
        """The decoded PNG file."""
        return base64.b64decode(self.png_base64)


class _Container:
    """Shared builder methods of sections and details: append blocks, return self or the new block."""

    blocks: list[Any]

    def text(self, *paragraphs: str, kind: str = "text") -> _Container:
        """Append paragraphs of plain text (``kind``: "text", "note" or "warning")."""
        for p in paragraphs:
            self.blocks.append(Paragraph(p, kind=kind))
        return self

    def table(self, frame: pd.DataFrame | pd.Series, caption: str = "", **kwargs: Any) -> _Container:
        """Append a table (keyword arguments as :meth:`Table.from_frame`)."""
        self.blocks.append(Table.from_frame(frame, caption, **kwargs))
        return self

    def figure(self, fig: Any, caption: str = "", alt: str = "", **kwargs: Any) -> _Container:
        """Append a matplotlib figure (or a :class:`Figure`, or PNG bytes/path)."""
        if isinstance(fig, Figure):
            self.blocks.append(fig)
        elif isinstance(fig, (bytes, bytearray, str, Path)):
            self.blocks.append(Figure.from_png(bytes(fig) if isinstance(fig, bytearray) else fig, caption=caption,
                                               alt=alt))
        else:
            self.blocks.append(Figure.from_matplotlib(fig, caption=caption, alt=alt, **kwargs))
        return self

    def details(self, summary: str, open: bool = False, muted: bool = False) -> Details:  # noqa: A002
        """Append an expandable block and return it (fill it with the same methods); ``muted`` greys its
        summary line (e.g. a subgroup with no significant disparity)."""
        d = Details(summary, open=open, muted=muted)
        self.blocks.append(d)
        return d


@dataclass
class Details(_Container):
    """An expandable block (``<details>``) with a one-line summary and inner blocks; ``muted`` greys the summary."""

    summary: str
    open: bool = False
    blocks: list[Any] = field(default_factory=list)
    muted: bool = False

    def __post_init__(self) -> None:
        _check_str("summary", self.summary)


@dataclass
class Section(_Container):
    """A titled section of the report.

    Attributes:
        title: the heading.
        blocks: paragraphs, tables, figures and details, in order.
        anchor: the id used by the table of contents (set by the report).
    """

    title: str
    blocks: list[Any] = field(default_factory=list)
    anchor: str = ""

    def __post_init__(self) -> None:
        _check_str("title", self.title)


@dataclass
class Report:
    """A report: title, summary (paragraphs and key figures) and sections.

    Example:
        >>> rep = Report("Audit", summary="What we found.")
        >>> rep.section("Groups").text("Explanation").table(frame)  # doctest: +SKIP
        >>> rep.save("report.html")  # doctest: +SKIP

    Attributes:
        title: the page title.
        summary: paragraphs shown first.
        facts: key figures shown as cards (label -> value).
        sections: the sections in order.
        footer: a line at the bottom (e.g. the package version).
    """

    title: str
    summary: list[str] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)
    footer: str = ""

    def __post_init__(self) -> None:
        _check_str("title", self.title)
        if isinstance(self.summary, str):
            self.summary = [self.summary]
        self.summary = [_check_str("summary", s) for s in self.summary]
        # facts given to the constructor go through the same checks and formatting as fact()
        given, self.facts = self.facts, {}
        if not isinstance(given, Mapping):
            raise TypeError(f"facts must be a mapping label -> value, got {type(given).__name__}")
        self.add_facts(given)
        if not self.footer:
            self.footer = f"Generated by aif360-subjective {__version__}."

    def fact(self, label: str, value: Any, digits: int = 3) -> Report:
        """Add a key figure to the summary cards."""
        self.facts[_check_str("label", label)] = format_value(value, digits)
        return self

    def add_facts(self, facts: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> Report:
        """Add several key figures."""
        items = facts.items() if isinstance(facts, Mapping) else facts
        for k, v in items:
            self.fact(k, v)
        return self

    def rewrite_text(self, fn: Callable[[str], str]) -> Report:
        """Apply ``fn`` to every sentence of the report: summary paragraphs, paragraphs, table captions and
        expandable-block summaries, at any depth (the command line writes library sentences with its options'
        names: ``adr_fit='cross'`` -> ``--adr-fit cross``). Table cells, titles and facts are left as they are.

        Returns:
            Report: this report (rewritten in place).

        Raises:
            TypeError: ``fn`` is not callable, or returns something other than a str.
        """
        if not callable(fn):
            raise TypeError(f"fn must be callable (str -> str), got {type(fn).__name__}")

        def new(text: str) -> str:
            out = fn(text)
            if not isinstance(out, str):
                raise TypeError(f"fn must return a str, got {type(out).__name__} for {text[:40]!r}")
            return out

        self.summary = [new(t) for t in self.summary]

        def walk(blocks: list[Any]) -> None:
            for block in blocks:
                if isinstance(block, Paragraph):
                    block.text = new(block.text)
                elif isinstance(block, Table | Figure):
                    block.caption = new(block.caption)
                elif isinstance(block, Details):
                    block.summary = new(block.summary)
                    walk(block.blocks)

        for sec in self.sections:
            walk(sec.blocks)
        return self

    def section(self, title: str) -> Section:
        """Append a new section and return it."""
        s = Section(title)
        self.sections.append(s)
        return s

    def extend(self, sections: Iterable[Section]) -> Report:
        """Append ready-made sections (e.g. from :func:`subgroup_sections`)."""
        for s in sections:
            if not isinstance(s, Section):
                raise TypeError(f"sections must hold Section objects, got {type(s).__name__}")
            self.sections.append(s)
        return self

    def figures(self) -> list[Figure]:
        """Every figure of the report, in order (to save them as PNG files too)."""
        out: list[Figure] = []

        def walk(blocks: list[Any]) -> None:
            for b in blocks:
                if isinstance(b, Figure):
                    out.append(b)
                elif isinstance(b, Details):
                    walk(b.blocks)

        for s in self.sections:
            walk(s.blocks)
        return out

    def render(self) -> str:
        """The report as one self-contained HTML page (see :func:`~.render.render_report`)."""
        if _RENDERER is None:  # the package's __init__ imports the renderer: only a bare module import lacks it
            raise RuntimeError("no HTML renderer installed: import aif360_subjective.report")
        return _RENDERER(self)

    def save(self, path: str | Path) -> Path:
        """Write the HTML page (UTF-8) and return its path.

        The page is written to a temporary file next to ``path`` and renamed into place when complete: a failed
        write (full disk, no permission) leaves an earlier file at ``path`` unchanged.

        Raises:
            OSError: the file could not be written (:class:`aif360_subjective._io.OutputError`, naming it).
        """
        from .._io import write_text

        return write_text(Path(path), self.render())
