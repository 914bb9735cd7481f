"""The slots a fact fills: one table for extraction, supersession and review.

Each predicate palace writes is a *slot* of its subject. An **exclusive** slot holds one
value at a time (where one lives, works, one's manager, role, team): a newer value
retires the older one. Every other slot is **multi-valued** (likes, tools, languages,
allergies, projects, friends): a second value stands beside the first, and only a fact
stated as ended ("不再用 vim", "no longer on the payments team") retires one.

``uses`` is multi-valued, except within one *kind of tool*: the purpose written with it
("ruff for formatting", "用 uv 管依赖") or, failing that, the kind a well-known tool is
(vim and Zed are editors). Two editors stated with a change cue ("switched to Zed")
retire the older one; without one they go to review (a second editor, or a replacement?).
A project's stack (subject ``project`` or a named team) is a subject of its own, never
compared with the user's editor.

``wordings`` are the other ways a predicate is written by hand (住在, "moved to"): all
of one slot's wordings name one family.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from palace.graph.facts import predicate_key


@dataclass(frozen=True)
class Slot:
    exclusive: bool
    wordings: tuple[str, ...] = ()


SLOTS: dict[str, Slot] = {
    "lives_in": Slot(True, ("live_in", "lived_in", "moved_to", "move_to", "relocated_to", "resides_in",
                            "住在", "搬到", "搬去", "居住在", "定居在", "住")),
    "works_at": Slot(True, ("work_at", "works_for", "employed_by", "在工作", "在…工作", "就职于", "任职于", "入职")),
    "works_in": Slot(True, ("work_in", "office_in", "based_in_office")),
    "role": Slot(True, ("job", "title", "is_a", "职位", "职业")),
    "reports_to": Slot(True, ("manager", "boss", "汇报", "领导")),
    "member_of": Slot(True, ("joined", "on_team", "加入", "team")),
    "partner": Slot(True, ("spouse", "wife", "husband", "girlfriend", "boyfriend", "老婆", "老公")),
    "name": Slot(True, ("called", "叫")),
    "age": Slot(True, ()),
    "birthday": Slot(True, ("生日",)),
    "born_in": Slot(True, ("出生在", "出生于")),
    "hometown": Slot(True, ("grew_up_in", "from", "老家")),
    "diet": Slot(True, ()),
    "studies_at": Slot(True, ("study_at", "studying_at", "读书", "在读")),
    "works_on": Slot(False, ("work_on", "working_on", "参与")),
    "responsible_for": Slot(False, ("leads", "heads", "owns_area", "handles", "负责", "管")),
    "family": Slot(False, ("relative", "家人")),
    "friend": Slot(False, ("friends_with", "朋友")),
    "colleague": Slot(False, ("coworker", "同事")),
    "advisor": Slot(False, ("导师",)),
    "graduated_from": Slot(False, ("alumnus_of", "毕业于")),
    "speaks": Slot(False, ("speak", "说")),
    "learning": Slot(False, ("learns", "学")),
    "allergic_to": Slot(False, ("过敏",)),
    "owns": Slot(False, ("has", "own", "drives")),
    "pet": Slot(False, ("宠物",)),
    "uses": Slot(False, ("use", "decided_to_use", "switched_to", "用", "使用", "决定用", "改用", "换成")),
    "likes": Slot(False, ("like", "prefers", "prefer", "loves", "enjoys", "喜欢", "偏好", "爱", "喜爱")),
    "dislikes": Slot(False, ("dislike", "hates", "avoids", "doesn't_like", "不喜欢", "讨厌", "不爱")),
}
POLARITY = {"likes": "dislikes", "dislikes": "likes"}
# facts of one job, stated with the employer in one memory, end with it ("I work for Acme
# as an engineer", later "I started working at Globex": the role at Acme is over too)
ENDS_WITH: dict[str, tuple[str, ...]] = {"works_at": ("role", "member_of", "works_in", "reports_to")}

# The kind of tool a well-known tool is, and the purposes that name a kind: "uses" is
# one value at a time within a kind. Lowercase; a tool's key is its name folded.
TOOL_KINDS: dict[str, tuple[str, ...]] = {
    "editor": ("vim", "neovim", "nvim", "emacs", "vs code", "vscode", "cursor", "zed", "helix", "sublime",
               "sublime text", "atom", "intellij", "pycharm", "webstorm", "goland", "xcode", "nano", "windsurf"),
    "ci": ("jenkins", "github actions", "gitlab ci", "circleci", "travis", "buildkite", "drone", "teamcity"),
    "notes": ("notion", "obsidian", "evernote", "logseq", "roam", "bear", "onenote", "印象笔记", "语雀"),
    "todo": ("things", "todoist", "omnifocus", "ticktick", "滴答清单", "microsoft to do"),
    "chat": ("slack", "discord", "teams", "钉钉", "飞书", "企业微信", "lark", "dingtalk", "mattermost"),
    "formatter": ("black", "ruff", "prettier", "yapf", "autopep8", "gofmt", "rustfmt", "biome", "isort"),
    "python packages": ("pip", "uv", "poetry", "pdm", "pipenv", "conda", "hatch"),
    "js packages": ("npm", "pnpm", "yarn", "bun"),
    "containers": ("docker desktop", "orbstack", "podman", "colima", "rancher desktop"),
    "database": ("mysql", "postgres", "postgresql", "sqlite", "mongodb", "oracle", "sql server", "mariadb"),
    "task runner": ("make", "just", "task", "invoke", "nox", "tox"),
    "issue tracker": ("jira", "linear", "asana", "trello", "youtrack", "shortcut"),
    "shell": ("bash", "zsh", "fish"),
    "browser": ("chrome", "firefox", "safari", "edge", "brave", "arc", "opera", "vivaldi", "chromium"),
}
PURPOSE_KINDS: dict[str, tuple[str, ...]] = {
    "editor": ("editor", "editing", "coding", "code", "writing code", "编辑器", "写代码", "编辑", "敲代码"),
    "ci": ("ci", "builds", "nightly builds", "构建", "持续集成"),
    "notes": ("notes", "note taking", "note-taking", "笔记", "记笔记"),
    "todo": ("tasks", "todos", "to-dos", "待办", "管待办", "任务"),
    "chat": ("chat", "messaging", "沟通", "聊天", "跟同事沟通"),
    "formatter": ("formatting", "format", "格式化"),
    "python packages": ("python packages", "dependencies", "packages", "管依赖", "装包", "依赖", "管理依赖"),
    "containers": ("containers", "容器"),
    "database": ("storage", "database", "存数据", "数据库"),
    "task runner": ("tasks runner", "跑任务"),
}
_KIND_OF_TOOL = {tool: kind for kind, tools in TOOL_KINDS.items() for tool in tools}
_KIND_OF_PURPOSE = {word: kind for kind, words in PURPOSE_KINDS.items() for word in words}


_FAMILY_OF = {predicate_key(word): name for name, slot in SLOTS.items() for word in (name, *slot.wordings)}


def family(predicate: str) -> str | None:
    """The slot a predicate's wording belongs to (None: palace does not know it)."""
    return _FAMILY_OF.get(predicate_key(predicate))


def exclusive(predicate: str) -> bool:
    slot = family(predicate)
    return slot is not None and SLOTS[slot].exclusive


def _fold(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", text.casefold()).strip()


def tool_kind(tool: str, purpose: str | None) -> tuple[str | None, bool]:
    """The kind a ``uses`` fact is about, and whether the text stated it (a purpose)
    rather than palace knowing the tool: ("editor", False) for "I use vim"."""
    if purpose:
        folded = _fold(purpose)
        return _KIND_OF_PURPOSE.get(folded, folded), True
    return _KIND_OF_TOOL.get(_fold(tool)), False
