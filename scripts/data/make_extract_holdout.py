"""Writes extract_holdout.json: a held-out set for palace's fact extraction (the entities and
relations a memory's text states), written BLIND on 2026-12-03 by a helper session that read
none of palace's extraction code or pattern tables (palace/graph/extract.py,
palace/graph/supersede.py, palace/capture/, any word lists in palace/) and never ran palace on
these sentences. Its first score is what a user would see; never tune on it (if it is ever used
for tuning, split it with scripts/_bench_common.half_of on the case id and report both halves).

Each case: a short chat-style sentence (Chinese or English) said to an assistant, the relations
a careful human would record from it, the people it names, the words a careless tagger might
take for people, and the change it states (if any). The conventions chosen while writing are in
CONVENTIONS below and in the JSON's description.

Case ids: the first letter is the language (z = zh, e = en), the second the kind
(s single, m multi_clause, n negated, c change, h multi_hop, t third_person, f non_fact,
d project_fact), then a number. Run this file to validate the data and write the JSON.
"""
from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

PREDICATES = (
    "lives_in", "works_at", "role", "works_on", "member_of", "responsible_for", "reports_to",
    "partner", "family", "likes", "dislikes", "uses", "owns", "pet", "studies_at", "speaks",
    "born_in", "birthday", "allergic_to",
)
# Kinds of fact people plainly state that fit none of the predicates above.
DECLARED_PREDICATES = {
    "works_in": "the city/district/office where someone works, when no employer is named "
                "('在杭州工作', 'transferred to the Seoul office'); never works_at",
    "hometown": "where someone grew up or comes from (老家, '上海人', 'grew up in'); not born_in",
    "friend": "the object is the subject's friend (朋友, 室友, 'best friend')",
    "colleague": "the object is the subject's colleague: said so (同事, 'coworker', 'cofounder', "
                 "'works with us') or placed in the speaker's team or company (我们组的, 我们公司的, "
                 "'on my team', 'on our team'); a manager named as such is reports_to, and the "
                 "leader of 'our team' is both colleague and responsible_for the team",
    "advisor": "the object is the subject's academic advisor (导师, 'my advisor')",
    "name": "the subject's own name ('我叫陈默', \"I'm Nora\")",
    "age": "the subject's age as written ('34', 'seven', '六岁')",
    "learning": "a language or skill the subject is learning now (在学日语, 'learning Korean')",
    "diet": "a diet the subject follows (素食, 'vegan', 'vegetarian')",
    "graduated_from": "a school the subject studied at in the past (本科是在武大读的, "
                      "'did my undergrad at Purdue'); not studies_at",
}
KINDS = ("single", "multi_clause", "negated", "change", "multi_hop", "third_person", "non_fact",
         "project_fact")
KIND_LETTER = {"s": "single", "m": "multi_clause", "n": "negated", "c": "change",
               "h": "multi_hop", "t": "third_person", "f": "non_fact", "d": "project_fact"}
LANG_LETTER = {"z": "zh", "e": "en"}
# Subjects that are unnamed relatives, written as in the text without the possessive.
KIN_SUBJECTS = {"老婆", "老公", "妈", "爸", "姐", "哥", "女朋友",
                "wife", "husband", "mom", "dad", "sister", "parents"}
PERSON_OBJECT_PREDICATES = {"partner", "family", "reports_to", "friend", "colleague", "advisor",
                            "name"}
# The not_persons that are truly person-like: a name-like word, a word starting with a Chinese
# surname character, a pet's name, a product or tool named like a person, a capitalised command.
# A case is "tricky" when its not_persons hold one of these (places like 北京 do not count).
TRICKY_NOT_PERSONS = {
    "张江", "马上", "许多", "任何", "高兴", "白天", "李宁", "周末", "周三", "周一", "周五", "周报",
    "常州", "黄山", "杨梅", "王者荣耀", "高铁", "方案", "豆豆", "旺财", "年糕", "汤圆", "可乐",
    "小米", "小红书", "高德地图", "金山办公",
    "Austin", "Victoria", "Jordan", "Julia", "Ruby", "Jenkins", "Hugo", "Alexa", "Claude",
    "Django", "Dell", "Tesla", "Ford Ranger", "Morgan Stanley", "St. Mary's", "Pixel", "Biscuit",
    "Miso", "Tofu", "Kiwi", "Will", "Mark", "Grant", "May", "Move", "Add", "Edit", "Read", "Run",
    "Bash", "Chase Bank", "Georgia Tech", "Florence", "Googler", "Let", "Next", "Sorry", "Maybe",
    "Ping", "Kafka", "Boston Children's", "Lumen", "March", "April", "Monday", "Friday",
}
# The reverse trap: persons whose names are also ordinary words, places or tools.
TRICKY_PERSONS = {"小雨", "高远", "马可", "常浩", "何伟", "周敏", "Dev", "Will", "Mark", "Grace",
                  "Georgia", "Jordan", "Julia", "Sue", "Sam", "Lily", "Coltrane"}
MINIMUM = {"total": 220, "multi_clause": 40, "negated": 25, "change": 30, "non_fact": 30,
           "third_person+multi_hop": 25, "tricky_not_persons": 20}

CONVENTIONS = [
    "subject: 'user' for the speaker (我, I, my, 'we' of a household); a named person as written "
    "(the fullest form the text gives; English titles Prof./Dr dropped, Chinese 王总/李教授/老周/小李 "
    "kept since that is the name); an unnamed relative as the kin word without the possessive "
    "(老婆, 妈, 'wife', 'mom', 'parents'); 'project' for the unnamed project/codebase/team of 'we', "
    "'our CI', '项目', '我们'; a team's name when the team is named (支付组, 'payments team').",
    "An unnamed relative yields no user->relative relation ('老婆是做设计的' is only 老婆 role 设计); "
    "a named one does ('我老婆叫林晓' is user partner 林晓). family carries relation_kind = what the "
    "object is to the subject (daughter, sister, brother, cousin).",
    "objects are verbatim spans of the text (the validator checks it): articles, possessives and "
    "verbs dropped (喝咖啡 -> 咖啡, 'a data engineer' -> 'data engineer', 打羽毛球 -> 羽毛球); places at "
    "city level when a city is written (上海浦东 -> 上海, 杭州滨江 -> 杭州, 湖南衡阳 -> 衡阳), the "
    "district when only a district is written (天河, 张江); teams and projects keep the head noun "
    "written next to the name (平台组, 'platform team', 星图项目, 'Atlas project'), a bare name stays "
    "bare ('Atlas', 天枢); products without year/adjectives ('vintage Vespa' -> 'Vespa').",
    "A leadership verb (heads, leads, 负责, 'handles', 'does all the X', 'I own X') is "
    "responsible_for; a job-title noun (组长, 'tech lead', 'PM', 设计师) is role; 'the tech lead for "
    "T' gives both. 'My manager is X'/'我的领导是X'/'向X汇报' is reports_to X.",
    "Places of work without an employer are works_in, never works_at; hometown (老家, grew up in, "
    "上海人) is not born_in; a past school is graduated_from, not studies_at.",
    "Regular hobbies and habits ('周末一般去游泳', \"I'm into bouldering\") are likes; 'prefer X' is "
    "likes X. Refusing food or drink without a stated dislike ('我不抽烟也不喝酒', \"I don't drink "
    "alcohol\") gives no relation.",
    "uses: a tool/technology the subject uses; the optional purpose is free text, not scored as a "
    "span. A pet's species goes in the extra field species; pets are not persons.",
    "change: at most one per case, with an extra 'subject' field (default 'user'); relations hold "
    "the state after the change (the new value), never the old one. A stated cessation with no new "
    "value (不再, 'no longer', 'anymore', 离开, 'used to', 搬走了) is change with new null, and kind "
    "'negated'; kind 'change' always has a non-null new value ('now', 'new manager', joined, moved "
    "to, switched from X to Y, 升职, 跳槽). When a sentence states two changes, only the speaker's "
    "is recorded (ec23).",
    "negated: a negation a naive extractor could misread: a denied relation yields nothing "
    "('王磊不是我领导'), a corrected one yields the correction ('我不是在北京出生的，是在天津' -> born_in "
    "天津), 不喜欢/'don't like'/'can't stand' is dislikes.",
    "non_fact: no relation and no change: questions, hypotheticals and counterfactuals (如果, "
    "要是, 'would'), plans and wishes for the future ('我打算明年去日本读书', \"I'm moving to Sydney "
    "in May\", \"I'd love to work at Google\"), other people's opinions and questions, commands to "
    "the assistant, agent narration ('下一步我会运行测试', \"I'll push the fix\"), code, shell and "
    "log lines, settings with no entity relation ('超时统一用 5 秒').",
    "project_fact (a kind added to the brief's list): a team or project decision or stack fact "
    "('我们决定用 Kafka 做事件总线', 'Our CI runs on GitHub Actions'): recorded with subject 'project' "
    "or the named team, never as the user's personal preference; it has no user relation.",
    "kind is one label per case, the most specific: non_fact/project_fact, then change, negated, "
    "multi_hop (one clause, two or more relations about one subject: '刘洋在星图项目做前端开发'), "
    "multi_clause (two or more clauses, the subject inherited or pronominal), third_person "
    "(a fact about someone other than the user), single. The printed counts also give how many "
    "cases have a relation whose subject is not the user.",
    "persons: every person named (including the user's own name, celebrities, Coltrane); kin words "
    "and unnamed people are not persons. not_persons: words a careless tagger might take for a "
    "person: places, companies, products, tools and languages named like people (Julia, Ruby, "
    "Jenkins, Hugo, Alexa, Claude, Django, Cassandra-like), pets, time words (周一, 上周, May, "
    "Monday), verbs and imperative sentence starts (Move, Add, Edit, Mark, Grant, Will), words "
    "starting with a surname character (张江, 马上, 许多, 任何, 高兴, 白天, 李宁 the brand). A case "
    "counts as 'tricky' when its not_persons is non-empty.",
]

CASES: list[dict] = []


def R(subject: str, predicate: str, obj: str, **extra: str) -> dict:
    return {"subject": subject, "predicate": predicate, "object": obj, **extra}


def CH(predicate: str, old: str | None, new: str | None, subject: str = "user") -> dict:
    return {"subject": subject, "predicate": predicate, "old": old, "new": new}


def C(case_id: str, kind: str, text: str, relations: list[dict] | None = None,
      persons: list[str] | None = None, np: list[str] | None = None,
      change: dict | None = None) -> None:
    CASES.append({"id": case_id, "lang": LANG_LETTER[case_id[0]], "text": text, "kind": kind,
                  "relations": relations or [], "persons": persons or [],
                  "not_persons": np or [], "change": change})


U = "user"

# ---------------------------------------------------------------- Chinese
# single
C("zs01", "single", "我住在成都。", [R(U, "lives_in", "成都")], np=["成都"])
C("zs02", "single", "我在美团上班。", [R(U, "works_at", "美团")], np=["美团"])
C("zs03", "single", "我是做后端开发的。", [R(U, "role", "后端开发")])
C("zs04", "single", "我家猫叫豆豆。", [R(U, "pet", "豆豆", species="猫")], np=["豆豆"])
C("zs05", "single", "我对青霉素过敏。", [R(U, "allergic_to", "青霉素")])
C("zs06", "single", "我老家是湖南衡阳的。", [R(U, "hometown", "衡阳")], np=["衡阳"])
C("zs07", "single", "我生日是 3 月 14 号。", [R(U, "birthday", "3 月 14 号")], np=["3 月 14 号"])
C("zs08", "single", "我在浙大读博。", [R(U, "studies_at", "浙大")], np=["浙大"])
C("zs09", "single", "我平时用 VS Code 写代码。", [R(U, "uses", "VS Code", purpose="写代码")],
  np=["VS Code"])
C("zs10", "single", "我特别喜欢周杰伦。", [R(U, "likes", "周杰伦")], persons=["周杰伦"])
C("zs11", "single", "我开的是一辆比亚迪汉。", [R(U, "owns", "比亚迪汉")], np=["比亚迪汉"])
C("zs12", "single", "我的直属领导是王总。", [R(U, "reports_to", "王总")], persons=["王总"])
C("zs13", "single", "我出生在哈尔滨。", [R(U, "born_in", "哈尔滨")], np=["哈尔滨"])
C("zs14", "single", "我老婆叫林晓。", [R(U, "partner", "林晓")], persons=["林晓"])
C("zs15", "single", "我是产品经理。", [R(U, "role", "产品经理")])
C("zs16", "single", "我在杭州工作。", [R(U, "works_in", "杭州")], np=["杭州"])
C("zs17", "single", "我最近在学日语。", [R(U, "learning", "日语")])
C("zs18", "single", "老婆是做设计的。", [R("老婆", "role", "设计")])
C("zs19", "single", "我在张江上班。", [R(U, "works_in", "张江")], np=["张江"])
C("zs20", "single", "我爱吃杨梅。", [R(U, "likes", "杨梅")], np=["杨梅"])
C("zs21", "single", "我用钉钉跟同事沟通。", [R(U, "uses", "钉钉", purpose="沟通")], np=["钉钉"])
C("zs22", "single", "我住在黄山脚下。", [R(U, "lives_in", "黄山")], np=["黄山"])
C("zs23", "single", "我最近迷上了王者荣耀。", [R(U, "likes", "王者荣耀")], np=["王者荣耀"])
C("zs24", "single", "我很喜欢李宁的衣服。", [R(U, "likes", "李宁")], np=["李宁"])
C("zs25", "single", "我家狗叫旺财。", [R(U, "pet", "旺财", species="狗")], np=["旺财"])
C("zs26", "single", "我是素食主义者。", [R(U, "diet", "素食")])
C("zs27", "single", "我在常州长大。", [R(U, "hometown", "常州")], np=["常州"])
C("zs28", "single", "我本科是在武大读的。", [R(U, "graduated_from", "武大")], np=["武大"])
C("zs29", "single", "我喜欢喝手冲咖啡。", [R(U, "likes", "手冲咖啡")])
C("zs30", "single", "我用 Mac 办公。", [R(U, "uses", "Mac", purpose="办公")], np=["Mac"])

# multi_clause
C("zm01", "multi_clause", "我住在北京，在字节跳动工作。",
  [R(U, "lives_in", "北京"), R(U, "works_at", "字节跳动")], np=["北京", "字节跳动"])
C("zm02", "multi_clause", "我住在上海浦东，平时在张江上班。",
  [R(U, "lives_in", "上海"), R(U, "works_in", "张江")], np=["上海浦东", "张江"])
C("zm03", "multi_clause", "我在腾讯做产品，老婆在一家银行上班。",
  [R(U, "works_at", "腾讯"), R(U, "role", "产品")], np=["腾讯"])
C("zm04", "multi_clause", "我在阿里做数据分析，主要用 Python 和 SQL。",
  [R(U, "works_at", "阿里"), R(U, "role", "数据分析"), R(U, "uses", "Python"), R(U, "uses", "SQL")],
  np=["阿里", "Python"])
C("zm05", "multi_clause", "我叫陈默，在南大读研。",
  [R(U, "name", "陈默"), R(U, "studies_at", "南大")], persons=["陈默"], np=["南大"])
C("zm06", "multi_clause", "我老公是医生，在协和上班。",
  [R("老公", "role", "医生"), R("老公", "works_at", "协和")], np=["协和"])
C("zm07", "multi_clause", "我女儿叫朵朵，在北大附小上学，她对芒果过敏。",
  [R(U, "family", "朵朵", relation_kind="daughter"), R("朵朵", "studies_at", "北大附小"),
   R("朵朵", "allergic_to", "芒果")], persons=["朵朵"], np=["北大附小"])
C("zm08", "multi_clause", "我养了两只猫，一只叫年糕，一只叫汤圆。",
  [R(U, "pet", "年糕", species="猫"), R(U, "pet", "汤圆", species="猫")], np=["年糕", "汤圆"])
C("zm09", "multi_clause", "我住在深圳南山，每天骑车去公司。", [R(U, "lives_in", "深圳")],
  np=["深圳南山"])
C("zm10", "multi_clause", "我在网易做游戏策划，平时喜欢打羽毛球。",
  [R(U, "works_at", "网易"), R(U, "role", "游戏策划"), R(U, "likes", "羽毛球")], np=["网易"])
C("zm11", "multi_clause", "我的组长是刘洋，我负责支付系统的对账模块。",
  [R(U, "reports_to", "刘洋"), R(U, "responsible_for", "对账模块")], persons=["刘洋"])
C("zm12", "multi_clause", "张伟是我大学室友，在华为做芯片设计。",
  [R(U, "friend", "张伟"), R("张伟", "works_at", "华为"), R("张伟", "role", "芯片设计")],
  persons=["张伟"], np=["华为"])
C("zm13", "multi_clause", "我周末一般去游泳，工作日早上跑步。",
  [R(U, "likes", "游泳"), R(U, "likes", "跑步")], np=["周末"])
C("zm14", "multi_clause", "我在小红书上班，负责推荐算法。",
  [R(U, "works_at", "小红书"), R(U, "responsible_for", "推荐算法")], np=["小红书"])
C("zm15", "multi_clause", "我是上海人，在北京工作。",
  [R(U, "hometown", "上海"), R(U, "works_in", "北京")], np=["上海", "北京"])
C("zm16", "multi_clause", "我在蚂蚁做风控，用的主要是 Java 和 Flink。",
  [R(U, "works_at", "蚂蚁"), R(U, "role", "风控"), R(U, "uses", "Java"), R(U, "uses", "Flink")],
  np=["蚂蚁", "Flink"])
C("zm17", "multi_clause", "陈静是设计师，她也负责官网改版。",
  [R("陈静", "role", "设计师"), R("陈静", "responsible_for", "官网改版")], persons=["陈静"])
C("zm18", "multi_clause", "我和女朋友住一起，她叫小雨，在一家外企做 HR。",
  [R(U, "partner", "小雨"), R("小雨", "role", "HR")], persons=["小雨"])
C("zm19", "multi_clause", "我在学吉他，也在学日语。",
  [R(U, "learning", "吉他"), R(U, "learning", "日语")])
C("zm20", "multi_clause", "我对海鲜过敏，对尘螨也过敏。",
  [R(U, "allergic_to", "海鲜"), R(U, "allergic_to", "尘螨")])
C("zm21", "multi_clause", "我在上海交大读研，导师是李教授。",
  [R(U, "studies_at", "上海交大"), R(U, "advisor", "李教授")], persons=["李教授"], np=["上海交大"])
C("zm22", "multi_clause", "我在字节的飞书团队，做 iOS 开发。",
  [R(U, "works_at", "字节"), R(U, "member_of", "飞书团队"), R(U, "role", "iOS 开发")],
  np=["字节", "飞书团队"])
C("zm23", "multi_clause", "我爸是老师，我妈是护士。",
  [R("爸", "role", "老师"), R("妈", "role", "护士")])
C("zm24", "multi_clause", "我住在苏州，但在上海上班。",
  [R(U, "lives_in", "苏州"), R(U, "works_in", "上海")], np=["苏州", "上海"])
C("zm25", "multi_clause", "我喜欢看科幻小说，最喜欢刘慈欣。",
  [R(U, "likes", "科幻小说"), R(U, "likes", "刘慈欣")], persons=["刘慈欣"])
C("zm26", "multi_clause", "我在京东做运营，我的领导是周敏。",
  [R(U, "works_at", "京东"), R(U, "role", "运营"), R(U, "reports_to", "周敏")],
  persons=["周敏"], np=["京东"])
C("zm27", "multi_clause", "我用 Obsidian 记笔记，用 Things 管待办。",
  [R(U, "uses", "Obsidian", purpose="记笔记"), R(U, "uses", "Things", purpose="管待办")],
  np=["Obsidian", "Things"])
C("zm28", "multi_clause", "我用 uv 管依赖，格式化用 ruff。",
  [R(U, "uses", "uv", purpose="管依赖"), R(U, "uses", "ruff", purpose="格式化")])
C("zm29", "multi_clause", "我会说粤语，也会一点上海话。",
  [R(U, "speaks", "粤语"), R(U, "speaks", "上海话")])
C("zm30", "multi_clause", "我同事高远会说俄语，还在学西班牙语。",
  [R(U, "colleague", "高远"), R("高远", "speaks", "俄语"), R("高远", "learning", "西班牙语")],
  persons=["高远"])
C("zm31", "multi_clause", "孙悦是我老板，她在新加坡办公。",
  [R(U, "reports_to", "孙悦"), R("孙悦", "works_in", "新加坡")], persons=["孙悦"], np=["新加坡"])
C("zm32", "multi_clause", "我家在天河，公司在珠江新城，通勤很方便。",
  [R(U, "lives_in", "天河"), R(U, "works_in", "珠江新城")], np=["天河", "珠江新城"])
C("zm33", "multi_clause", "btw 我在 Shopee 做后端，base 新加坡。",
  [R(U, "works_at", "Shopee"), R(U, "role", "后端"), R(U, "lives_in", "新加坡")],
  np=["Shopee", "新加坡"])
C("zm34", "multi_clause", "我女朋友是做 UI 设计的，也喜欢画画。",
  [R("女朋友", "role", "UI 设计"), R("女朋友", "likes", "画画")])

# negated
C("zn01", "negated", "我不喜欢喝茶。", [R(U, "dislikes", "茶")], np=["喝茶"])
C("zn02", "negated", "我不再用 vim 了。", change=CH("uses", "vim", None))
C("zn03", "negated", "我已经不在阿里了。", np=["阿里"], change=CH("works_at", "阿里", None))
C("zn04", "negated", "我不住在北京，只是经常去出差。", np=["北京"])
C("zn05", "negated", "我一点都不喜欢香菜。", [R(U, "dislikes", "香菜")])
C("zn06", "negated", "我对花生不过敏，对芒果过敏。", [R(U, "allergic_to", "芒果")])
C("zn07", "negated", "王磊不是我领导，他在隔壁组。", persons=["王磊"])
C("zn08", "negated", "我从来不用 Windows。", np=["Windows"])
C("zn09", "negated", "我不是程序员，是做产品的。", [R(U, "role", "产品")])
C("zn10", "negated", "我没有养宠物。")
C("zn11", "negated", "我不会说粤语，只能听懂一点。")
C("zn12", "negated", "我老婆已经不在腾讯了。", np=["腾讯"],
  change=CH("works_at", "腾讯", None, subject="老婆"))
C("zn13", "negated", "我不太喜欢开会。", [R(U, "dislikes", "开会")], np=["开会"])
C("zn14", "negated", "支付网关现在已经不归我管了。", change=CH("responsible_for", "支付网关", None))
C("zn15", "negated", "我并不讨厌加班，只是不想天天加。", np=["加班"])
C("zn16", "negated", "我已经不做星图项目了。", np=["星图项目"],
  change=CH("works_on", "星图项目", None))
C("zn17", "negated", "我不是在北京出生的，是在天津。", [R(U, "born_in", "天津")],
  np=["北京", "天津"])
C("zn18", "negated", "我不抽烟也不喝酒。")
C("zn19", "negated", "我以前住在广州，后来搬走了。", np=["广州"],
  change=CH("lives_in", "广州", None))
C("zn20", "negated", "我现在不用 Notion 记笔记了。", np=["Notion"], change=CH("uses", "Notion", None))
C("zn21", "negated", "张伟不是我同事，是我表哥。",
  [R(U, "family", "张伟", relation_kind="cousin")], persons=["张伟"])

# change
C("zc01", "change", "我上个月从上海搬到了杭州。", [R(U, "lives_in", "杭州")],
  np=["上个月", "上海", "杭州"], change=CH("lives_in", "上海", "杭州"))
C("zc02", "change", "我跳槽到了拼多多，之前在京东。", [R(U, "works_at", "拼多多")],
  np=["拼多多", "京东"], change=CH("works_at", "京东", "拼多多"))
C("zc03", "change", "我搬到杭州滨江了，离公司很近。", [R(U, "lives_in", "杭州")],
  np=["杭州滨江"], change=CH("lives_in", None, "杭州"))
C("zc04", "change", "我们家搬到了顺义。", [R(U, "lives_in", "顺义")], np=["顺义"],
  change=CH("lives_in", None, "顺义"))
C("zc05", "change", "我从后端转到前端了。", [R(U, "role", "前端")], change=CH("role", "后端", "前端"))
C("zc06", "change", "我加入了平台组。", [R(U, "member_of", "平台组")],
  change=CH("member_of", None, "平台组"))
C("zc07", "change", "我已经离开字节了，现在在快手。", [R(U, "works_at", "快手")],
  np=["字节", "快手"], change=CH("works_at", "字节", "快手"))
C("zc08", "change", "我把默认编辑器从 VS Code 换成了 Cursor。",
  [R(U, "uses", "Cursor", purpose="编辑器")], np=["VS Code", "Cursor"],
  change=CH("uses", "VS Code", "Cursor"))
C("zc09", "change", "张伟跳槽去了美团。", [R("张伟", "works_at", "美团")], persons=["张伟"],
  np=["美团"], change=CH("works_at", None, "美团", subject="张伟"))
C("zc10", "change", "刘洋升职了，现在是技术总监。", [R("刘洋", "role", "技术总监")],
  persons=["刘洋"], change=CH("role", None, "技术总监", subject="刘洋"))
C("zc11", "change", "我换到了搜索组。", [R(U, "member_of", "搜索组")],
  change=CH("member_of", None, "搜索组"))
C("zc12", "change", "我的新领导是陈磊。", [R(U, "reports_to", "陈磊")], persons=["陈磊"],
  change=CH("reports_to", None, "陈磊"))
C("zc13", "change", "我们从 Jenkins 迁到了 GitHub Actions。",
  [R("project", "uses", "GitHub Actions")], np=["Jenkins", "GitHub Actions"],
  change=CH("uses", "Jenkins", "GitHub Actions", subject="project"))
C("zc14", "change", "我今年研究生毕业，入职了招商银行。", [R(U, "works_at", "招商银行")],
  np=["招商银行"], change=CH("works_at", None, "招商银行"))
C("zc15", "change", "我老公调到深圳分公司了。", [R("老公", "works_in", "深圳")], np=["深圳"],
  change=CH("works_in", None, "深圳", subject="老公"))
C("zc16", "change", "我改用飞书了，钉钉不用了。", [R(U, "uses", "飞书")], np=["飞书", "钉钉"],
  change=CH("uses", "钉钉", "飞书"))
C("zc17", "change", "我搬回老家长沙了。", [R(U, "lives_in", "长沙"), R(U, "hometown", "长沙")],
  np=["长沙"], change=CH("lives_in", None, "长沙"))
C("zc18", "change", "我女朋友从百度跳到了小米。", [R("女朋友", "works_at", "小米")],
  np=["百度", "小米"], change=CH("works_at", "百度", "小米", subject="女朋友"))
C("zc19", "change", "我从星图项目调去做天枢了。", [R(U, "works_on", "天枢")],
  np=["星图项目", "天枢"], change=CH("works_on", "星图项目", "天枢"))
C("zc20", "change", "btw 我现在在得物了。", [R(U, "works_at", "得物")], np=["得物"],
  change=CH("works_at", None, "得物"))
C("zc21", "change", "我没在用 Docker Desktop 了，换成了 OrbStack。", [R(U, "uses", "OrbStack")],
  np=["Docker Desktop", "OrbStack"], change=CH("uses", "Docker Desktop", "OrbStack"))
C("zc22", "change", "我现在向周敏汇报了。", [R(U, "reports_to", "周敏")], persons=["周敏"],
  change=CH("reports_to", None, "周敏"))
C("zc23", "change", "我上周开始负责发版流程。", [R(U, "responsible_for", "发版流程")],
  np=["上周"], change=CH("responsible_for", None, "发版流程"))

# multi_hop
C("zh01", "multi_hop", "刘洋在星图项目做前端开发。",
  [R("刘洋", "works_on", "星图项目"), R("刘洋", "role", "前端开发")], persons=["刘洋"],
  np=["星图项目"])
C("zh02", "multi_hop", "我在天枢项目里负责数据管道。",
  [R(U, "works_on", "天枢项目"), R(U, "responsible_for", "数据管道")], np=["天枢项目"])
C("zh03", "multi_hop", "王芳是蚂蚁的风控专家。",
  [R("王芳", "works_at", "蚂蚁"), R("王芳", "role", "风控专家")], persons=["王芳"], np=["蚂蚁"])
C("zh04", "multi_hop", "我是字节的数据工程师。",
  [R(U, "works_at", "字节"), R(U, "role", "数据工程师")], np=["字节"])
C("zh05", "multi_hop", "老周是我们平台组的组长。",
  [R(U, "member_of", "平台组"), R(U, "colleague", "老周"), R("老周", "role", "组长"),
   R("老周", "responsible_for", "平台组")],
  persons=["老周"])
C("zh06", "multi_hop", "我姐在星展银行做审计。",
  [R("姐", "works_at", "星展银行"), R("姐", "role", "审计")], np=["星展银行"])
C("zh07", "multi_hop", "赵磊在腾讯会议组当产品经理。",
  [R("赵磊", "member_of", "腾讯会议组"), R("赵磊", "role", "产品经理")], persons=["赵磊"],
  np=["腾讯会议组"])
C("zh08", "multi_hop", "我在 B 站做推荐算法工程师。",
  [R(U, "works_at", "B 站"), R(U, "role", "推荐算法工程师")], np=["B 站"])
C("zh09", "multi_hop", "我哥在武汉大学当老师。",
  [R("哥", "works_at", "武汉大学"), R("哥", "role", "老师")], np=["武汉大学"])
C("zh10", "multi_hop", "我在金山办公做 WPS 的开发。",
  [R(U, "works_at", "金山办公"), R(U, "works_on", "WPS")], np=["金山办公", "WPS"])
C("zh11", "multi_hop", "我在高德地图做导航算法。",
  [R(U, "works_at", "高德地图"), R(U, "role", "导航算法")], np=["高德地图"])
C("zh12", "multi_hop", "我老婆林晓在招行做理财经理。",
  [R(U, "partner", "林晓"), R("林晓", "works_at", "招行"), R("林晓", "role", "理财经理")],
  persons=["林晓"], np=["招行"])

# third_person
C("zt01", "third_person", "陈静住在广州。", [R("陈静", "lives_in", "广州")], persons=["陈静"],
  np=["广州"])
C("zt02", "third_person", "李娜负责移动端发版。", [R("李娜", "responsible_for", "移动端发版")],
  persons=["李娜"])
C("zt03", "third_person", "周涛向张敏汇报。", [R("周涛", "reports_to", "张敏")],
  persons=["周涛", "张敏"])
C("zt04", "third_person", "黄磊喜欢打网球。", [R("黄磊", "likes", "网球")], persons=["黄磊"])
C("zt05", "third_person", "马丽对猫毛过敏。", [R("马丽", "allergic_to", "猫毛")], persons=["马丽"])
C("zt06", "third_person", "我朋友阿杰养了一只柯基，叫可乐。",
  [R(U, "friend", "阿杰"), R("阿杰", "pet", "可乐", species="柯基")], persons=["阿杰"],
  np=["可乐", "柯基"])
C("zt07", "third_person", "我同事小王在用 Arch Linux。",
  [R(U, "colleague", "小王"), R("小王", "uses", "Arch Linux")], persons=["小王"],
  np=["Arch Linux"])
C("zt08", "third_person", "林涛一家住在苏州。", [R("林涛", "lives_in", "苏州")], persons=["林涛"],
  np=["苏州"])
C("zt09", "third_person", "郑爽的生日是 9 月 2 号。", [R("郑爽", "birthday", "9 月 2 号")],
  persons=["郑爽"])
C("zt10", "third_person", "何伟在复旦读博。", [R("何伟", "studies_at", "复旦")], persons=["何伟"],
  np=["复旦"])
C("zt11", "third_person", "小李是我们组新来的实习生。",
  [R(U, "colleague", "小李"), R("小李", "role", "实习生")], persons=["小李"])
C("zt12", "third_person", "马可在米兰长大。", [R("马可", "hometown", "米兰")], persons=["马可"],
  np=["米兰"])
C("zt13", "third_person", "常浩是我们公司的法务。",
  [R(U, "colleague", "常浩"), R("常浩", "role", "法务")], persons=["常浩"])
C("zt14", "third_person", "安娜和她先生住在青岛。", [R("安娜", "lives_in", "青岛")],
  persons=["安娜"], np=["青岛"])

# non_fact
C("zf01", "non_fact", "如果我搬到深圳，通勤会不会更久？", np=["深圳"])
C("zf02", "non_fact", "下一步我会运行测试，看看有没有报错。")
C("zf03", "non_fact", "超时统一用 5 秒。", np=["5 秒"])
C("zf04", "non_fact", "我妈觉得我应该考公务员。")
C("zf05", "non_fact", "我们周三下午三点开会讨论排期。", np=["周三"])
C("zf06", "non_fact", "你能帮我看看这个报错吗？")
C("zf07", "non_fact", "我在想要不要搬去成都。", np=["成都"])
C("zf08", "non_fact", "git push origin main 失败了，提示没有权限。", np=["git push"])
C("zf09", "non_fact", "明天记得提醒我交周报。", np=["明天", "周报"])
C("zf10", "non_fact", "[ERROR] 2026-11-30 14:02:11 连接 redis 超时，重试 3 次后放弃。",
  np=["redis"])
C("zf11", "non_fact", "我打算明年去日本读书。", np=["日本"])
C("zf12", "non_fact", "张伟说北京的房租太贵了。", persons=["张伟"], np=["北京"])
C("zf13", "non_fact", "如果用 Kafka 的话，运维成本会高很多。", np=["Kafka"])
C("zf14", "non_fact", "先把数据库连接池调到 20，再跑一次压测。")
C("zf15", "non_fact", "这周五之前把方案发给我。", np=["周五", "方案"])
C("zf16", "non_fact", "我之前问过你 Rust 的问题吗？", np=["Rust"])
C("zf17", "non_fact", "好的，配置文件我已经改好了，接下来我会重启服务。")
C("zf18", "non_fact", "王者荣耀又更新了，这次改了好多英雄。", np=["王者荣耀"])
C("zf19", "non_fact", "马上帮我查一下明天去南京的高铁票。", np=["马上", "明天", "南京", "高铁"])
C("zf20", "non_fact", "李宁的新款跑鞋在打折。", np=["李宁"])
C("zf21", "non_fact", "你觉得我该选 PostgreSQL 还是 MySQL？", np=["PostgreSQL", "MySQL"])
C("zf22", "non_fact", "日志里 user_id=1024 的请求全都返回 502。", np=["user_id=1024"])
C("zf23", "non_fact", "周一到周五每天早上九点站会。", np=["周一", "周五"])
C("zf24", "non_fact", "许多同事都在用 Mac。", np=["许多", "Mac"])
C("zf25", "non_fact", "要是我当初去了腾讯就好了。", np=["腾讯"])
C("zf26", "non_fact", "任何时候都别在主分支上直接改代码。", np=["任何"])
C("zf27", "non_fact", "我刚运行了 npm install，依赖装好了。", np=["npm install"])
C("zf28", "non_fact", "白天太忙了，晚上再说吧。", np=["白天"])
C("zf29", "non_fact", "我爸问我过年回不回家。")
C("zf30", "non_fact", "高兴得太早了，测试又挂了。", np=["高兴"])

# project_fact
C("zd01", "project_fact", "我们决定用 Kafka 做事件总线。",
  [R("project", "uses", "Kafka", purpose="事件总线")], np=["Kafka"])
C("zd02", "project_fact", "项目统一用 pnpm 管理依赖。",
  [R("project", "uses", "pnpm", purpose="管理依赖")])
C("zd03", "project_fact", "支付组的服务都跑在 K8s 上。", [R("支付组", "uses", "K8s")], np=["K8s"])
C("zd04", "project_fact", "前端组决定统一用 Tailwind。", [R("前端组", "uses", "Tailwind")],
  np=["Tailwind"])
C("zd05", "project_fact", "我们的 CI 用的是 GitLab。", [R("project", "uses", "GitLab", purpose="CI")],
  np=["GitLab"])
C("zd06", "project_fact", "后端统一用 Go 1.22。", [R("project", "uses", "Go", purpose="后端")],
  np=["Go"])

# ---------------------------------------------------------------- English
# single
C("es01", "single", "I live in Austin.", [R(U, "lives_in", "Austin")], np=["Austin"])
C("es02", "single", "I work at Stripe.", [R(U, "works_at", "Stripe")], np=["Stripe"])
C("es03", "single", "I'm a data engineer.", [R(U, "role", "data engineer")])
C("es04", "single", "My cat's name is Pixel.", [R(U, "pet", "Pixel", species="cat")], np=["Pixel"])
C("es05", "single", "I'm allergic to shellfish.", [R(U, "allergic_to", "shellfish")])
C("es06", "single", "I was born in Chengdu.", [R(U, "born_in", "Chengdu")], np=["Chengdu"])
C("es07", "single", "My birthday is March 3rd.", [R(U, "birthday", "March 3rd")], np=["March"])
C("es08", "single", "I'm doing my master's at Georgia Tech.", [R(U, "studies_at", "Georgia Tech")],
  np=["Georgia Tech"])
C("es09", "single", "I use Neovim for pretty much everything.", [R(U, "uses", "Neovim")],
  np=["Neovim"])
C("es10", "single", "I love hiking.", [R(U, "likes", "hiking")])
C("es11", "single", "I drive a Ford Ranger.", [R(U, "owns", "Ford Ranger")], np=["Ford Ranger"])
C("es12", "single", "My manager is Priya.", [R(U, "reports_to", "Priya")], persons=["Priya"])
C("es13", "single", "My wife's name is Hannah.", [R(U, "partner", "Hannah")], persons=["Hannah"])
C("es14", "single", "I write most of my analysis code in Julia.",
  [R(U, "uses", "Julia", purpose="analysis code")], np=["Julia"])
C("es15", "single", "We have a golden retriever named Biscuit.",
  [R(U, "pet", "Biscuit", species="golden retriever")], np=["Biscuit"])
C("es16", "single", "I'm 34.", [R(U, "age", "34")])
C("es17", "single", "I grew up in Ohio.", [R(U, "hometown", "Ohio")], np=["Ohio"])
C("es18", "single", "I'm learning Korean.", [R(U, "learning", "Korean")])
C("es19", "single", "I mostly use Claude for code review.",
  [R(U, "uses", "Claude", purpose="code review")], np=["Claude"])
C("es20", "single", "I'm on the payments team.", [R(U, "member_of", "payments team")])
C("es21", "single", "I use Jenkins for my nightly builds.",
  [R(U, "uses", "Jenkins", purpose="nightly builds")], np=["Jenkins"])
C("es22", "single", "I build my blog with Hugo.", [R(U, "uses", "Hugo", purpose="blog")],
  np=["Hugo"])
C("es23", "single", "I live in Victoria, BC.", [R(U, "lives_in", "Victoria")], np=["Victoria"])
C("es24", "single", "I'm based out of Jordan.", [R(U, "lives_in", "Jordan")], np=["Jordan"])
C("es25", "single", "I work at Morgan Stanley.", [R(U, "works_at", "Morgan Stanley")],
  np=["Morgan Stanley"])
C("es26", "single", "I ask Alexa to play podcasts every morning.",
  [R(U, "uses", "Alexa", purpose="play podcasts")], np=["Alexa"])
C("es27", "single", "I've had my Tesla for three years.", [R(U, "owns", "Tesla")], np=["Tesla"])
C("es28", "single", "I work at Dell.", [R(U, "works_at", "Dell")], np=["Dell"])
C("es29", "single", "I'm a huge Django fan.", [R(U, "likes", "Django")], np=["Django"])
C("es30", "single", "wife's a graphic designer btw.", [R("wife", "role", "graphic designer")])
C("es31", "single", "I'm vegan.", [R(U, "diet", "vegan")])
C("es32", "single", "I did my undergrad at Purdue.", [R(U, "graduated_from", "Purdue")],
  np=["Purdue"])

# multi_clause
C("em01", "multi_clause", "I live in Denver and work at Globex.",
  [R(U, "lives_in", "Denver"), R(U, "works_at", "Globex")], np=["Denver", "Globex"])
C("em02", "multi_clause", "I'm a backend dev at Shopify, mostly writing Ruby.",
  [R(U, "works_at", "Shopify"), R(U, "role", "backend dev"), R(U, "uses", "Ruby")],
  np=["Shopify", "Ruby"])
C("em03", "multi_clause", "Maria heads the platform team and reports to Tom.",
  [R("Maria", "responsible_for", "platform team"), R("Maria", "reports_to", "Tom")],
  persons=["Maria", "Tom"])
C("em04", "multi_clause", "I like coffee but hate green tea.",
  [R(U, "likes", "coffee"), R(U, "dislikes", "green tea")])
C("em05", "multi_clause", "My husband Dev is a nurse and works nights at St. Mary's.",
  [R(U, "partner", "Dev"), R("Dev", "role", "nurse"), R("Dev", "works_at", "St. Mary's")],
  persons=["Dev"], np=["St. Mary's"])
C("em06", "multi_clause", "I'm at Acme, on the search team, and my manager is Lena.",
  [R(U, "works_at", "Acme"), R(U, "member_of", "search team"), R(U, "reports_to", "Lena")],
  persons=["Lena"], np=["Acme"])
C("em07", "multi_clause", "My daughter Zoe is seven and she's obsessed with dinosaurs.",
  [R(U, "family", "Zoe", relation_kind="daughter"), R("Zoe", "age", "seven"),
   R("Zoe", "likes", "dinosaurs")], persons=["Zoe"])
C("em08", "multi_clause", "I live in Seattle but grew up in Taipei.",
  [R(U, "lives_in", "Seattle"), R(U, "hometown", "Taipei")], np=["Seattle", "Taipei"])
C("em09", "multi_clause", "I use ruff for formatting and mypy for type checks.",
  [R(U, "uses", "ruff", purpose="formatting"), R(U, "uses", "mypy", purpose="type checks")])
C("em10", "multi_clause", "My sister Amy lives in Toronto and works at RBC.",
  [R(U, "family", "Amy", relation_kind="sister"), R("Amy", "lives_in", "Toronto"),
   R("Amy", "works_at", "RBC")], persons=["Amy"], np=["Toronto", "RBC"])
C("em11", "multi_clause", "I'm vegetarian, and I'm allergic to peanuts.",
  [R(U, "diet", "vegetarian"), R(U, "allergic_to", "peanuts")])
C("em12", "multi_clause", "I work on the billing service, and Raj handles invoicing.",
  [R(U, "works_on", "billing service"), R("Raj", "responsible_for", "invoicing")],
  persons=["Raj"])
C("em13", "multi_clause", "I'm studying at UCL and working part-time at a bookshop.",
  [R(U, "studies_at", "UCL")], np=["UCL"])
C("em14", "multi_clause", "We live in Brooklyn with our two cats, Miso and Tofu.",
  [R(U, "lives_in", "Brooklyn"), R(U, "pet", "Miso", species="cat"),
   R(U, "pet", "Tofu", species="cat")], np=["Brooklyn", "Miso", "Tofu"])
C("em15", "multi_clause", "Ben is my cofounder; he does all the frontend.",
  [R(U, "colleague", "Ben"), R("Ben", "responsible_for", "frontend")], persons=["Ben"])
C("em16", "multi_clause", "I'm on the data platform team at Wayfair and mostly use Spark and Airflow.",
  [R(U, "member_of", "data platform team"), R(U, "works_at", "Wayfair"), R(U, "uses", "Spark"),
   R(U, "uses", "Airflow")], np=["Wayfair", "Spark", "Airflow"])
C("em17", "multi_clause", "I live in Chicago; my parents are in Phoenix.",
  [R(U, "lives_in", "Chicago"), R("parents", "lives_in", "Phoenix")], np=["Chicago", "Phoenix"])
C("em18", "multi_clause", "Jenny's the designer on our team and she sits right next to me.",
  [R(U, "colleague", "Jenny"), R("Jenny", "role", "designer")], persons=["Jenny"])
C("em19", "multi_clause", "I'm into bouldering and I play a lot of chess online.",
  [R(U, "likes", "bouldering"), R(U, "likes", "chess")])
C("em20", "multi_clause", "My dad's an electrician and my mom is a piano teacher.",
  [R("dad", "role", "electrician"), R("mom", "role", "piano teacher")])
C("em21", "multi_clause", "I use Obsidian for notes and Todoist for tasks.",
  [R(U, "uses", "Obsidian", purpose="notes"), R(U, "uses", "Todoist", purpose="tasks")],
  np=["Obsidian", "Todoist"])
C("em22", "multi_clause", "I'm based in Berlin and work for SAP.",
  [R(U, "lives_in", "Berlin"), R(U, "works_at", "SAP")], np=["Berlin", "SAP"])
C("em23", "multi_clause", "Kevin is on my team, and he's allergic to gluten.",
  [R(U, "colleague", "Kevin"), R("Kevin", "allergic_to", "gluten")], persons=["Kevin"])
C("em24", "multi_clause", "I like jazz, especially Coltrane.",
  [R(U, "likes", "jazz"), R(U, "likes", "Coltrane")], persons=["Coltrane"])
C("em25", "multi_clause", "I'm a PhD student at ETH and my advisor is Prof. Keller.",
  [R(U, "studies_at", "ETH"), R(U, "advisor", "Keller")], persons=["Keller"], np=["ETH"])
C("em26", "multi_clause", "My brother Mike works at Boeing and lives in Everett.",
  [R(U, "family", "Mike", relation_kind="brother"), R("Mike", "works_at", "Boeing"),
   R("Mike", "lives_in", "Everett")], persons=["Mike"], np=["Boeing", "Everett"])
C("em27", "multi_clause", "I hate Jira but we have to use it.",
  [R(U, "dislikes", "Jira"), R("project", "uses", "Jira")], np=["Jira"])
C("em28", "multi_clause", "I speak Mandarin at home and English at work.",
  [R(U, "speaks", "Mandarin"), R(U, "speaks", "English")])
C("em29", "multi_clause", "I work at Atlassian, I'm on the Confluence team.",
  [R(U, "works_at", "Atlassian"), R(U, "member_of", "Confluence team")],
  np=["Atlassian", "Confluence"])
C("em30", "multi_clause", "My girlfriend Lily is a vet, she works at a clinic in Oakland.",
  [R(U, "partner", "Lily"), R("Lily", "role", "vet"), R("Lily", "works_in", "Oakland")],
  persons=["Lily"], np=["Oakland"])
C("em31", "multi_clause", "I live in Austin and my office is in Round Rock.",
  [R(U, "lives_in", "Austin"), R(U, "works_in", "Round Rock")], np=["Austin", "Round Rock"])
C("em32", "multi_clause", "Omar's my best friend, he lives in Cairo.",
  [R(U, "friend", "Omar"), R("Omar", "lives_in", "Cairo")], persons=["Omar"], np=["Cairo"])

# negated
C("en01", "negated", "I really don't like cold brew.", [R(U, "dislikes", "cold brew")])
C("en02", "negated", "I no longer use vim.", change=CH("uses", "vim", None))
C("en03", "negated", "I don't work at Initech anymore.", np=["Initech"],
  change=CH("works_at", "Initech", None))
C("en04", "negated", "I'm not a manager, just a senior engineer.",
  [R(U, "role", "senior engineer")])
C("en05", "negated", "No, I don't live in Boston.", np=["Boston"])
C("en06", "negated", "I'm not allergic to cats, it's dogs.", [R(U, "allergic_to", "dogs")])
C("en07", "negated", "Tom isn't my manager anymore.", persons=["Tom"],
  change=CH("reports_to", "Tom", None))
C("en08", "negated", "I never use Windows at home.", np=["Windows"])
C("en09", "negated", "I don't have any pets.")
C("en10", "negated", "I stopped using Notion a while ago.", np=["Notion"],
  change=CH("uses", "Notion", None))
C("en11", "negated", "I'm not on the payments team anymore.",
  change=CH("member_of", "payments team", None))
C("en12", "negated", "I don't speak German, only English.", [R(U, "speaks", "English")])
C("en13", "negated", "Alice doesn't work with us anymore.", persons=["Alice"],
  change=CH("colleague", "Alice", None))
C("en14", "negated", "I don't use Copilot anymore, it kept suggesting garbage.", np=["Copilot"],
  change=CH("uses", "Copilot", None))
C("en15", "negated", "I wasn't born in Canada, I was born in Lagos.", [R(U, "born_in", "Lagos")],
  np=["Canada", "Lagos"])
C("en16", "negated", "I've never been to Japan.", np=["Japan"])
C("en17", "negated", "I'm not working on Atlas anymore.", np=["Atlas"],
  change=CH("works_on", "Atlas", None))
C("en18", "negated", "My mom isn't a teacher, she's a nurse.", [R("mom", "role", "nurse")])
C("en19", "negated", "I can't stand cilantro.", [R(U, "dislikes", "cilantro")])
C("en20", "negated", "I don't drink alcohol at all.")
C("en21", "negated", "I used to live in Shanghai.", np=["Shanghai"],
  change=CH("lives_in", "Shanghai", None))
C("en22", "negated", "I don't hate Java, I just prefer Kotlin.", [R(U, "likes", "Kotlin")],
  np=["Java", "Kotlin"])
C("en23", "negated", "Dana isn't my sister, she's my cousin.",
  [R(U, "family", "Dana", relation_kind="cousin")], persons=["Dana"])

# change
C("ec01", "change", "I moved from Boston to Denver last spring.", [R(U, "lives_in", "Denver")],
  np=["Boston", "Denver"], change=CH("lives_in", "Boston", "Denver"))
C("ec02", "change", "btw I'm at Globex now.", [R(U, "works_at", "Globex")], np=["Globex"],
  change=CH("works_at", None, "Globex"))
C("ec03", "change", "I started at Acme last month as a data engineer.",
  [R(U, "works_at", "Acme"), R(U, "role", "data engineer")], np=["Acme"],
  change=CH("works_at", None, "Acme"))
C("ec04", "change", "I switched from VS Code to Zed.", [R(U, "uses", "Zed")], np=["VS Code", "Zed"],
  change=CH("uses", "VS Code", "Zed"))
C("ec05", "change", "I joined the infra team in September.", [R(U, "member_of", "infra team")],
  np=["September"], change=CH("member_of", None, "infra team"))
C("ec06", "change", "I left Google in March and joined a startup called Lumen.",
  [R(U, "works_at", "Lumen")], np=["Google", "March", "Lumen"],
  change=CH("works_at", "Google", "Lumen"))
C("ec07", "change", "We moved to Portland over the summer.", [R(U, "lives_in", "Portland")],
  np=["Portland"], change=CH("lives_in", None, "Portland"))
C("ec08", "change", "I got promoted to staff engineer.", [R(U, "role", "staff engineer")],
  change=CH("role", None, "staff engineer"))
C("ec09", "change", "My new manager is Priya.", [R(U, "reports_to", "Priya")], persons=["Priya"],
  change=CH("reports_to", None, "Priya"))
C("ec10", "change", "Alex moved to the Tokyo office.", [R("Alex", "works_in", "Tokyo")],
  persons=["Alex"], np=["Tokyo"], change=CH("works_in", None, "Tokyo", subject="Alex"))
C("ec11", "change", "We switched our CI from Jenkins to GitHub Actions.",
  [R("project", "uses", "GitHub Actions", purpose="CI")], np=["Jenkins", "GitHub Actions"],
  change=CH("uses", "Jenkins", "GitHub Actions", subject="project"))
C("ec12", "change", "I transferred to the Seoul office last year.", [R(U, "works_in", "Seoul")],
  np=["Seoul"], change=CH("works_in", None, "Seoul"))
C("ec13", "change", "Sarah just joined Microsoft as a PM.",
  [R("Sarah", "works_at", "Microsoft"), R("Sarah", "role", "PM")], persons=["Sarah"],
  np=["Microsoft"], change=CH("works_at", None, "Microsoft", subject="Sarah"))
C("ec14", "change", "I'm now reporting to Daniel instead of Chris.", [R(U, "reports_to", "Daniel")],
  persons=["Daniel", "Chris"], change=CH("reports_to", "Chris", "Daniel"))
C("ec15", "change", "I switched teams, I'm on growth now.", [R(U, "member_of", "growth")],
  change=CH("member_of", None, "growth"))
C("ec16", "change", "I moved back to Melbourne to be closer to family.",
  [R(U, "lives_in", "Melbourne")], np=["Melbourne"], change=CH("lives_in", None, "Melbourne"))
C("ec17", "change", "My wife just started a new job at Pfizer.", [R("wife", "works_at", "Pfizer")],
  np=["Pfizer"], change=CH("works_at", None, "Pfizer", subject="wife"))
C("ec18", "change", "I swapped my old Pixel for an iPhone 15.", [R(U, "owns", "iPhone 15")],
  np=["Pixel"], change=CH("owns", "Pixel", "iPhone 15"))
C("ec19", "change", "I moved from the payments team to the fraud team.",
  [R(U, "member_of", "fraud team")], change=CH("member_of", "payments team", "fraud team"))
C("ec20", "change", "I went from Java to Kotlin at work this year.", [R(U, "uses", "Kotlin")],
  np=["Java", "Kotlin"], change=CH("uses", "Java", "Kotlin"))
C("ec21", "change", "Just relocated to Austin for the new job.", [R(U, "lives_in", "Austin")],
  np=["Austin"], change=CH("lives_in", None, "Austin"))
C("ec22", "change", "I'm officially a Googler now, started Monday.", [R(U, "works_at", "Google")],
  np=["Googler", "Monday"], change=CH("works_at", None, "Google"))
C("ec23", "change", "I took over the release process from Marco last week.",
  [R(U, "responsible_for", "release process")], persons=["Marco"],
  change=CH("responsible_for", None, "release process"))

# multi_hop
C("eh01", "multi_hop", "Liu Yang does frontend on the Orion project.",
  [R("Liu Yang", "works_on", "Orion project"), R("Liu Yang", "role", "frontend")],
  persons=["Liu Yang"], np=["Orion"])
C("eh02", "multi_hop", "I'm a senior SRE at Datadog.",
  [R(U, "works_at", "Datadog"), R(U, "role", "senior SRE")], np=["Datadog"])
C("eh03", "multi_hop", "Priya is an ML engineer at Netflix.",
  [R("Priya", "works_at", "Netflix"), R("Priya", "role", "ML engineer")], persons=["Priya"],
  np=["Netflix"])
C("eh04", "multi_hop", "My sister's a pediatrician at Boston Children's.",
  [R("sister", "role", "pediatrician"), R("sister", "works_at", "Boston Children's")],
  np=["Boston Children's"])
C("eh05", "multi_hop", "I own the ingestion pipeline on Atlas.",
  [R(U, "responsible_for", "ingestion pipeline"), R(U, "works_on", "Atlas")], np=["Atlas"])
C("eh06", "multi_hop", "My partner Sam is a chemistry teacher in Leeds.",
  [R(U, "partner", "Sam"), R("Sam", "role", "chemistry teacher"), R("Sam", "works_in", "Leeds")],
  persons=["Sam"], np=["Leeds"])
C("eh07", "multi_hop", "Omar leads the mobile team at Spotify.",
  [R("Omar", "responsible_for", "mobile team"), R("Omar", "works_at", "Spotify")],
  persons=["Omar"], np=["Spotify"])
C("eh08", "multi_hop", "I'm Nora, a PM at Figma.",
  [R(U, "name", "Nora"), R(U, "role", "PM"), R(U, "works_at", "Figma")], persons=["Nora"],
  np=["Figma"])
C("eh09", "multi_hop", "I work at Deloitte in Sydney.",
  [R(U, "works_at", "Deloitte"), R(U, "works_in", "Sydney")], np=["Deloitte", "Sydney"])
C("eh10", "multi_hop", "Chen Wei is a product designer at Canva.",
  [R("Chen Wei", "works_at", "Canva"), R("Chen Wei", "role", "product designer")],
  persons=["Chen Wei"], np=["Canva"])
C("eh11", "multi_hop", "I'm the tech lead for the checkout team at Etsy.",
  [R(U, "role", "tech lead"), R(U, "responsible_for", "checkout team"), R(U, "works_at", "Etsy")],
  np=["Etsy"])
C("eh12", "multi_hop", "Kenji's a sous chef at a ramen place in Osaka.",
  [R("Kenji", "role", "sous chef"), R("Kenji", "works_in", "Osaka")], persons=["Kenji"],
  np=["Osaka"])

# third_person
C("et01", "third_person", "Alice Chen lives in Vancouver.", [R("Alice Chen", "lives_in", "Vancouver")],
  persons=["Alice Chen"], np=["Vancouver"])
C("et02", "third_person", "Marcus reports to Elena.", [R("Marcus", "reports_to", "Elena")],
  persons=["Marcus", "Elena"])
C("et03", "third_person", "Hiro speaks Japanese and French.",
  [R("Hiro", "speaks", "Japanese"), R("Hiro", "speaks", "French")], persons=["Hiro"])
C("et04", "third_person", "Dana has a vintage Vespa.", [R("Dana", "owns", "Vespa")],
  persons=["Dana"], np=["Vespa"])
C("et05", "third_person", "Grace is allergic to bees.", [R("Grace", "allergic_to", "bees")],
  persons=["Grace"])
C("et06", "third_person", "Leo's birthday is July 9.", [R("Leo", "birthday", "July 9")],
  persons=["Leo"], np=["July"])
C("et07", "third_person", "My coworker Ravi uses Emacs for everything.",
  [R(U, "colleague", "Ravi"), R("Ravi", "uses", "Emacs")], persons=["Ravi"], np=["Emacs"])
C("et08", "third_person", "Jordan studies at McGill.", [R("Jordan", "studies_at", "McGill")],
  persons=["Jordan"], np=["McGill"])
C("et09", "third_person", "Mia has a parrot called Kiwi.",
  [R("Mia", "pet", "Kiwi", species="parrot")], persons=["Mia"], np=["Kiwi"])
C("et10", "third_person", "Fatima grew up in Casablanca.", [R("Fatima", "hometown", "Casablanca")],
  persons=["Fatima"], np=["Casablanca"])
C("et11", "third_person", "Tom's girlfriend is Julia.", [R("Tom", "partner", "Julia")],
  persons=["Tom", "Julia"])
C("et12", "third_person", "Nina works on the Helix project.",
  [R("Nina", "works_on", "Helix project")], persons=["Nina"], np=["Helix"])
C("et13", "third_person", "Will handles the on-call rotation this quarter.",
  [R("Will", "responsible_for", "on-call rotation")], persons=["Will"])
C("et14", "third_person", "Mark loves sailing.", [R("Mark", "likes", "sailing")], persons=["Mark"])
C("et15", "third_person", "Georgia works at a startup in Atlanta.",
  [R("Georgia", "works_in", "Atlanta")], persons=["Georgia"], np=["Atlanta"])

# non_fact
C("ef01", "non_fact", "If I moved to Austin, would my taxes go down?", np=["Austin"])
C("ef02", "non_fact", "Next I'll run the test suite and check the coverage report.", np=["Next"])
C("ef03", "non_fact", "Let me open config.py and look at the port setting.", np=["Let"])
C("ef04", "non_fact", "Timeouts are 5 seconds across the board.", np=["Timeouts"])
C("ef05", "non_fact", "My mom thinks I should move back home.")
C("ef06", "non_fact", "What's the difference between Kafka and RabbitMQ?", np=["Kafka", "RabbitMQ"])
C("ef07", "non_fact", "Can you remind me on Monday to renew my passport?", np=["Monday"])
C("ef08", "non_fact", "Add a retry to the upload step. Move the constants to config.py.",
  np=["Add", "Move"])
C("ef09", "non_fact", "ERROR 2026-11-30T14:02:11Z worker-3: connection to redis://cache:6379 refused",
  np=["ERROR", "worker-3"])
C("ef10", "non_fact", "git push origin main was rejected, it says I need to pull first.",
  np=["git push"])
C("ef11", "non_fact", "I'm thinking about moving to Lisbon next year.", np=["Lisbon"])
C("ef12", "non_fact", "Sue said the Berlin office is nicer than ours.", persons=["Sue"],
  np=["Berlin"])
C("ef13", "non_fact", "Did I tell you where I work?")
C("ef14", "non_fact", "Will the migration lock the users table?", np=["Will"])
C("ef15", "non_fact", "Bash: pytest -x tests/test_api.py", np=["Bash"])
C("ef16", "non_fact", "Edit the README so the install steps use uv.", np=["Edit", "README"])
C("ef17", "non_fact", "Mark the flaky test as xfail for now.", np=["Mark"])
C("ef18", "non_fact", "I'd love to work at Google someday.", np=["Google"])
C("ef19", "non_fact", "The build's green now, I'll push the fix.")
C("ef20", "non_fact", "Grant access to the staging bucket for the new intern.", np=["Grant"])
C("ef21", "non_fact", "Ping me before May so we can plan the offsite.", np=["Ping", "May"])
C("ef22", "non_fact", "Chase Bank flagged another charge this morning.", np=["Chase Bank"])
C("ef23", "non_fact", "Amazon's delivery is late again.", np=["Amazon"])
C("ef24", "non_fact", "Should we use Postgres for the job queue?", np=["Postgres"])
C("ef25", "non_fact", "Is Paris or Florence better for a week in April?",
  np=["Paris", "Florence", "April"])
C("ef26", "non_fact", "I'm moving to Sydney in May.", np=["Sydney", "May"])
C("ef27", "non_fact", "Sorry, I was wrong earlier: the bug is in the parser, not the lexer.",
  np=["Sorry"])
C("ef28", "non_fact", "Read tests/test_sync.py and tell me why it fails.", np=["Read"])
C("ef29", "non_fact", "Maybe I should learn Rust.", np=["Maybe", "Rust"])
C("ef30", "non_fact", "My boss asked whether I could cover Friday's on-call.", np=["Friday"])
C("ef31", "non_fact", "Run `docker compose up -d` and then check the logs.", np=["Run"])

# project_fact
C("ed01", "project_fact", "We decided to use Kafka as the event bus.",
  [R("project", "uses", "Kafka", purpose="event bus")], np=["Kafka"])
C("ed02", "project_fact", "The repo uses pnpm workspaces.", [R("project", "uses", "pnpm")])
C("ed03", "project_fact", "The payments team runs everything on Kubernetes.",
  [R("payments team", "uses", "Kubernetes")], np=["Kubernetes"])
C("ed04", "project_fact", "Our CI runs on GitHub Actions.",
  [R("project", "uses", "GitHub Actions", purpose="CI")], np=["GitHub Actions"])
C("ed05", "project_fact", "The frontend team agreed to standardise on Tailwind.",
  [R("frontend team", "uses", "Tailwind")], np=["Tailwind"])
C("ed06", "project_fact", "We're going with SQLite for the local cache.",
  [R("project", "uses", "SQLite", purpose="local cache")], np=["SQLite"])


# ---------------------------------------------------------------- validation
CJK = re.compile(r"[\u4e00-\u9fff]")


def subject_ok(subject: str, case: dict) -> bool:
    if subject in ("user", "project") or subject in case["persons"] or subject in KIN_SUBJECTS:
        return subject in ("user", "project") or subject in case["text"]
    is_team = subject.endswith(("组", "team"))
    return is_team and subject in case["text"]


def case_problems(case: dict) -> list[str]:
    """What is wrong with one case (empty when it is well formed)."""
    problems = []
    text, kind, cid = case["text"], case["kind"], case["id"]
    if KIND_LETTER.get(cid[1]) != kind or not re.fullmatch(r"[ze][smnchtfd]\d\d", cid):
        problems.append(f"id {cid} does not match kind {kind}")
    if (case["lang"] == "zh") != bool(CJK.search(text)):
        problems.append("language does not match the text")
    allowed = set(PREDICATES) | set(DECLARED_PREDICATES)
    for rel in case["relations"]:
        if rel["predicate"] not in allowed:
            problems.append(f"unknown predicate {rel['predicate']}")
        if rel["object"] not in text:
            problems.append(f"object {rel['object']!r} is not a span of the text")
        if not subject_ok(rel["subject"], case):
            problems.append(f"subject {rel['subject']!r} is neither user/project, a named "
                            "person, a kin word nor a named team")
        if rel["predicate"] in PERSON_OBJECT_PREDICATES and rel["object"] not in case["persons"]:
            problems.append(f"{rel['predicate']} object {rel['object']!r} is not in persons")
        if (rel["predicate"] == "family") != ("relation_kind" in rel):
            problems.append("relation_kind goes with family and only with it")
        if rel["subject"] == "user" and kind == "project_fact":
            problems.append("a project_fact has no user relation")
    triples = [(r["subject"], r["predicate"], r["object"]) for r in case["relations"]]
    if len(set(triples)) != len(triples):
        problems.append("a relation is listed twice")
    for name in case["persons"] + case["not_persons"]:
        if name not in text:
            problems.append(f"{name!r} is not in the text")
    if set(case["persons"]) & set(case["not_persons"]):
        problems.append("a word is both a person and not a person")
    problems += change_problems(case, triples)
    return problems


def change_problems(case: dict, triples: list[tuple]) -> list[str]:
    change, kind = case["change"], case["kind"]
    if change is None:
        return ["kind change needs a change"] if kind == "change" else []
    problems = []
    if change["predicate"] not in set(PREDICATES) | set(DECLARED_PREDICATES):
        problems.append(f"unknown change predicate {change['predicate']}")
    if kind not in ("change", "negated"):
        problems.append(f"a {kind} case states no change")
    if kind == "change" and change["new"] is None:
        problems.append("kind change has a new value; a bare cessation is negated")
    if kind == "negated" and change["new"] is not None:
        problems.append("a negated case's change has no new value")
    if change["new"] is not None and (change["subject"], change["predicate"], change["new"]) \
            not in triples:
        problems.append("the change's new value is not among the relations")
    if change["old"] is not None and (change["subject"], change["predicate"], change["old"]) \
            in triples:
        problems.append("the change's old value is still among the relations")
    for value in (change["old"], change["new"]):
        if value is not None and value not in case["text"]:
            problems.append(f"change value {value!r} is not in the text")
    if kind == "non_fact" and case["relations"]:
        problems.append("a non_fact has no relations")
    return problems


def is_tricky(case: dict) -> bool:
    return bool(set(case["not_persons"]) & TRICKY_NOT_PERSONS)


def validate(cases: list[dict]) -> dict:
    """Checks every case and the minimum counts; returns the counts. Exits on a problem."""
    errors = [f"{c['id']}: {p}" for c in cases for p in case_problems(c)]
    for c in cases:
        if c["kind"] == "non_fact" and (c["relations"] or c["change"]):
            errors.append(f"{c['id']}: a non_fact has no relations and no change")
    ids = [c["id"] for c in cases]
    errors += [f"duplicate id {i}" for i, n in collections.Counter(ids).items() if n > 1]
    texts = [c["text"] for c in cases]
    errors += [f"duplicate text {t}" for t, n in collections.Counter(texts).items() if n > 1]
    used = {r["predicate"] for c in cases for r in c["relations"]}
    errors += [f"declared predicate {p} is never used" for p in DECLARED_PREDICATES
               if p not in used]
    by_kind = collections.Counter(c["kind"] for c in cases)
    counts = {
        "total": len(cases),
        "multi_clause": by_kind["multi_clause"],
        "negated": by_kind["negated"],
        "change": by_kind["change"],
        "non_fact": by_kind["non_fact"],
        "third_person+multi_hop": by_kind["third_person"] + by_kind["multi_hop"],
        "tricky_not_persons": sum(1 for c in cases if is_tricky(c)),
    }
    named = {w for c in cases for w in c["not_persons"]} | {w for c in cases for w in c["persons"]}
    errors += [f"tricky word {w!r} is in no case" for w in TRICKY_NOT_PERSONS | TRICKY_PERSONS
               if w not in named]
    errors += [f"only {counts[k]} {k} cases, at least {n} wanted" for k, n in MINIMUM.items()
               if counts[k] < n]
    if errors:
        sys.exit("\n".join(errors))
    return counts


def report(cases: list[dict], counts: dict) -> None:
    by_lang_kind = collections.Counter((c["lang"], c["kind"]) for c in cases)
    print(f"{len(cases)} cases:",
          dict(collections.Counter(c["lang"] for c in cases)))
    print(f"{'kind':<14}{'zh':>5}{'en':>5}{'all':>6}")
    for kind in KINDS:
        zh, en = by_lang_kind[("zh", kind)], by_lang_kind[("en", kind)]
        print(f"{kind:<14}{zh:>5}{en:>5}{zh + en:>6}")
    print("minimums:", {k: f"{counts[k]}/{n}" for k, n in MINIMUM.items()})
    predicates = collections.Counter(r["predicate"] for c in cases for r in c["relations"])
    print("relations:", sum(predicates.values()), dict(predicates.most_common()))
    print("cases with a relation about someone other than the user:",
          sum(1 for c in cases if any(r["subject"] != "user" for r in c["relations"])))
    print("cases with a change:", sum(1 for c in cases if c["change"]),
          "(new value null:", sum(1 for c in cases if c["change"] and c["change"]["new"] is None),
          ")")
    print("cases with a person named like a word (the reverse trap):",
          sum(1 for c in cases if set(c["persons"]) & TRICKY_PERSONS),
          " cases with any not_persons:", sum(1 for c in cases if c["not_persons"]))
    print("persons named:", sum(len(c["persons"]) for c in cases),
          " not_persons:", sum(len(c["not_persons"]) for c in cases))


DESCRIPTION = (
    "Held-out set for palace's fact extraction (entities and relations stated in a memory's "
    "text), written BLIND on 2026-12-03 by a helper session that read none of palace's "
    "extraction code or pattern tables (palace/graph/extract.py, palace/graph/supersede.py, "
    "palace/capture/, any word lists in palace/) and never ran palace on these sentences; the "
    "annotations are one careful human's reading, not palace's output. Never tuned on (if it "
    "ever is, split by scripts/_bench_common.half_of on the case id and report both halves). "
    "Short chat-style sentences said to an assistant, about half Chinese and half English. "
    "Predicates: " + ", ".join(PREDICATES) + "; declared additions: "
    + "; ".join(f"{k} ({v})" for k, v in DECLARED_PREDICATES.items())
    + ". Extra relation fields: relation_kind (family), species (pet), purpose (uses, free "
    "text). Kinds: " + ", ".join(KINDS) + " (project_fact added). Conventions: "
    + " ".join(f"({i}) {c}" for i, c in enumerate(CONVENTIONS, 1))
)


if __name__ == "__main__":
    counts = validate(CASES)
    report(CASES, counts)
    data = {"description": DESCRIPTION, "predicates": list(PREDICATES),
            "declared_predicates": DECLARED_PREDICATES, "kinds": list(KINDS),
            "tricky_not_persons": sorted(TRICKY_NOT_PERSONS),
            "tricky_persons": sorted(TRICKY_PERSONS), "cases": CASES}
    out = Path(__file__).with_name("extract_holdout.json")
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print("wrote", out)
