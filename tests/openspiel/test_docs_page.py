"""docs/openspiel.md's Python example runs and prints what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"


def test_the_python_example_prints_what_its_comments_show(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/openspiel.md python block", "exec"), {"__name__": "__openspiel_md__"})
    printed = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    shown = [m.group(1).split(" (")[0].strip()
             for m in re.finditer(r"print\(.*# (.*)$", code, re.M)]
    assert len(printed) == len(shown) == 8
    for out, comment in zip(printed, shown):
        if comment.startswith("["):  # numpy's rounding noise: compare numbers
            assert [float(x) for x in out.strip("[]").replace(",", " ").split()] == pytest.approx(
                [float(x) for x in comment.strip("[]").replace(",", " ").split()], abs=1e-12)
        else:
            assert out.startswith(comment), (out, comment)
