"""The ``dashboard`` command's reading of its inputs (the server itself is exercised by the browser tests), and the
notebook display."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("panel")

from aif360_subjective._param_tables import SUBGROUP_PARAMS  # noqa: E402
from aif360_subjective.cli import build_parser, main  # noqa: E402
from aif360_subjective.cli.dashboard import DashboardSpec, _dashboard  # noqa: E402
from aif360_subjective.dashboard import Dashboard  # noqa: E402
from aif360_subjective.dashboard.state import SubgroupSettings  # noqa: E402
from aif360_subjective.datasets import make_subjective_dataset  # noqa: E402


def _args(argv):
    """The command's typed spec, as its boundary builds it from the command line."""
    return DashboardSpec.from_namespace(build_parser().parse_args(["dashboard", *argv]))


@pytest.fixture
def table_csv(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"id": np.arange(120), "g": rng.choice(["a", "b"], 120), "x": rng.normal(size=120),
                       "truth": rng.integers(0, 2, 120), "pred": rng.integers(0, 2, 120)})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


def test_table_as_subgroups_reads_it(table_csv):
    d = _dashboard(_args([str(table_csv), "--label-col", "truth", "--prediction-col", "pred", "--exclude", "id",
                          "--n-clusters", "4", "--entropy-threshold", "0.5"]))
    assert d.opinion is None and list(d.subgroups.X.columns) == ["g", "x"]
    assert (d.initial.n_clusters, d.initial.entropy_threshold) == (4, 0.5)
    df = pd.read_csv(table_csv)
    np.testing.assert_array_equal(d.subgroups.y_true, (df["truth"] == 0).astype(int))  # favourable 0
    v = d.subgroups.update(d.initial)
    assert v.k == 4
    cmd = d.subgroups.command()
    assert cmd.startswith(f"aif360-subjective subgroups {table_csv} --label-col truth --prediction-col pred")
    assert "--exclude id" in cmd


def test_annotations_as_audit_reads_them(tmp_path):
    ds = make_subjective_dataset(n_items=200, n_annotators=30, random_state=0)
    ann = pd.DataFrame({"item": ds.item_ids, "annotator": ds.annotator_ids, "label": ds.labels.ravel().astype(int)})
    ann.to_csv(tmp_path / "ann.csv", index=False)
    ds.items.rename_axis("item").reset_index().to_csv(tmp_path / "items.csv", index=False)
    d = _dashboard(_args([str(tmp_path / "ann.csv"), "--item-col", "item", "--annotator-col", "annotator",
                          "--label-col", "label", "--items", str(tmp_path / "items.csv")]))
    assert d.opinion is not None and list(d.opinion.models) == ["Model 1 (majority vote)",
                                                                "Model 2 (annotator-aware)"]
    assert len(d.opinion.test.labels) + len(d.opinion.train.labels) == len(ds.labels)


def test_bad_input_is_one_line(table_csv, capsys):
    assert main(["dashboard", str(table_csv)]) == 2
    err = capsys.readouterr().err
    assert "--label-col and --prediction-col" in err and "required" in err
    assert main(["dashboard", str(table_csv), "--label-col", "truth", "--prediction-col", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_annotations_without_anything_to_learn_or_with_model_say_what_to_do(tmp_path, capsys):
    ann = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"], "label": [0, 1, 1, 1]})
    ann.to_csv(tmp_path / "ann.csv", index=False)
    base = ["dashboard", str(tmp_path / "ann.csv"), "--item-col", "item", "--annotator-col", "annotator",
            "--label-col", "label"]
    assert main(base) == 2
    assert "neither text nor numeric features and the annotators no attributes" in capsys.readouterr().err
    assert main([*base, "--model", "majority"]) == 2
    assert "--model does not apply to annotation data in the dashboard" in capsys.readouterr().err


@pytest.mark.data
@pytest.mark.parametrize("folder", ["popquorn", "lewidi2023/HS-Brexit"])
@pytest.mark.slow
def test_text_datasets_train_on_the_text_and_their_mitigations_run(shared_data, folder):
    """Issue 33 item 1: the guide's example (POPQUORN) and HS-Brexit have item text, no numeric features: Model 1
    learns from TF-IDF of the text, as ``audit --model majority``, and every mitigation runs."""
    from aif360_subjective.dashboard.state import MITIGATIONS, OpinionSettings

    d = _dashboard(_args([str(shared_data / folder)]))
    o = d.opinion
    assert list(o.models) == ["Model 1 (majority vote)", "Model 2 (annotator-aware)"]
    assert any("TF-IDF of the item text (text)" in n for n in o.notes)
    s = OpinionSettings(ci=None)
    for kind in MITIGATIONS:
        table = o.mitigate(kind, s)
        assert list(table.index) == ["before", "after"]
    assert len(o.history) == len(MITIGATIONS)


@pytest.mark.data
@pytest.mark.slow
def test_text_dataset_with_predictions_keeps_the_mitigations(shared_data, tmp_path):
    """With --predictions the trained models are audited beside the given ones, and the mitigations still run."""
    from aif360_subjective.cli import _inputs as inputs
    from aif360_subjective.dashboard.state import OpinionSettings

    path = str(shared_data / "lewidi2023" / "HS-Brexit")
    ds = inputs.load_annotations(_args([path]).inputs).dataset
    preds = pd.DataFrame({"item": ds.item_ids, "annotator": ds.annotator_ids,
                          "prediction": np.where(np.arange(len(ds.item_ids)) % 3 == 0, 1, 0)})
    preds.to_csv(tmp_path / "p.csv", index=False)
    d = _dashboard(_args([path, "--predictions", str(tmp_path / "p.csv")]))
    assert "p" in d.opinion.models and "Model 1 (majority vote)" in d.opinion.models
    table = d.opinion.mitigate("crowdtruth", OpinionSettings(ci=None), baseline="p")
    assert table.attrs["changed"] >= 0 and len(d.opinion.history) == 1


def test_port_out_of_range_is_one_line(table_csv, capsys):
    base = [str(table_csv), "--label-col", "truth", "--prediction-col", "pred"]
    with pytest.raises(SystemExit) as stop:
        main(["dashboard", *base, "--port", "70000"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "expected a port number from 0 to 65535 (0: a free port), got 70000" in err and "Traceback" not in err
    d = _dashboard(_args(base))
    with pytest.raises(ValueError, match="port must be an integer from 0 to 65535"):
        d.serve(port=-1, show=False)


def test_server_listens_on_loopback_and_says_so(table_csv, capsys):
    """Issue 33 item 2: 127.0.0.1 by default, the start line names the real address and the websocket origins;
    a port in use is one line, no traceback."""
    import socket

    from aif360_subjective.dashboard.app import free_port, start_line, websocket_origins

    args = _args([str(table_csv), "--label-col", "truth", "--prediction-col", "pred", "--no-browser"])
    assert (args.address, args.port, args.allow_websocket_origin) == ("127.0.0.1", 5006, None)
    assert websocket_origins("127.0.0.1", 5006) == ["localhost:5006", "127.0.0.1:5006"]
    assert websocket_origins("0.0.0.0", 80, ["host.lan:80"]) == ["localhost:80", "127.0.0.1:80", "host.lan:80"]
    assert "this machine only" in start_line("127.0.0.1", 5006, ["localhost:5006"])
    assert "other machines can reach it" in start_line("0.0.0.0", 5006, ["localhost:5006"])
    d = _dashboard(args)
    port = free_port()
    server = d.serve(port=port, show=False, threaded=True, verbose=True)
    try:
        import time

        for _ in range(200):  # the thread binds the port
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        out = capsys.readouterr().out
        assert f"Serving the dashboard on http://127.0.0.1:{port}/ (listening on 127.0.0.1, this machine only" in out
        # bound on loopback only: nothing answers at the port on this machine's other IPv4 addresses
        addrs = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)} - {"127.0.0.1"}
        for a in addrs:
            if a.startswith("127."):
                continue
            with socket.socket() as probe:
                assert probe.connect_ex((a, port)) != 0, f"the dashboard answers on {a}"
        # the port in use: the command says so in one line
        assert main(["dashboard", str(table_csv), "--label-col", "truth", "--prediction-col", "pred",
                     "--no-browser", "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert f"cannot listen on 127.0.0.1 port {port}" in err and "Traceback" not in err
    finally:
        server.stop()


@pytest.mark.slow
def test_notebook_display_and_bad_arguments():
    ds = make_subjective_dataset(n_items=150, n_annotators=20, random_state=1)
    d = Dashboard(annotations=ds)
    bundle = d._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert any("html" in k or "holoviews" in k or "bokeh" in k for k in data)
    with pytest.raises(ValueError, match="either data"):
        Dashboard()
    with pytest.raises(ValueError, match="label_col 'nope' is not a column"):
        Dashboard(pd.DataFrame({"a": [1, 2], "y": [0, 1], "p": [0, 1]}), label_col="nope", prediction_col="p")
    with pytest.raises(ValueError, match="favorable_label 5 is not a value"):
        Dashboard(pd.DataFrame({"a": [1, 2], "y": [0, 1], "p": [0, 1]}), label_col="y", prediction_col="p",
                  favorable_label=5)


@pytest.mark.slow
def test_upload_and_favourable_label_controls():
    """The data tab's controls without a browser: a CSV upload replaces the table; the favourable label flips the
    binary truth and predictions the subgroups are computed on."""
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], 80), "y": rng.choice(["no", "yes"], 80),
                       "p": rng.choice(["no", "yes"], 80)})
    d = Dashboard(df, label_col="y", prediction_col="p", favorable_label="no", subgroups=SubgroupSettings(n_clusters=3))
    d.panel()
    assert d.subgroups.view is None  # the subgroups tab analyses when first opened
    d.tabs.active = 1
    assert d.subgroups.view is not None
    np.testing.assert_array_equal(d.subgroups.y_true, (df["y"] == "no").to_numpy(dtype=int))
    d.favourable.value = "yes"
    np.testing.assert_array_equal(d.subgroups.y_true, (df["y"] == "yes").to_numpy(dtype=int))
    assert d.subgroups.view is not None and not d.message.visible
    # an unreadable upload: a message; a good one: the new table after "Use the uploaded table"
    d.upload.value = b"\x00\xff\xfe"
    assert d.message.visible
    new = pd.DataFrame({"h": rng.choice(["u", "v"], 60), "class": rng.integers(0, 2, 60),
                        "out": rng.integers(0, 2, 60)})
    d.upload.value = new.to_csv(index=False).encode()
    assert (d.upload_label.value, d.upload_pred.value) == ("class", "out")
    d._on_load(None)
    assert list(d.subgroups.X.columns) == ["h"] and len(d.subgroups.X) == 60
    assert d.subgroups.command().split()[2:7] == ["DATA.csv", "--label-col", "class", "--prediction-col", "out"]


def test_closed_tab_records_are_kept_out_of_the_console():
    """Issue 33 item 10: a tab closed while the server writes to it logs WebSocketClosedError with a traceback in
    Tornado's logger; the dashboard drops those records and keeps every other one."""
    import logging

    from tornado.websocket import WebSocketClosedError

    from aif360_subjective.dashboard.app import quiet_closed_websockets

    quiet_closed_websockets()
    quiet_closed_websockets()  # idempotent: one filter
    logger = logging.getLogger("asyncio")  # where Tornado's unretrieved write_message task is logged
    assert sum(getattr(f, "__name__", "") == "closed" for f in logger.filters) == 1
    try:
        raise WebSocketClosedError()
    except WebSocketClosedError:
        import sys

        closed = logger.makeRecord(logger.name, logging.ERROR, __file__, 1, "Task exception was never retrieved",
                                   None, sys.exc_info())
    other = logger.makeRecord(logger.name, logging.ERROR, __file__, 1, "something else", None, None)
    assert not logger.filter(closed) and logger.filter(other)


def _hostile_text_dataset(n_items: int = 150, n_annotators: int = 12, seed: int = 0):
    """Annotations of items with text and no numeric features (as POPQUORN), annotator attributes holding markup."""
    from aif360_subjective.datasets import MultiAnnotatorDataset

    rng = np.random.default_rng(seed)
    words = np.array(["good", "bad", "fine", "awful", "nice", "mean"])
    idx = rng.integers(0, len(words), (n_items, 7))  # 7 words: free text (text_columns needs 5 or more)
    text = [" ".join(words[row]) for row in idx]
    offensive = (np.isin(idx, [1, 3, 5]).sum(axis=1) >= 4).astype(int)
    annotators = pd.DataFrame({"gender": rng.choice(['<img src=x onerror="window.__pwned=1">', "<script>x</script>"],
                                                    n_annotators),
                               "age": rng.choice(["young", "old"], n_annotators)},
                              index=pd.Index([f"a{i}" for i in range(n_annotators)], name="annotator"))
    rows = []
    for i in range(n_items):
        for a in rng.choice(annotators.index, 5, replace=False):
            flip = rng.random() < 0.15
            rows.append((f"i{i}", a, int(offensive[i] != flip)))
    ann = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    items = pd.DataFrame({"text": text}, index=pd.Index([f"i{i}" for i in range(n_items)], name="item"))
    return MultiAnnotatorDataset(ann, annotators=annotators, items=items, favorable_label=0, unfavorable_label=1)


def _markup(obj) -> list[str]:
    """The HTML-bearing texts of a Panel layout: Markdown/Alert/HTML panes and Tabulator titles."""
    import panel as pn

    out = []
    for o in obj.select(lambda x: isinstance(x, (pn.pane.Markdown, pn.pane.HTML, pn.widgets.Tabulator))):
        if isinstance(o, pn.widgets.Tabulator):
            out += list((o.titles or {}).values())
        elif isinstance(o.object, str):
            out.append(o.object)
    return out


@pytest.mark.slow
def test_text_items_without_features_train_and_show_markup_as_text():
    """Issue 33 items 1 and 12 without the shared data: items with text only train Model 1 on TF-IDF, the
    mitigations run, and attribute values holding markup reach the opinion tab's panes only escaped."""
    d = Dashboard(annotations=_hostile_text_dataset())
    o = d.opinion
    assert list(o.models) == ["Model 1 (majority vote)", "Model 2 (annotator-aware)"]
    assert "Model 1 (majority vote) learns from TF-IDF of the item text (text)." in o.notes
    d.panel()
    d.tabs.active = 2
    d._op_grouping.value = "demographic"
    assert not d.message.visible, d.message.object
    assert list(d._op_attrs.value) == ["gender"]  # one attribute by default
    d._mit_kind.value = "reweighting"
    d._mit_button.clicks += 1
    assert not d.message.visible, d.message.object
    assert len(o.history) == 1
    texts = _markup(d.panel())
    answer = d._op_answer.object
    assert "&lt;img src\\=x onerror\\=&quot;window\\.\\_\\_pwned\\=1&quot;&gt;" in answer  # the group, escaped
    for t in texts:
        assert "<img" not in t and "<script" not in t, t
    assert "--attributes gender" in d._op_command.object


# ------------------------------------------------------------------------------------------------ tasks (issue 30)
def _ratings_csv(tmp_path, kind="regression"):
    rng = np.random.default_rng(4)
    n = 240
    g = rng.choice(["a", "b", "c"], n)
    if kind == "regression":  # over-predicted on g = a
        y = rng.normal(size=n).round(3)
        p = (y + 1.5 * (g == "a")).round(3)
    else:  # a class whose name is markup, predicted for g = a
        y = rng.choice(["<b>cat</b>", "dog", "owl"], n)
        p = np.where(g == "a", "<b>cat</b>", y)
    path = tmp_path / f"{kind}.csv"
    pd.DataFrame({"g": g, "h": rng.choice(["u", "v"], n), "y": y, "yhat": p}).to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_dashboard_task_option_builds_a_table_of_that_task(tmp_path, capsys):
    d = _dashboard(_args([str(_ratings_csv(tmp_path)), "--label-col", "y", "--prediction-col", "yhat", "--task",
                          "regression", "--n-clusters", "3"]))
    assert d.initial.task == "regression" and d.favorable is None and d.subgroups.y_true is None
    d.panel()
    d.tabs.active = 1
    v = d.subgroups.view
    assert v.report.task == "regression" and v.settings.metric == "mean_absolute_error"
    assert d._sg_task.options == list(SUBGROUP_PARAMS.choices("task")) and d._sg_task.value == "regression"
    assert d._sg_metric.options == ["mean_absolute_error", "mean_error", "mean_prediction", "size"]
    assert d.favourable.value == "none (no binary decisions)"
    assert "task regression" in d._sg_status.object and "--task regression" in d.subgroups.command()
    # a choice of metric re-ranks; the binary task without a favourable label is a message, the view stays
    d._sg_metric.value = "mean_error"
    assert d.subgroups.view.step == "ranking" and d.subgroups.view.settings.metric == "mean_error"
    d._sg_task.value = "binary"
    assert d.message.visible and "needs binary decisions" in d.message.object
    assert d.subgroups.view.report.task == "regression"
    # the deprecated spelling still builds it; annotation data refuses another task
    assert _args([str(tmp_path / "regression.csv"), "--outcome", "ordinal"]).task == "ordinal"
    assert "--outcome is deprecated" in capsys.readouterr().err
    ds = make_subjective_dataset(n_items=60, n_annotators=10, random_state=0)
    with pytest.raises(ValueError, match="annotation data is audited as binary decisions"):
        Dashboard(annotations=ds, task="ordinal")


@pytest.mark.slow
def test_multiclass_views_show_class_names_as_text(tmp_path):
    """Per-class statistical parity of a class whose name is markup: the metric control lists it, the ranking's
    column titles and the notes show it escaped."""
    path = _ratings_csv(tmp_path, "classes")
    d = Dashboard(pd.read_csv(path), label_col="y", prediction_col="yhat", task="multiclass",
                  subgroups=SubgroupSettings(n_clusters=3, kind="all"))
    d.panel()
    d.tabs.active = 1
    assert d._sg_metric.options[:2] == ["accuracy_error", "statistical_parity[<b>cat</b>]"]
    d._sg_metric.value = "statistical_parity[<b>cat</b>]"
    v = d.subgroups.view
    assert v.settings.metric == "statistical_parity[<b>cat</b>]" and not d.message.visible
    titles = d._sg_ranking.titles
    assert "statistical_parity[&lt;b&gt;cat&lt;/b&gt;]" in titles.values()
    assert "<b>" not in " ".join(titles.values())
    d._sg_metric.value = "size"
    d._sg_task.value = "auto"  # three non-numeric labels: multi-class, said in the notes
    assert "chose &#x27;multiclass&#x27;" in d._sg_notes.object and "<b>" not in d._sg_notes.object
