"""The dashboard's user interface (Panel): one code base for a browser tab (:meth:`Dashboard.serve`) and a Jupyter
cell (display the :class:`Dashboard`).

Panel (HoloViz) serves the same layout to a Bokeh server (one Python process, no database or task queue) and to
a notebook; its Tabulator widget gives the seed dashboard's sortable, per-column filterable tables and rows that
expand. Every figure is the package's own matplotlib figure (:mod:`aif360_subjective.plotting`); every number
comes from :mod:`aif360_subjective.dashboard.state`.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", CIKM
    workshops 2022, section 4 (control tile, data table, radar, size bars, pattern table, rankings). Panel,
    https://panel.holoviz.org (Tabulator widget).
"""

from __future__ import annotations

import dataclasses
import io
import logging
from typing import Any

import numpy as np
import pandas as pd

from .._param_tables import OPINION_PARAMS, SUBGROUP_PARAMS
from ..opinion.options import ORDINAL_PERFORMANCES
from .state import (
    HIERARCHICAL,
    MITIGATIONS,
    OpinionSession,
    OpinionSettings,
    Source,
    SubgroupSession,
    SubgroupSettings,
    accepts_discovery,
    metric_choices,
    subgroup_kinds,
)

__all__ = ["Dashboard", "require_panel", "free_port", "websocket_origins", "start_line"]

log = logging.getLogger(__name__)

#: Errors a control can cause; shown in the page, the app stays alive.
INPUT_ERRORS = (ValueError, TypeError, KeyError, FileNotFoundError)
# the widgets' vocabularies are the parameter tables' (the measures on ratings need ratings, which the tab has not)
PERFORMANCES = [p for p in OPINION_PARAMS.choices("performance") if p not in ORDINAL_PERFORMANCES]
GROUPINGS = list(OPINION_PARAMS.choices("grouping"))
TASKS = list(SUBGROUP_PARAMS.choices("task"))
CI_LEVELS = {"0.95": 0.95, "0.9": 0.9, "0.99": 0.99, "none (raw figures)": None}
#: The favourable-label control's entry for "no binary decisions" (a table audited by another task only).
NO_FAVOURABLE = "none (no binary decisions)"
#: The favourable-label control lists the label values up to this many (a continuous outcome has too many).
MAX_LABEL_OPTIONS = 50
ALPHAS = {"0.05": 0.05, "0.01": 0.01, "0.1": 0.1, "none (raw ranking)": None}
#: The discovery's balance in plain words; the values are the parameter table's (a value added there without words
#: here is listed by its name).
BALANCE_WORDS = {"conditions": "a threshold per number of conditions", "none": "one threshold for all"}
BALANCES = {BALANCE_WORDS.get(v, v): v for v in OPINION_PARAMS.choices("balance")}
#: The discovery's item adjustment in plain words (the values are the table's, as for the balance).
ADJUST_WORDS = {"none": "as they are", "items": "with the other annotations of their item"}
ADJUSTMENTS = {ADJUST_WORDS.get(v, v): v for v in OPINION_PARAMS.choices("adjust")}
_CONDITIONS = OPINION_PARAMS["max_conditions"].interval
assert _CONDITIONS is not None and _CONDITIONS.low is not None and _CONDITIONS.high is not None
#: The numbers of conditions the discovery admits (the table's interval).
CONDITIONS = list(range(int(_CONDITIONS.low), int(_CONDITIONS.high) + 1))


def require_panel() -> Any:
    """Import Panel, or say which extra installs it.

    Raises:
        ImportError: Panel is not installed.
    """
    try:
        import panel as pn
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("the dashboard needs Panel: pip install 'aif360-subjective[dashboard]'") from exc
    return pn


def _figure(ax_or_fig: Any):
    """A Panel pane of a matplotlib figure (the figure is closed: the pane holds its PNG)."""
    import matplotlib.pyplot as plt

    pn = require_panel()
    fig = getattr(ax_or_fig, "figure", ax_or_fig)
    pane = pn.pane.Matplotlib(fig, tight=True, dpi=90, format="png", sizing_mode="scale_width", max_width=700)
    plt.close(fig)
    return pane


#: ASCII punctuation that Markdown may read as syntax; data is shown with each escaped (``\\*``).
_MD_PUNCT = set("\\`*_{}[]()#+-.!|~^=:$%@/,;?")


def lit(value: Any) -> str:
    """``value`` as Markdown that shows its text literally: HTML escaped (no tag, attribute or script from the
    data reaches the page) and Markdown syntax escaped (``*`` stays a star). Every piece of data a Markdown pane
    shows goes through it: column names, values, group names, file names, messages quoting them."""
    import html

    text = "".join(f"\\{c}" if c in _MD_PUNCT else c for c in str(value))
    return html.escape(text, quote=True).replace("\n", " ")


def _pre(text: str) -> str:
    """A ``<pre>`` block showing ``text`` literally (the equivalent commands)."""
    import html

    return f'<pre style="white-space: pre-wrap">{html.escape(text, quote=True)}</pre>'


def _titles(df: pd.DataFrame) -> dict[str, str]:
    """Tabulator column titles for ``df``, HTML-escaped (Tabulator writes a title as HTML)."""
    import html

    return {str(c): html.escape(str(c), quote=True) for c in df.columns}


def _table(df: pd.DataFrame, **kwargs: Any) -> Any:
    """A Tabulator of ``df`` whose titles are escaped (its cells are text: Bokeh's StringFormatter escapes)."""
    pn = require_panel()
    return pn.widgets.Tabulator(df, titles=_titles(df), **kwargs)


def _show_table(widget: Any, df: pd.DataFrame) -> None:
    """Put ``df`` in a Tabulator, titles escaped."""
    widget.param.update(titles=_titles(df), value=df)


def _escaped_options(values: list[Any]) -> dict[str, Any]:
    """Options of a MultiChoice (Choices.js writes its labels as HTML): escaped label -> value."""
    import html

    return {html.escape(str(v), quote=True): v for v in values}


def _with_intervals(table: pd.DataFrame, names: tuple[str, ...], ci: float | None) -> pd.DataFrame:
    """``<name>`` with its ``_ci_low``/``_ci_high`` columns as one text column ``<name> [95% interval]``
    (``0.087 [0.071, 0.104]``, the report's notation); the other columns rounded to 3 decimals."""
    from ..report.sections import interval_text

    out = table.copy()
    for name in names:
        low, high = f"{name}_ci_low", f"{name}_ci_high"
        if ci is None or low not in out.columns:
            continue
        text = [interval_text(v, (a, b)) for v, a, b in zip(out[name], out.pop(low), out.pop(high), strict=True)]
        out[name] = text
        out = out.rename(columns={name: f"{name} [{ci:.0%} interval]"})
    return out.round(3)


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def free_port(address: str = "127.0.0.1") -> int:
    """A port free on ``address`` now (the server binds it right after)."""
    import socket

    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family) as sock:
        sock.bind((address, 0))
        return int(sock.getsockname()[1])


def websocket_origins(address: str, port: int, extra: list[str] | None = None) -> list[str]:
    """The pages (``host:port``) whose scripts may open the dashboard's websocket: this machine's names at the
    port, the address listened on, and ``extra``."""
    hosts = ["localhost", "127.0.0.1"]
    if address not in hosts and address not in ("0.0.0.0", "::", ""):
        hosts.append(f"[{address}]" if ":" in address else address)
    out = [f"{h}:{port}" for h in hosts]
    return out + [o for o in (extra or []) if o not in out]


def start_line(address: str, port: int, origins: list[str]) -> str:
    """What the command prints when the server starts: where it listens, for whom, and how to stop it."""
    host = f"[{address}]" if ":" in address else address
    if address in LOOPBACK:
        where = "this machine only"
    elif address in ("0.0.0.0", "::", ""):
        where = "every network interface: other machines can reach it"
        host = "localhost"
    else:
        where = f"the interface {address}: other machines of that network can reach it"
    return (f"Serving the dashboard on http://{host}:{port}/ (listening on {address or '0.0.0.0'}, {where}; "
            f"pages allowed to open its websocket: {', '.join(origins)}). Ctrl-C stops it.")


#: The largest CSV the dashboard's upload takes. A browser sends an uploaded file base64-encoded in one websocket
#: message, and Bokeh's server closes the connection, without a word to the page, on a message over its limit (20 MB
#: by default: a 30 MB file ended the session). The server's limit is set to :data:`WEBSOCKET_MAX_MESSAGE`, so a file
#: up to about 1.5 times this size arrives and one above this size is refused with a message; the upload's label
#: states the limit beforehand.
MAX_UPLOAD_BYTES = 100 * 2**20
#: The websocket message limit of a served dashboard (``websocket_max_message_size``), well above a base64 upload of
#: :data:`MAX_UPLOAD_BYTES` (4/3 of it, plus the message's envelope).
WEBSOCKET_MAX_MESSAGE = 2 * MAX_UPLOAD_BYTES

#: The page's Content-Security-Policy: scripts only from the server and the page's own inline scripts (their
#: per-response nonce), so that no inline event handler (``onerror=``) or injected ``<script>`` runs; no frames
#: (an ``<iframe srcdoc>`` loads nothing), no plugins, no ``<base>``; connections only back to the server (the
#: websocket). Styles stay open: Bokeh sets them inline. ``'unsafe-eval'``: Bokeh and Panel compile some of their
#: own code at run time (it allows no inline handler or tag). ``frame-ancestors 'none'``: no other page may frame
#: the dashboard (clickjacking: a page of another origin overlaying its buttons).
CSP = ("default-src 'self'; script-src 'self' 'nonce-{nonce}' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; frame-src 'none'; "
       "frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'none'")


def csp_transform() -> Any:
    """A Tornado output transform giving every HTML page of the server :data:`CSP`, its inline scripts the
    response's nonce (Panel's page template has no place for one)."""
    import re
    import secrets

    from tornado.web import OutputTransform

    class ContentSecurityPolicy(OutputTransform):
        def transform_first_chunk(self, status_code: int, headers: Any, chunk: bytes,
                                  finishing: bool) -> tuple[int, Any, bytes]:
            if str(headers.get("Content-Type", "")).startswith("text/html"):
                nonce = secrets.token_urlsafe(18)
                chunk = re.sub(rb"<script(?=[\s>])", b'<script nonce="' + nonce.encode() + b'"', chunk)
                headers["Content-Security-Policy"] = CSP.format(nonce=nonce)
                if "Content-Length" in headers:
                    headers["Content-Length"] = str(len(chunk))
            return status_code, headers, chunk

    return ContentSecurityPolicy


def quiet_closed_websockets() -> None:
    """A tab closed while the server sends to it raises ``WebSocketClosedError`` in Tornado's and Bokeh's
    loggers, with a traceback; that is no error of the dashboard: keep those records out of the console."""

    def closed(record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        names = {type(exc).__name__} if exc is not None else set()
        text = record.getMessage()
        return not (names & {"WebSocketClosedError", "StreamClosedError"} or "WebSocketClosedError" in text
                    or "StreamClosedError" in text)

    # asyncio: "Task exception was never retrieved" of Tornado's write_message (measured: a tab closed while the
    # intervals were computing)
    for name in ("asyncio", "tornado.application", "tornado.general", "bokeh.server.protocol_handler",
                 "bokeh.server.views.ws", "bokeh.server.session"):
        logger = logging.getLogger(name)
        if not any(getattr(f, "__name__", "") == "closed" for f in logger.filters):
            logger.addFilter(closed)


def _validation_markdown(report: Any, n: int = 10) -> str:
    """The validated clusterings' models by fairness validation index and why one was chosen (empty without them);
    their clusters are ranked with the subgroups of kind ``all``."""
    if getattr(report, "validated", None) is None:
        return ""
    cv = report.cluster_validation()
    top = cv.sort_values("fairness_index", ascending=False).head(n)
    rows = "\n".join(f"| {'**✓**' if r.selected else ''} | {r.algorithm} | {r.features} | "
                     f"{'auto' if pd.isna(r.k) else r.k} | {r.fairness_index:.2f} | {r.fairness_separation:.4f} |"
                     for r in top.itertuples())
    return ("### Clustering models (validated clusterings)\n\n" + lit(cv.attrs["why"]) + "\n\n"
            "| selected | algorithm | features | k | fairness index | fairness separation |\n"
            "|---|---|---|---|---|---|\n" + rows)


def _widget(cls: Any, label: str, **kwargs: Any) -> Any:
    """A Panel widget with its label: ``label=`` where the installed Panel has it (``name=`` is deprecated from
    Panel 1.9 on), ``name=`` before."""
    key = "label" if "label" in cls.param else "name"
    return cls(**{key: label}, **kwargs)


def _as_binary(values: pd.Series, favorable: Any) -> np.ndarray:
    return (values == favorable).to_numpy(dtype=int)


class Dashboard:
    """The interactive dashboard: data, subgroups, opinion exclusion and the human-in-the-loop step.

    Give a table with truth and prediction columns (subgroup discovery, as ``aif360-subjective subgroups``; the
    subgroups tab's task control says what the model predicts: binary decisions with a favourable label, or classes,
    ordered levels or numbers compared as they are, with those tasks' metrics), or
    a :class:`~aif360_subjective.datasets.MultiAnnotatorDataset` (opinion exclusion of trained models on held-out
    items, mitigations, and subgroup discovery on the annotation rows with the annotators' attributes, as the
    demo does). In Jupyter, display the object; :meth:`serve` opens it in a browser tab.

    Args:
        data: a DataFrame (or a CSV path) with one row per instance; needs ``label_col`` and ``prediction_col``.
        label_col, prediction_col: truth and prediction columns of ``data``.
        favorable_label: the favourable label of ``data`` (default 0, the package's convention, when the labels
            are 0/1); changeable in the data tab. Not needed when the task is not binary.
        annotations: a MultiAnnotatorDataset (instead of ``data``).
        predictions: model name -> classified copy of ``annotations`` (audited beside the trained models).
        features: the attribute columns of ``data`` to cluster (default: all but label and prediction).
        test_size: share of the items held out for the audit (annotations).
        seed: seed of the split, the models, the clustering and the bootstrap.
        source: where the data came from, for the equivalent command (set by the command line).
        subgroups: the initial subgroup settings.
        task: what the model predicts (``detect_subgroups``' ``task``: ``"binary"``, ``"auto"``,
            ``"multiclass"``, ``"ordinal"``, ``"regression"``); default: the initial settings' (binary).

    Raises:
        ValueError, TypeError: bad data or options (named in the message).
    """

    def __init__(self, data: pd.DataFrame | str | None = None, *, label_col: str | None = None,
                 prediction_col: str | None = None, favorable_label: Any = None, annotations: Any = None,
                 predictions: dict[str, Any] | None = None, features: list[str] | None = None,
                 test_size: float = 0.3, seed: int = 0, source: Source | None = None,
                 subgroups: SubgroupSettings | None = None, task: str | None = None) -> None:
        if (data is None) == (annotations is None):
            raise ValueError("give either data (a table with truth and predictions) or annotations "
                             "(a MultiAnnotatorDataset)")
        self.seed = seed
        self.source = source or Source()
        self.test_size = test_size
        self.features = features
        self.initial = subgroups or SubgroupSettings()
        if task is not None:
            SUBGROUP_PARAMS.check("task", task)
            self.initial = dataclasses.replace(self.initial, task=task)
        from ..detectors.tasks import names_decisions

        if annotations is not None and not names_decisions(self.initial.task):
            raise ValueError(f"task={self.initial.task!r} compares the labels as they are; annotation data is audited "
                             "as binary decisions here (ordinal ratings: aif360-subjective subgroups DATA --task "
                             "ordinal --model rating)")
        if self.initial.discovery is None and accepts_discovery():
            # the library's default (clusters, entropy patterns and mined patterns), as the subgroups command
            self.initial = dataclasses.replace(self.initial, discovery="both")
        self.opinion: OpinionSession | None = None
        self.subgroups: SubgroupSession | None = None
        if annotations is not None:
            self._set_annotations(annotations, predictions)
        else:
            if isinstance(data, str):
                data = pd.read_csv(data)
                self.source = source or Source(None, (), "data")
            self._set_table(data, label_col, prediction_col, favorable_label)
        self._panel = None

    # ------------------------------------------------------------------------------------------------ data
    def _set_table(self, df: pd.DataFrame, label_col: str | None, prediction_col: str | None,
                   favorable: Any) -> None:
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame or a CSV path, got {type(df).__name__}")
        for opt, col in (("label_col", label_col), ("prediction_col", prediction_col)):
            if col is None:
                raise ValueError(f"{opt} is required with a table")
            if col not in df.columns:
                raise ValueError(f"{opt} {col!r} is not a column of the data (columns: {list(df.columns)[:12]})")
        from ..detectors.tasks import names_decisions

        values = sorted(df[label_col].dropna().unique().tolist(), key=str)
        task = self._task()
        if favorable is None:
            if set(values) <= {0, 1}:
                favorable = 0
            elif names_decisions(task):
                raise ValueError(f"label column {label_col!r} holds {values[:8]}; give favorable_label (binary "
                                 "decisions), or a task that compares the labels as they are (task='auto', "
                                 "'multiclass', 'ordinal' or 'regression')")
        elif favorable not in values:
            raise ValueError(f"favorable_label {favorable!r} is not a value of {label_col!r} (values: {values[:8]})")
        feats = self.features or [c for c in df.columns if c not in (label_col, prediction_col)]
        missing = [c for c in feats if c not in df.columns]
        if missing:
            raise ValueError(f"features {missing} are not columns of the data")
        if df[feats].isna().any().any():
            bad = df[feats].columns[df[feats].isna().any()].tolist()
            raise ValueError(f"feature columns {bad} have missing values; fill them or leave them out (features=)")
        self.table, self.label_col, self.prediction_col = df, label_col, prediction_col
        self.favorable, self.label_values = favorable, values
        binary = favorable is not None
        self.subgroups = SubgroupSession(df[feats], _as_binary(df[label_col], favorable) if binary else None,
                                         _as_binary(df[prediction_col], favorable) if binary else None,
                                         random_state=self.seed, outcomes=(df[label_col], df[prediction_col]),
                                         model=f"the predictions in column {prediction_col!r}", source=self.source)

    def _task(self) -> str:
        """The task of the subgroups tab: its control's once built, else the initial settings'."""
        widget = getattr(self, "_sg_task", None)
        return str(widget.value) if widget is not None else self.initial.task

    def _favourable_options(self) -> list[str]:
        """The favourable-label control's entries: the label values (up to :data:`MAX_LABEL_OPTIONS`), after
        :data:`NO_FAVOURABLE` when there is no favourable label (a table audited by another task)."""
        values = [str(v) for v in self.label_values] if len(self.label_values) <= MAX_LABEL_OPTIONS else []
        return values if self.favorable is not None else [NO_FAVOURABLE, *values]

    def _set_annotations(self, ds: Any, predictions: dict[str, Any] | None) -> None:
        self.opinion = OpinionSession(ds, predictions=predictions, test_size=self.test_size, seed=self.seed,
                                      source=self.source)
        test = self.opinion.test
        attrs = [a for a in ds.protected_attribute_names if a in ds.annotators.columns]
        ann = pd.DataFrame({"item": np.asarray(ds.item_ids), "annotator": np.asarray(ds.annotator_ids),
                            "label": ds.labels.ravel()})
        if attrs:
            ann = ann.join(ds.annotators[attrs], on="annotator")
        self.table, self.label_col, self.prediction_col = ann, "label", None
        self.favorable, self.label_values = ds.favorable_label, [ds.favorable_label, ds.unfavorable_label]
        if attrs:
            X = ds.annotators.reindex(np.asarray(test.annotator_ids))[attrs].astype(object)
            X = X.where(X.notna(), "unknown").astype(str).reset_index(drop=True)
            name, pred = next(iter(self.opinion.models.items()))
            fav = test.favorable_label
            self.subgroups = SubgroupSession(X, (test.labels.ravel() == fav).astype(int),
                                             (pred.labels.ravel() == fav).astype(int), random_state=self.seed,
                                             model=name, source=self.source)

    # ------------------------------------------------------------------------------------------------ layout
    def panel(self):
        """The Panel layout (built once)."""
        if self._panel is None:
            self._panel = self._build()
        return self._panel

    def _repr_mimebundle_(self, include=None, exclude=None):  # Jupyter
        return self.panel()._repr_mimebundle_(include, exclude)

    def servable(self):
        """Mark the layout servable (``panel serve script.py``)."""
        return self.panel().servable()

    def serve(self, port: int = 0, show: bool = True, threaded: bool = False, *, address: str = "127.0.0.1",
              allow_websocket_origin: list[str] | None = None, verbose: bool = False, **kwargs: Any):
        """Serve the dashboard on ``address:port`` (0: a free port) and open it in a browser when ``show``.

        By default the server listens on the loopback interface only (127.0.0.1): other machines cannot reach it.
        Browsers open the page's websocket only from the pages named in ``allow_websocket_origin`` (host:port), by
        default the server's own address, ``localhost`` and ``127.0.0.1`` at its port; share the dashboard on a
        network deliberately with ``address="0.0.0.0"`` and the names the other machines use for this one.

        Args:
            port: the port (0: a free one).
            show: open a browser tab.
            threaded: run the server in a thread (its ``stop()`` ends it) and return at once.
            address: the interface to listen on.
            allow_websocket_origin: the pages (``host:port``) allowed to open the websocket, added to the
                default ones.
            verbose: print the start line (address, port, allowed origins).
            **kwargs: passed to ``panel.serve``.

        Returns:
            the Bokeh server (``threaded=True``: a thread whose ``stop()`` ends it).

        Raises:
            ValueError: a port outside 0-65535.
            OSError: the address cannot be listened on (a port in use, an address of another machine).
        """
        pn = require_panel()
        if isinstance(port, bool) or not isinstance(port, int | np.integer) or not 0 <= port <= 65535:
            raise ValueError(f"port must be an integer from 0 to 65535 (0: a free port), got {port!r}")
        if port == 0:
            port = free_port(address)
        origins = websocket_origins(address, port, allow_websocket_origin)
        if self.opinion is None and self.subgroups.view is None:
            self.subgroups.update(self.initial)  # a table's first analysis once, shared by every browser session
        quiet_closed_websockets()
        server = pn.serve({"/": lambda: Dashboard._fresh(self).panel()}, port=port, address=address,
                          websocket_origin=origins, show=show, threaded=threaded, start=threaded,
                          title="aif360-subjective dashboard", verbose=False,
                          transforms=[csp_transform()],
                          **{"websocket_max_message_size": WEBSOCKET_MAX_MESSAGE, **kwargs})
        if verbose:
            print(start_line(address, port, origins))
        if threaded:
            return server
        server.start()
        server.io_loop.start()
        return server

    @staticmethod
    def _fresh(template: Dashboard) -> Dashboard:
        """Each browser session gets its own state (shared data, separate controls and history)."""
        clone = object.__new__(Dashboard)
        clone.__dict__.update(template.__dict__)
        clone._panel = None
        if template.opinion is not None:
            clone.opinion = template.opinion.copy_for_session()
        if template.subgroups is not None:
            clone.subgroups = template.subgroups.copy_for_session()
        return clone

    def _build(self):
        """The page; a tab's analysis runs when the tab is first opened (annotation data: the subgroups of
        hundreds of thousands of annotation rows only when asked for)."""
        pn = require_panel()
        pn.extension("tabulator", notifications=False)
        self.message = pn.pane.Alert("", alert_type="danger", visible=False, css_classes=["dashboard-message"])
        # shown from a control's change until every view shows the new result
        self.busy = pn.pane.Markdown("⏳ *Recomputing…*", visible=False, css_classes=["dashboard-busy"])
        self._pending = 0
        self._background = 0  # intervals computing in a worker thread: the busy sign stays
        self._clicked: tuple[str, Any] | None = None
        self._builders = [self._data_tab]
        names = ["Data"]
        if self.subgroups is not None:
            self._builders.append(self._subgroups_tab)
            names.append("Subgroups")
        if self.opinion is not None:
            self._builders.append(self._opinion_tab)
            names.append("Opinion exclusion")
        self._built: set[int] = set()
        holders = [pn.Column(pn.pane.Markdown("Computing…"), sizing_mode="stretch_width") for _ in names]
        self.tabs = pn.Tabs(*zip(names, holders, strict=True), dynamic=False)
        self.tabs.param.watch(self._guard(lambda e: self._open_tab(e.new)), "active")
        self._open_tab(0)
        header = pn.pane.Markdown(f"## aif360-subjective dashboard: {lit(self.source.name)}",
                                  css_classes=["dashboard-title"])
        return pn.Column(header, self.busy, self.message, self.tabs, sizing_mode="stretch_width")

    def _open_tab(self, i: int) -> None:
        if i in self._built:
            return
        self._built.add(i)
        self.tabs[i].objects = [self._builders[i]()]

    def _error(self, exc: Exception | None) -> None:
        if exc is None:
            self.message.visible = False
            self.message.object = ""
        else:
            self.message.object = f"**Input problem:** {lit(exc)}"
            self.message.visible = True

    def _guard(self, fn):
        """A callback whose input errors show in the page (the app stays alive); a success clears the message."""

        def run(*events: Any) -> None:
            try:
                fn(*events)
                self._error(None)
            except INPUT_ERRORS as exc:
                self._error(exc)
            except Exception as exc:  # noqa: BLE001 - an unforeseen failure must not end the session
                log.exception("dashboard callback failed")
                self._error(RuntimeError(f"{type(exc).__name__}: {exc}"))

        return run

    def _recompute(self, fn) -> None:
        """Show the busy sign, then run ``fn`` on the next tick (served: the sign reaches the browser first) and
        hide the sign; when the controls change again meanwhile, only the last change runs."""
        self._pending += 1
        ticket = self._pending
        self.busy.visible = True

        def work() -> None:
            if ticket != self._pending:
                return  # a newer change follows
            try:
                self._guard(fn)()
            finally:
                self.busy.visible = self._background > 0

        self._later(work)

    # ------------------------------------------------------------------------------------------------ data tab
    def _data_tab(self):
        pn = require_panel()
        self.data_table = _table(self.table, pagination="remote", page_size=15, header_filters=True,
                                 disabled=True, sizing_mode="stretch_width", show_index=False,
                                 css_classes=["data-table"])
        self.favourable = _widget(pn.widgets.Select, "favourable label", options=self._favourable_options(),
                                  value=NO_FAVOURABLE if self.favorable is None else str(self.favorable),
                                  disabled=self.opinion is not None, css_classes=["favourable"])
        self.favourable.param.watch(self._guard(self._on_favourable), "value")
        self.data_table.param.watch(self._guard(self._on_filter), "filters")
        info = pn.pane.Markdown(self._data_text(), css_classes=["data-info"])
        self.data_info = info
        parts = [info, self.favourable]
        if self.opinion is None:
            self.upload = pn.widgets.FileInput(accept=".csv", css_classes=["upload"])
            parts.append(pn.pane.Markdown(f"Upload a CSV of up to {MAX_UPLOAD_BYTES // 2**20} MB; open a larger "
                                          "table with `aif360-subjective dashboard FILE`.",
                                          css_classes=["upload-limit"]))
            self.upload_label = _widget(pn.widgets.Select, "truth column", options=[], css_classes=["upload-truth"])
            self.upload_pred = _widget(pn.widgets.Select, "prediction column", options=[],
                                       css_classes=["upload-prediction"])
            load = _widget(pn.widgets.Button, "Use the uploaded table", css_classes=["use-upload"])
            self.upload.param.watch(self._guard(self._on_upload), "value")
            load.on_click(self._guard(self._on_load))
            parts.append(pn.Row(self.upload, self.upload_label, self.upload_pred, load))
        else:
            parts.append(pn.pane.Markdown("The favourable label of annotation data is fixed by the dataset."))
        return pn.Column(*parts, self.data_table, sizing_mode="stretch_width")

    def _data_text(self) -> str:
        t = f"{len(self.table):,} rows, {self.table.shape[1]} columns."
        if self.opinion is not None:
            o = self.opinion
            t += (f" One row per annotation; {o.test.n_items:,} of {self.opinion.dataset.n_items:,} items held out "
                  f"for the audit (seed {self.seed}). " + " ".join(lit(n) for n in o.notes))
        else:
            t += f" Truth {lit(repr(self.label_col))}, predictions {lit(repr(self.prediction_col))}."
        return t

    def _on_filter(self, event: Any) -> None:
        n = len(self.data_table.current_view)
        self.data_info.object = self._data_text() + (f" **{n:,} rows match the column filters.**" if event.new else "")
        if n == 0:
            shown = ", ".join(f"{f.get('field')} {f.get('type', '')} {f.get('value')!r}" for f in event.new)
            raise ValueError(f"no row matches the column filters ({shown}); clear a filter to see rows again")

    def _on_favourable(self, event: Any) -> None:
        if event.new == NO_FAVOURABLE:
            return
        value = next(v for v in self.label_values if str(v) == event.new)
        if value == self.favorable:
            return
        self._set_table(self.table, self.label_col, self.prediction_col, value)
        self._subgroups_changed()

    def _subgroups_changed(self) -> None:
        """The table behind the subgroups changed: its views are recomputed (the tab analyses it when first
        opened), and a subgroup clicked before is forgotten."""
        self._clicked = None
        if 1 in self._built:
            self._sg_categorical.options = _escaped_options(list(self.subgroups.X.columns))
            self._sg_categorical.value = [c for c in self._sg_categorical.value if c in self.subgroups.X.columns]
            self._clear_detail()
            self._recompute(lambda: self._run_subgroups(self._sg_settings()))

    def _on_upload(self, event: Any) -> None:
        if not event.new:
            return
        name = self.upload.filename or "the uploaded file"
        if len(event.new) > MAX_UPLOAD_BYTES:
            raise ValueError(f"{name} holds {len(event.new) / 2**20:,.0f} MB, more than the dashboard's upload limit "
                             f"of {MAX_UPLOAD_BYTES // 2**20} MB: analyse it with the command line "
                             "(aif360-subjective subgroups FILE ...) or open the dashboard on it "
                             "(aif360-subjective dashboard FILE ...)")
        try:
            df = pd.read_csv(io.BytesIO(event.new))
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
            raise ValueError(f"{name} is not a readable CSV ({exc})") from None
        self._uploaded = df
        cols = list(df.columns)
        self.upload_label.options, self.upload_pred.options = cols, cols
        self.upload_label.value = "class" if "class" in cols else cols[0]
        self.upload_pred.value = "out" if "out" in cols else cols[-1]

    def _on_load(self, event: Any) -> None:
        df = getattr(self, "_uploaded", None)
        if df is None:
            raise ValueError("upload a CSV file first")
        source = Source(None, ("--label-col", str(self.upload_label.value), "--prediction-col",
                               str(self.upload_pred.value)), self.upload.filename or "uploaded table")
        features, self.features = self.features, None
        try:
            self._set_table(df, self.upload_label.value, self.upload_pred.value, None)
        except INPUT_ERRORS:
            self.features = features  # the previous table stays
            raise
        self.source = self.subgroups.source = source
        _show_table(self.data_table, df)
        self.data_info.object = self._data_text()
        self.favourable.options = self._favourable_options()
        self.favourable.value = NO_FAVOURABLE if self.favorable is None else str(self.favorable)
        self._subgroups_changed()

    # ------------------------------------------------------------------------------------------------ subgroups
    def _subgroups_tab(self):
        pn = require_panel()
        from ..detectors.asdf.clustering import CLUSTERINGS
        from ..detectors.ranking import RANKABLE

        s = self.initial
        w = pn.widgets
        self._sg_clustering = _widget(w.Select, "clusterer", options=list(CLUSTERINGS), value=s.clustering)
        # no start/end: a value out of range reaches the check and shows as an error (the browser would clamp it)
        self._sg_k = _widget(w.IntInput, "k (0 = automatic, x-means)", value=s.n_clusters or 0,
                             css_classes=["k-input"])
        self._sg_tau = _widget(w.FloatInput, "entropy threshold τ (0 to 1)", value=s.entropy_threshold, step=0.05,
                               css_classes=["tau-input"])
        self._sg_categorical = _widget(w.MultiChoice, "categorical columns (empty = detected)",
                                       options=_escaped_options(list(self.subgroups.X.columns)),
                                       value=list(s.categorical or []), css_classes=["categorical"])
        # what the model predicts: the subgroup parameter table's tasks; the metrics follow the task's report
        self._sg_task = _widget(w.Select, "task (what the model predicts)", options=TASKS, value=s.task,
                                css_classes=["task"])
        self._sg_metric = _widget(w.Select, "metric", options=list(RANKABLE), value=s.metric,
                                  css_classes=["metric"])
        self._sg_kind = _widget(w.Select, "subgroups", options=list(subgroup_kinds()), value=s.kind,
                                css_classes=["kind"])
        self._sg_direction = _widget(w.Select, "direction", options=list(SUBGROUP_PARAMS.choices("direction")),
                                     value=s.direction)
        self._sg_alpha = _widget(w.Select, "α (family-wise error)", options=ALPHAS, value=s.alpha)
        self._sg_min_size = _widget(w.IntInput, "min_size", value=s.min_size, css_classes=["min-size"])
        controls = [self._sg_task, self._sg_clustering, self._sg_k, self._sg_tau, self._sg_categorical,
                    self._sg_metric, self._sg_kind, self._sg_direction, self._sg_alpha, self._sg_min_size]
        self._sg_discovery = None
        if accepts_discovery():
            self._sg_discovery = _widget(w.Select, "discovery", options=list(SUBGROUP_PARAMS.choices("discovery")),
                                         value=s.discovery or "both")
            controls.append(self._sg_discovery)
        self._sg_clusterings = _widget(w.Select, "clusterings", options=list(SUBGROUP_PARAMS.choices("clusterings")),
                                       value=s.clusterings)
        controls.append(self._sg_clusterings)
        # the validated clusterings' models by fairness validation index (empty with the seed's one clustering)
        self._sg_validation = pn.pane.Markdown("", css_classes=["sg-validation"])
        self._syncing = False  # the metric control follows the report's task: no recomputation of its own
        for c in controls:
            c.param.watch(lambda e: None if self._syncing else
                          self._recompute(lambda: self._run_subgroups(self._sg_settings())), "value")
        self._sg_status = pn.pane.Markdown("", css_classes=["sg-status"])
        self._sg_verdict = pn.pane.Markdown("", css_classes=["sg-verdict"])
        self._sg_notes = pn.pane.Markdown("", css_classes=["sg-notes"])
        self._sg_ranking = _table(pd.DataFrame(), disabled=True, show_index=False, sizing_mode="stretch_width",
                                  css_classes=["ranking-table"], selectable=1)
        self._sg_ranking.on_click(self._guard(self._on_subgroup_click))
        self._sg_detail = pn.Column(css_classes=["subgroup-detail"], sizing_mode="stretch_width")
        self._clear_detail()
        self._sg_patterns = _table(pd.DataFrame(), disabled=True, show_index=False, pagination="local",
                                   page_size=10, header_filters=True, sizing_mode="stretch_width",
                                   row_content=self._pattern_row, embed_content=False,
                                   css_classes=["pattern-table"])
        # the seed's size bars: one bar per subgroup, a click shows its metrics
        self._sg_sizes = _table(pd.DataFrame(), disabled=True, show_index=False, pagination="local", page_size=10,
                                sizing_mode="stretch_width", css_classes=["size-bars"], selectable=1)
        self._sg_sizes.on_click(self._guard(self._on_size_click))
        self._sg_radar = pn.Column()
        self._sg_rank_fig = pn.Column()
        self._sg_command = pn.pane.HTML("", css_classes=["sg-command"])
        download = w.FileDownload(callback=self._guard_download(lambda: self.subgroups.report().render()),
                                  filename="subgroups_report.html", label="Download the HTML report",
                                  css_classes=["sg-export"])
        self._run_subgroups(self._sg_settings())
        left = pn.Column("### Controls", *controls, width=300)
        right = pn.Column(
            self._sg_status, self._sg_verdict, self._sg_notes, "### Ranking (click a row for its metrics)",
            self._sg_ranking, self._sg_detail, self._sg_rank_fig,
            pn.Row(self._sg_radar, pn.Column("### Subgroup sizes (click a bar for its metrics)", self._sg_sizes,
                                             sizing_mode="stretch_width"), sizing_mode="stretch_width"),
            "### Patterns (click ▸ to expand a row)", self._sg_patterns, self._sg_validation,
            "### Export", download, pn.pane.Markdown("Equivalent command:"), self._sg_command,
            sizing_mode="stretch_width")
        return pn.Row(left, right, sizing_mode="stretch_width")

    def _guard_download(self, make_html):
        def callback():
            try:
                html = make_html()
                self._error(None)
                return io.StringIO(html)
            except INPUT_ERRORS as exc:
                self._error(exc)
                import html as html_module

                return io.StringIO(f"<p>Export failed: {html_module.escape(str(exc))}</p>")

        return callback

    def _sg_settings(self) -> SubgroupSettings:
        """The controls' values, checked: a value out of range is an error named after its control."""
        k = self._sg_k.value
        if k is None:
            raise ValueError("k (number of clusters) is empty: type a number (0 = automatic, x-means)")
        n = len(self.subgroups.X)
        if k != 0 and not 2 <= k <= n:
            raise ValueError(f"k (number of clusters) must be 0 (automatic) or between 2 and the number of rows "
                             f"({n:,}), got {k}")
        tau = self._sg_tau.value
        if tau is None or not 0.0 <= float(tau) <= 1.0:
            raise ValueError(f"the entropy threshold τ must be between 0 and 1, got {tau}")
        min_size = self._sg_min_size.value
        if min_size is None or min_size < 1:
            raise ValueError(f"min_size must be an integer >= 1, got {min_size}")
        cat = tuple(self._sg_categorical.value) or None
        return SubgroupSettings(
            clustering=self._sg_clustering.value, n_clusters=None if k == 0 else int(k),
            entropy_threshold=float(tau), categorical=cat, metric=self._sg_metric.value,
            kind=self._sg_kind.value, direction=self._sg_direction.value, alpha=self._sg_alpha.value,
            min_size=int(min_size), discovery=None if self._sg_discovery is None else self._sg_discovery.value,
            task=self._sg_task.value, clusterings=self._sg_clusterings.value)

    def _run_subgroups(self, settings: SubgroupSettings) -> None:
        """Every view of the subgroups tab from one result, shown together (the figures are drawn first)."""
        pn = require_panel()
        from ..plotting import plot_ranking, plot_summary_radar
        from ..report.sections import whole_numbers_as_int

        v = self.subgroups.update(settings)
        what = {"clustering": "clustered", "cut": "re-cut the cached clustering", "ranking": "re-ranked"}[v.step]
        auto = " (x-means)" if settings.n_clusters is None and settings.clustering in HIERARCHICAL else ""
        # the ranking's setting too: every change of a control changes the status (a browser, or a reader, can tell
        # the new view from the last)
        k_text = f"{v.k} cluster{'' if v.k == 1 else 's'}"
        status = (f"**{k_text}**{auto}, τ = {settings.entropy_threshold:g}, task {lit(v.report.task)}: {what} in "
                  f"{v.seconds:.2f} s. Ranked by {lit(v.settings.metric)} ({lit(settings.kind)} subgroups, "
                  f"{lit(settings.direction)}, α = {'none' if settings.alpha is None else f'{settings.alpha:g}'}, "
                  f"minimum size {settings.min_size}).")
        redraw = v.step != "ranking" or not self._sg_radar.objects
        patterns = sizes = radar = None
        if redraw:
            pats = whole_numbers_as_int(v.report.patterns(all_columns=False))
            info = v.report.pattern_info()
            table = pats.astype(object).where(pats.notna(), "")
            table.insert(0, "size", info["size"])
            patterns = table.reset_index()
            radar = _figure(plot_summary_radar(v.report))
        sizes = self._size_bars(v)
        # the view's ranking (a multi-class class's statistical parity is ranked with label=)
        ranking_fig = _figure(plot_ranking(v.report, v.settings.metric, kind=settings.kind, n=settings.top,
                                           direction=settings.direction, alpha=settings.alpha,
                                           min_size=settings.min_size, ranking=v.ranking))
        verdict = self._verdict(v)
        detail = self._detail_view(*self._clicked) if self._clicked is not None and v.step == "ranking" else None
        with pn.io.hold():
            self._sync_metric(v)
            self._sg_status.object = status
            self._sg_verdict.object = verdict
            self._sg_notes.object = "\n\n".join(f"*{lit(n)}*" for n in v.notes)
            self._sg_validation.object = _validation_markdown(v.report)
            _show_table(self._sg_ranking, v.ranking.reset_index())
            if patterns is not None:
                _show_table(self._sg_patterns, patterns)
                self._sg_radar.objects = [radar]
            _show_table(self._sg_sizes, sizes)
            self._sg_sizes.formatters = {"size": {"type": "progress", "max": int(max(sizes["size"].max(), 1)),
                                                  "legend": True, "color": "#4878a8"}} if len(sizes) else {}
            self._sg_rank_fig.objects = [ranking_fig]
            self._sg_command.object = _pre(self.subgroups.command())
            if detail is not None:  # a re-ranking keeps the result: the clicked subgroup's metrics stay true
                self._sg_detail.objects = detail
            else:  # a new result: ids name other subgroups, the old metrics must go
                self._clear_detail()

    def _sync_metric(self, v: Any) -> None:
        """The metric control lists the report's metrics (its task's) and shows the one ranked."""
        self._syncing = True
        try:
            self._sg_metric.options = metric_choices(v.report)
            self._sg_metric.value = v.settings.metric
        finally:
            self._syncing = False

    def _verdict(self, v: Any) -> str:
        """The overall verdict of the analysis (the report's answer: significant findings over every metric)."""
        from ..report.answer import subgroup_answer
        from ..report.subgroup_recipe import entropy_pattern_text

        s = v.settings
        answer = subgroup_answer(v.report, alpha=s.alpha, ci=s.ci, pattern_text=entropy_pattern_text(v.report))
        lines = list(answer.lines) + [f"Note: {c}" for c in answer.caveats]
        return "**Verdict.** " + " ".join(lit(line) for line in lines)

    def _size_bars(self, v: Any) -> pd.DataFrame:
        """One row per cluster and entropy-based subgroup (the seed's bars), and per mined pattern when the
        ranking shows them, largest first: kind, id and size (drawn as a bar)."""
        m = v.report.subgroup_metrics(ci=None)
        kinds = [k for k in m.index.get_level_values(0).unique()
                 if k in v.report.clustering_kinds or v.settings.kind in ("all", k)]
        rows = m.loc[m.index.get_level_values(0).isin(kinds), ["size"]].reset_index()
        rows.columns = ["kind", "id", "size"]
        rows["size"] = rows["size"].fillna(0).astype(int)
        return rows.sort_values("size", ascending=False, kind="stable").reset_index(drop=True)

    def _clear_detail(self) -> None:
        pn = require_panel()
        self._sg_detail.objects = [pn.pane.Markdown("Click a subgroup of the ranking or a size bar to see its "
                                                    "metrics.", css_classes=["detail-placeholder"])]

    def _detail_view(self, kind: str, sid: Any) -> list[Any]:
        """The clicked subgroup's metrics, and the seed's chart of cluster ``sid`` beside entropy subgroup
        ``sid`` (their five metrics side by side)."""
        from ..plotting import plot_subgroup_metrics

        views = [self._detail(kind, sid)]
        rep = self.subgroups.view.report
        if kind in rep.clustering_kinds:  # the seed's chart of a cluster beside its entropy pattern
            views.append(_figure(plot_subgroup_metrics(rep, sid)))
        return views

    def _detail(self, kind: str, sid: Any):
        pn = require_panel()
        table = self.subgroups.subgroup_detail(kind, sid)
        size = table.attrs.get("size")
        ci = self.subgroups.view.settings.ci
        described = table.attrs.get("description", "")
        head = (f"**Subgroup {lit(kind)} {lit(sid)}: {lit(described)}** "
                f"({'' if pd.isna(size) else f'{int(size):,} rows; '}intervals "
                f"{ci:.0%}; p_adjusted = family-wise adjusted p (permutation max-T over every subgroup of every kind, "
                "metric and direction: the error the ranking's α controls); q = Benjamini-Hochberg over the "
                "subgroups of one kind)")
        return pn.Column(pn.pane.Markdown(head), _table(table.reset_index(), disabled=True, show_index=False,
                                                        css_classes=["detail-table"]),
                         sizing_mode="stretch_width")

    def _show_detail(self, kind: str, sid: Any) -> None:
        self._clicked = (kind, sid)
        self._sg_detail.objects = self._detail_view(kind, sid)

    def _on_subgroup_click(self, event: Any) -> None:
        rk = self._sg_ranking.value
        if event.row is None or event.row >= len(rk):
            return
        sid = rk.iloc[event.row]["id"]
        kind = self.subgroups.view.settings.kind
        if kind == "all" and "kind" in rk.columns:
            kind = rk.iloc[event.row]["kind"]
        self._show_detail(kind, sid)

    def _on_size_click(self, event: Any) -> None:
        bars = self._sg_sizes.value
        if event.row is None or event.row >= len(bars):
            return
        self._show_detail(bars.iloc[event.row]["kind"], bars.iloc[event.row]["id"])

    def _pattern_row(self, row: pd.Series):
        try:
            return self._detail("entropy", row["id"])
        except INPUT_ERRORS as exc:
            return require_panel().pane.Markdown(lit(exc))

    # ------------------------------------------------------------------------------------------------ opinion
    def _opinion_tab(self):
        pn = require_panel()
        w = pn.widgets
        o = self.opinion
        self._op_grouping = _widget(w.Select, "grouping", options=GROUPINGS, value="adr", css_classes=["grouping"])
        attrs = [a for a in o.test.protected_attribute_names if a in o.test.annotators.columns]
        # demographic groups: the attributes whose intersections make the groups (one by default: all five of
        # POPQUORN make 177 groups)
        self._op_attrs = _widget(w.MultiChoice, "demographic attributes (their intersections are the groups)",
                                 options=_escaped_options(attrs), value=attrs[:1], visible=False,
                                 css_classes=["attributes"])
        self._op_bins = _widget(w.TextInput, "bins (int, quantile:N or edges)", value="5")
        self._op_min = _widget(w.IntInput, "min_group_size", value=1, css_classes=["min-group-size"])
        self._op_perf = _widget(w.Select, "performance measure", options=PERFORMANCES, value="accuracy",
                                css_classes=["performance"])
        self._op_ci = _widget(w.Select, "interval level", options=CI_LEVELS, value=0.95)
        controls = [self._op_grouping, self._op_attrs, self._op_bins, self._op_min, self._op_perf, self._op_ci]
        for c in controls:
            c.param.watch(lambda e: self._recompute(self._run_opinion), "value")
        self._op_status = pn.pane.Markdown("", css_classes=["op-status"])
        self._op_answer = pn.pane.Markdown("", css_classes=["op-answer"])
        self._op_thin = pn.pane.Markdown("", css_classes=["op-thin"])
        self._op_summary = _table(pd.DataFrame(), disabled=True, sizing_mode="stretch_width", show_index=False,
                                  css_classes=["op-summary"])
        self._op_heatmap = pn.Column()
        self._op_groups = pn.Column()
        self._op_command = pn.pane.HTML("", css_classes=["op-command"])
        # the human-in-the-loop step
        self._mit_kind = _widget(w.Select, "mitigation", options={v: k for k, v in MITIGATIONS.items()},
                                 value="crowdtruth", css_classes=["mitigation"])
        self._mit_threshold = _widget(w.TextInput, "CrowdTruth WQS threshold ('auto' or 0-1)", value="auto",
                                      css_classes=["threshold"])
        self._mit_baseline = _widget(w.Select, "baseline model", options=list(o.models))
        self._mit_button = _widget(w.Button, "Try it", css_classes=["try-mitigation"], disabled=not o.can_train)
        self._mit_button.on_click(self._guard(self._on_mitigate))
        self._mit_result = pn.Column(css_classes=["mitigation-result"])
        self._mit_history = _table(pd.DataFrame(), disabled=True, sizing_mode="stretch_width", show_index=False,
                                   css_classes=["history-table"])
        download = w.FileDownload(callback=self._guard_download(lambda: o.report(self._op_settings()).render()),
                                  filename="audit_report.html", label="Download the HTML report",
                                  css_classes=["op-export"])
        # whose opinions are excluded: the annotator groups a model serves worse (on request: a permutation search)
        self._ex_model = _widget(w.Select, "model", options=list(o.models), css_classes=["discover-model"])
        self._ex_adjust = _widget(w.Select, "compare annotations", options=ADJUSTMENTS,
                                  value=OPINION_PARAMS.default("adjust"), css_classes=["discover-adjust"])
        self._ex_conditions = _widget(w.Select, "most attribute values per group", options=CONDITIONS,
                                      value=OPINION_PARAMS.default("max_conditions"),
                                      css_classes=["discover-conditions"])
        self._ex_balance = _widget(w.Select, "thresholds of the search", options=BALANCES,
                                   value=OPINION_PARAMS.default("balance"), css_classes=["discover-balance"])
        self._ex_step_down = _widget(w.Checkbox, "step-down p-values (never larger; same intervals)",
                                     value=OPINION_PARAMS.default("step_down"), css_classes=["discover-step-down"])
        self._ex_button = _widget(w.Button, "Find the groups served worse", css_classes=["discover"])
        self._ex_button.on_click(self._guard(self._on_discover))
        self._ex_result = pn.Column(css_classes=["discover-result"], sizing_mode="stretch_width")
        self._run_opinion()
        left = pn.Column("### Controls", *controls, "### Try a mitigation", self._mit_kind, self._mit_threshold,
                         self._mit_baseline, self._mit_button, "### Whose opinions are excluded", self._ex_model,
                         self._ex_adjust, self._ex_conditions, self._ex_balance, self._ex_step_down, self._ex_button,
                         width=300)
        right = pn.Column(self._op_status, self._op_answer, self._op_thin, "### Models side by side",
                          self._op_summary, self._op_heatmap, "### Groups", self._op_groups,
                          "### Mitigation: before and after, on the same held-out items", self._mit_result,
                          "### Tried settings", self._mit_history,
                          "### Whose opinions are excluded", self._ex_result, "### Export", download,
                          pn.pane.Markdown("Equivalent command:"), self._op_command, sizing_mode="stretch_width")
        return pn.Row(left, right, sizing_mode="stretch_width")

    def _op_settings(self) -> OpinionSettings:
        """The controls' values, checked (a value out of range is an error named after its control)."""
        grouping = self._op_grouping.value
        self._op_attrs.visible = grouping == "demographic"
        attributes = None
        if grouping == "demographic":
            if not self._op_attrs.value:
                raise ValueError("choose at least one demographic attribute: the groups are the intersections of "
                                 "the attributes chosen")
            attributes = tuple(self._op_attrs.value)
        min_size = self._op_min.value
        if min_size is None or min_size < 1:
            raise ValueError(f"min_group_size must be an integer >= 1, got {min_size}")
        return OpinionSettings(grouping=grouping, bins=self._op_bins.value, attributes=attributes,
                               min_group_size=int(min_size), performance=self._op_perf.value, ci=self._op_ci.value)

    def _run_opinion(self) -> None:
        """The view without intervals at once, the intervals right after (in a worker thread when served); the
        busy sign stays until they are shown."""
        import time

        s = self._op_settings()
        t0 = time.perf_counter()
        ready = self.opinion.has_intervals(s)
        if not ready:
            # a bad option fails here, before anything is shown
            self.opinion.metrics(s)
        seconds = time.perf_counter() - t0
        status = (f"Shown in {seconds:.2f} s." if ready else
                  f"Shown in {seconds:.2f} s without intervals; computing the {s.ci:.0%} intervals "
                  f"({s.n_boot:,} bootstrap replicates)…")
        self._show_opinion(s, intervals=ready, status=status)
        if not ready:
            self._in_background(lambda: self._bootstrap(s), lambda: self._intervals(s, t0))

    def _bootstrap(self, s: OpinionSettings) -> None:
        """The intervals of the view (cached by the results objects; the redraw then reads them)."""
        o = self.opinion
        o.summary(s)
        for name in o.models:
            o.group_table(name, s)
            o.answer(s, name)  # the verdict's test of equal service, cached by the metric

    def _intervals(self, s: OpinionSettings, t0: float) -> None:
        import time

        try:
            if s != self._op_settings():
                return  # the controls changed meanwhile
            self._show_opinion(s, intervals=True,
                               status=f"Intervals computed; {time.perf_counter() - t0:.2f} s in all.")
            self._error(None)
        except INPUT_ERRORS as exc:
            self._error(exc)
        finally:
            self.busy.visible = self._background > 0

    def _in_background(self, compute, then) -> None:
        """``compute`` in a worker thread, then ``then`` on the session's event loop, when served (the page keeps
        answering the controls meanwhile); both at once otherwise (a notebook, a test)."""
        import threading

        pn = require_panel()
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            compute()
            then()
            return

        self._background += 1
        self.busy.visible = True

        def done(fn) -> None:
            self._background -= 1
            fn()

        def work() -> None:
            try:
                compute()
            except Exception as exc:  # noqa: BLE001 - reported in the page, never lost in a thread
                log.exception("dashboard background computation failed")

                def report(e: Exception = exc) -> None:
                    self.busy.visible = self._background > 0
                    self._error(e)

                doc.add_next_tick_callback(lambda: done(report))
                return
            doc.add_next_tick_callback(lambda: done(then))

        threading.Thread(target=work, daemon=True).start()

    def _later(self, fn) -> None:
        pn = require_panel()
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            doc.add_next_tick_callback(fn)
        else:
            fn()

    def _show_opinion(self, s: OpinionSettings, intervals: bool, status: str = "") -> None:
        """Every view of the opinion tab for ``s``, computed first and then shown together."""
        from ..opinion.groups import group_label
        from ..plotting import plot_group_performance
        pn = require_panel()
        o = self.opinion
        ci = s.ci if intervals else None
        summary = _with_intervals(o.summary(s, intervals=intervals), ("unfairness", "performance"), ci)
        answer = "\n\n".join(lit(o.answer(s, name, intervals)) for name in o.models)
        thin = "\n\n".join(f"*Thin groups: {lit(t)}*" for t in o.thin_notes(s))
        fig = _figure(plot_group_performance(o.metrics(s), kind="heatmap", ci=ci, n_boot=s.n_boot,
                                             random_state=self.seed))
        groups = []
        for name in o.models:
            table = o.group_table(name, s, intervals).rename(index=group_label).reset_index()
            groups.append(pn.pane.Markdown(f"**{lit(name)}**"))
            groups.append(_table(table.round(3), disabled=True, show_index=False, sizing_mode="stretch_width",
                                 css_classes=["group-table"]))
        command = _pre(o.command(s))
        with pn.io.hold():
            self._op_status.object = status
            _show_table(self._op_summary, summary.reset_index())
            self._op_answer.object = answer
            self._op_thin.object = thin
            self._op_heatmap.objects = [fig]
            self._op_groups.objects = groups
            self._op_command.object = command
            shown = getattr(self, "_ex_shown", None)
            if shown is not None and shown != (s.performance, s.attributes):
                # a search answers for the measure and attributes it ran with: never beside views of others
                self._ex_shown = None
                self._ex_result.objects = [pn.pane.Markdown(
                    f"The measure or the attributes changed since the last search ({lit(shown[0])}): search again "
                    "for an answer about the current ones.", css_classes=["discover-stale"])]

    def _on_discover(self, event: Any) -> None:
        """Search the annotator groups the chosen model serves worse, and show the answer and the groups found."""
        from ..report.excluded_sections import FINDING_COLUMNS

        pn = require_panel()
        s = self._op_settings()
        adjust, conditions, balance = self._ex_adjust.value, int(self._ex_conditions.value), self._ex_balance.value
        step_down = bool(self._ex_step_down.value)
        self._ex_button.loading = True
        try:
            ex = self.opinion.excluded(self._ex_model.value, s, adjust=adjust, max_conditions=conditions,
                                       balance=balance, step_down=step_down)
        finally:
            self._ex_button.loading = False
        found = ex.findings()
        # the sentences quote attribute names and values (data): shown literally, never as HTML or Markdown
        blocks = [pn.pane.Markdown(f"**{lit(self._ex_model.value)}**: {lit(ex.sentence())}",
                                   css_classes=["discover-answer"])]
        if len(found):
            blocks.append(_table(found[FINDING_COLUMNS].round(3), disabled=True, show_index=False,
                                 sizing_mode="stretch_width", css_classes=["discover-table"]))
        blocks.append(pn.pane.Markdown(lit(ex.summary().removesuffix(ex.sentence()).strip())))
        blocks.append(pn.pane.Markdown("Equivalent command:"))
        blocks.append(pn.pane.Markdown(_pre(self.opinion.discover_command(s, adjust=adjust, max_conditions=conditions,
                                                                          balance=balance, step_down=step_down))))
        self._ex_result.objects = blocks
        self._ex_shown = (s.performance, s.attributes)

    def _on_mitigate(self, event: Any) -> None:
        pn = require_panel()
        s = self._op_settings()
        threshold: Any = self._mit_threshold.value.strip()
        if threshold != "auto" and self._mit_kind.value == "crowdtruth":
            try:
                threshold = float(threshold)
            except ValueError:
                raise ValueError(f"CrowdTruth threshold must be 'auto' or a number in [0, 1], got {threshold!r}") \
                    from None
        self._mit_button.loading = True
        try:
            table = self.opinion.mitigate(self._mit_kind.value, s, baseline=self._mit_baseline.value,
                                          threshold=threshold)
        finally:
            self._mit_button.loading = False
        shown = table[["unfairness", "performance"] + [c for c in table.columns if c.endswith(("_ci_low",
                                                                                               "_ci_high"))]]
        shown = _with_intervals(shown, ("unfairness", "performance"), s.ci)
        detail = table.attrs.get("detail") or ""
        self._mit_result.objects = [
            pn.pane.Markdown(f"**{lit(MITIGATIONS[self._mit_kind.value])}** against {lit(self._mit_baseline.value)}"
                             + (f" ({lit(detail)})" if detail else "") + "."),
            _table(shown.reset_index(), disabled=True, show_index=False, css_classes=["before-after"]),
        ]
        _show_table(self._mit_history, self.opinion.history_frame().reset_index())
