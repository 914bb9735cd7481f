"""palace/text/ is the only place that segments Chinese and says what a Han character is.

Every module of palace/ outside palace/text is parsed with ``ast`` (nothing imported): it
must not import jieba (``rjieba`` or ``jieba``) nor write a Han range (``\\u4e00-`` or
``\\u3400-``, escaped or as characters) in a string. Those facts live in
``palace.text.segment`` and ``palace.text.script``; a second copy drifts (five modules
once said the Han range in four ways, and called jieba with three different fallbacks).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from palace.text import segment
from palace.text.tokenize import tokenize

REPO = Path(__file__).resolve().parents[2]
TEXT = REPO / "palace" / "text"
SEGMENTERS = {"rjieba", "jieba"}
HAN_RANGE_STARTS = ("\\u4e00-", "\\u3400-", "\u4e00-", "\u3400-")


def _offences(path: Path, root: Path = REPO) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = path.relative_to(root)
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [f"{where}:{node.lineno} imports {name} (use palace.text.segment)"
                  for name in names if name.split(".")[0] in SEGMENTERS]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if any(start in node.value for start in HAN_RANGE_STARTS):
                found.append(f"{where}:{node.lineno} writes a Han range (use palace.text.script)")
    return sorted(found, key=lambda line: int(line.split(":")[1].split(" ")[0]))


def _outside_text() -> list[Path]:
    return [p for p in sorted((REPO / "palace").rglob("*.py")) if TEXT not in p.parents]


def test_only_the_text_wing_segments_and_knows_the_han_range():
    assert [o for path in _outside_text() for o in _offences(path)] == []


def test_the_check_sees_imports_and_ranges(tmp_path):
    """Guards the test itself: each way of saying the facts again is caught."""
    source = tmp_path / "fake.py"
    source.write_text(
        "import rjieba\n"
        "from jieba import posseg\n"
        "import re\n"
        "A = re.compile(r'[\\u4e00-\\u9fff]')\n"
        "B = '[\u3400-\u4dbf]'\n"
        "C = f'x{A}[\\u3400-\\u9fff]'\n"
        "D = '一个 一些'\n", encoding="utf-8")
    found = _offences(source, root=tmp_path)
    assert [line.split(" ", 1)[1] for line in found] == [
        "imports rjieba (use palace.text.segment)", "imports jieba (use palace.text.segment)",
        "writes a Han range (use palace.text.script)", "writes a Han range (use palace.text.script)",
        "writes a Han range (use palace.text.script)"]


def test_the_text_wing_itself_holds_the_facts():
    offences = [o for p in sorted(TEXT.glob("*.py")) for o in _offences(p)]
    assert any("imports rjieba" in o for o in offences)
    assert any("writes a Han range" in o for o in offences)


def test_a_missing_segmenter_says_how_to_install_it(monkeypatch):
    """One policy for a broken install, everywhere Chinese is read: an error with the fix."""
    monkeypatch.setitem(sys.modules, "rjieba", None)  # what Python does for a missing module
    segment._jieba.cache_clear()
    try:
        with pytest.raises(ImportError, match="pip install rjieba"):
            tokenize("数据库选型")
        assert tokenize("English needs no segmenter") == ["english", "needs", "segmenter"]
    finally:
        segment._jieba.cache_clear()
