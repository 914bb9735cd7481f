"""Entity names to keys: two spellings of one name get one key.

NFKC folds full-width letters and digits to half width, ``casefold`` folds case, runs of
spaces and ``_``/``-`` become one space, and a small table maps traditional characters
to simplified ones. The table holds only one-to-one pairs (臺/台, 灣/湾, 張/张…): a
character whose simplified form depends on the word (乾/干, 後/后, 髮/发) is left alone,
so a name is never folded onto a different one.
"""

from __future__ import annotations

import re
import unicodedata

USER_KEY = "user"
USER_NAME = "用户"       # how extraction writes the user as a subject
# The speaker of a memory: "I live in Beijing" is a fact about the user.
_USER_NAMES = frozenset({"user", "i", "me", "my", "mine", "myself", "我", "我的", "用户", "本人", "自己"})
# The project or team a memory's "we" speaks for ("我们决定用 Kafka", "our CI runs on …"):
# a subject of its own, never the user.
PROJECT_KEY = PROJECT_NAME = "project"
_PROJECT_NAMES = frozenset({"project", "项目", "本项目", "我们", "咱们", "we", "us", "our team", "the team",
                            "the project", "团队"})

_TRADITIONAL = (
    "張张 偉伟 劉刘 陳陈 楊杨 黃黄 趙赵 吳吴 周周 鄭郑 王王 馮冯 蔣蒋 韓韩 "
    "臺台 灣湾 華华 國国 東东 廣广 門门 龍龙 鳳凤 雲云 陽阳 長长 書书 "
    "園园 區区 島岛 縣县 鎮镇 圖图 項项 專专 組组 業业 開开 發发 學学 車车 "
    "馬马 鳥鸟 魚鱼 語语 說说 網网 電电 腦脑 機机 會会 議议 資资 訊讯 軟软 體体 "
    "藝艺 術术 師师 醫医 歷历 時时 間间 個个 們们 樂乐 愛爱 產产 場场 經经 濟济"
).split()
_TO_SIMPLIFIED = {ord(pair[0]): pair[1] for pair in _TRADITIONAL if pair[0] != pair[1]}
_SPACES = re.compile(r"[\s_\-]+")


def entity_key(name: str) -> str:
    """The key an entity name is stored and looked up by ("Zhang Wei", "ＺＨＡＮＧ_wei"
    and "zhang-wei" share one; "張偉" and "张伟" share one)."""
    text = unicodedata.normalize("NFKC", str(name)).casefold().translate(_TO_SIMPLIFIED)
    text = _SPACES.sub(" ", text).strip(" .,;:!?，。；：！？、\"'“”‘’()（）[]【】")
    if text in _USER_NAMES:
        return USER_KEY
    return PROJECT_KEY if text in _PROJECT_NAMES else text


def is_user(name: str) -> bool:
    return entity_key(name) == USER_KEY
