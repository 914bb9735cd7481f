"""Which writing system a character is in: the one declaration of the Han and CJK ranges.

Two classes, on purpose:

- ``HAN_RANGES``: the Han ideographs of the Basic Multilingual Plane (extension A, the
  unified block, compatibility ideographs). This is what jieba segments and what the
  Chinese rules read; a text with one of these characters is read as Chinese.
- ``CJK_RANGES``: Han plus kana, hangul and the astral Han extensions B–G: every script
  written without spaces between words. Token estimates price each such character as a
  token, and concept matching treats each as its own word boundary, so Japanese and
  Korean count there, though jieba does not segment them.

Both are written as the inside of a regex character class (``f"[{HAN_RANGES}A-Za-z]"``)
so a rule can add its own characters.
"""

from __future__ import annotations

import re

HAN_RANGES = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # extension A, unified, compatibility
CJK_RANGES = (r"\u3040-\u30ff"  # hiragana, katakana
              + HAN_RANGES
              + r"\uac00-\ud7af"  # hangul syllables
              + r"\U00020000-\U0003134f")  # Han extensions B–G

HAN = re.compile(f"[{HAN_RANGES}]")
HAN_RUN = re.compile(f"([{HAN_RANGES}]+)")  # a group: HAN_RUN.split keeps the runs
CJK = re.compile(f"[{CJK_RANGES}]")


def has_han(text: str) -> bool:
    """Whether ``text`` holds a Chinese character (what makes a text read as Chinese)."""
    return HAN.search(text) is not None


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a character of a script written without spaces."""
    return CJK.search(text) is not None
