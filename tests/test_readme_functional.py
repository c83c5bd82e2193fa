"""The README's functional example runs and gives the class's numbers (it once used pos_label=1 on data whose
favourable label is 0, and printed 0.1908/0.557 against the class's 0.1876/0.574 while saying "same numbers")."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _functional_block() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Functional API"):]
    return re.search(r"```python\n(.*?)```", section, flags=re.DOTALL).group(1)


@pytest.mark.slow
def test_functional_example_agrees_with_the_class():
    code = _functional_block()
    assert "pos_label=ds.favorable_label" in code
    scope: dict = {}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore", UserWarning)  # thin groups
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own example
    res, m = scope["res"], scope["m"]
    assert res.unfairness == pytest.approx(m.unfairness(), abs=1e-12)
    assert res.performance == pytest.approx(m.performance(), abs=1e-12)
    table = m.group_performance(ci=0.95, n_boot=1000, random_state=m.options.random_state)
    assert res.group_table["performance"].tolist() == pytest.approx(table["performance"].tolist(), abs=1e-12)
