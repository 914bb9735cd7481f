"""How Chinese states a fact: one row per phrasing, tried in order, first match wins.

A row is ``(template, flags)``. The template is matched at the start of a clause's
predicate part: what follows its subject (我, 张伟, 我老婆, 支付组…) once adverbs (平时,
最近, 也, 特别…) are skipped. ``{slot}`` marks the object that fills that slot
(``{lives_in}``: a place, ``{uses}``: a tool…); ``{-slot}`` the value a change leaves
("从{-lives_in}搬到{lives_in}": the old home, now ended). Three slots are resolved by
what their object is: ``{workplace}`` (works_in for a place, member_of for a team,
works_on for a project, else works_at), ``{joined}`` (member_of for a team, else
works_at) and ``{doing}`` (works_on for a project, member_of for a team, else role).
``{for}`` is the purpose of the ``uses`` in the same row, ``{species}`` a pet's kind,
``{kin}`` a kin word (室友, 领导, 表哥) naming the user's relation to the subject.

Flags: ``change`` (the verb states a change: 搬到, 跳槽, 改用), ``now`` (the row only
holds with a 现在/目前 before it, or when negated as ended: "不在阿里了"), ``of_user``
(the fact is the user's relation to the subject: "张伟是我室友"), ``our_team`` (the
subject is the user's colleague, and a leader of the team named is responsible for it),
``hometown`` (the place is also the subject's hometown: 搬回老家长沙).

To add a phrasing, add a row above the more general ones it would otherwise fall under.
"""

from __future__ import annotations

from palace.text.script import HAN_RANGES

_TOOL = rf"(?:[A-Za-z0-9][A-Za-z0-9_.+#\-]*(?: [A-Za-z0-9][A-Za-z0-9_.+#\-]*)*|[{HAN_RANGES}]{{2,5}}?)"
_LANG = rf"[{HAN_RANGES}]{{1,4}}?(?:话|语|文)"

# object patterns per slot (default: anything up to the clause's end, shortest first)
OBJECTS: dict[str, str] = {
    "uses": _TOOL + r"(?:\s*(?:和|、|与|以及|及)\s*" + _TOOL + r")*",
    "speaks": _LANG + r"(?:\s*(?:和|、|与)\s*" + _LANG + r")*",
    "learning": r"[^，。；！？]{1,10}?(?:\s*(?:和|、)\s*[^，。；！？]{1,10}?)*",
    "member_of": r"[^，。；！？的]{1,12}?(?:团队|小组|组|部门|事业部)",
    "diet": r"(?:素食|纯素|吃素|蛋奶素|生酮)",
    "age": r"[0-9一二三四五六七八九十两]{1,3}",
    "for": rf"(?![不没再也还都就])[{HAN_RANGES}A-Za-z][^，。；！？]{{0,11}}?",
    "name": rf"[{HAN_RANGES}A-Za-z·]{{1,6}}?",
    "pet": rf"[{HAN_RANGES}A-Za-z]{{1,6}}?",
}

ZH_RULES: tuple[tuple[str, str], ...] = (
    # preferences (dislikes before likes: 不喜欢 holds 喜欢)
    (r"(?:一点(?:都|也)?)?不(?:太|怎么|是很)?喜欢{dislikes}", ""),
    (r"(?:很|特别|非常|超级|最)?(?:讨厌|受不了|反感){dislikes}", ""),
    (r"(?:很|特别|非常|超级|最|比较|更)?(?:喜欢|热爱|偏爱|偏好|喜爱|爱){likes}", ""),
    (r"迷上了?{likes}", ""),
    (r"是{likes}(?:迷|粉|粉丝)", ""),
    # the body
    (r"对{allergic_to}(?:也|都|有点|有些)?过敏", ""),
    (r"是{diet}(?:主义者|者)?", ""),
    (r"(?:今年)?{age}岁了?", ""),
    # names and people
    (r"叫{name}", ""),
    (r"(?:的)?名字(?:是|叫){name}", ""),
    (r"是我(?:的)?(?:大学|高中|初中|小学|研究生|读书时的|以前的)?(?:最好的)?{kin}", "of_user"),
    (r"是我们(?:组|团队|公司|部门|项目组)(?:的|新来的|新招的)+{role}", "our_team"),
    (r"是我们{member_of}(?:的|新来的)+{role}", "our_team"),
    (r"(?:的)?(?:新)(?:直属)?(?:领导|老板|上司|leader|经理|主管|组长|老大)(?:是|换成了?){reports_to}", "change"),
    (r"(?:的)?(?:直属)?(?:领导|老板|上司|leader|经理|主管|组长|老大)是{reports_to}", ""),
    (r"(?:跟|向){reports_to}汇报", ""),
    (r"(?:的)?导师是{advisor}", ""),
    # origins
    (r"老家(?:是|在){hometown}(?:的|人)?", ""),
    (r"是{hometown}人", ""),
    (r"在{hometown}长大", ""),
    (r"(?:是)?(?:出生在|出生于|生在){born_in}(?:的)?", ""),
    (r"(?:是)?在{born_in}出生(?:的)?", ""),
    (r"(?:的)?生日是{birthday}", ""),
    # studies (before work: 在浙大读博 is not a workplace)
    (r"在{studies_at}(?:读博士|读博|读研究生|读研|读硕士|读本科|读大学|读高中|读初中|读书|念书|上学|上大学|上小学|读)", ""),
    (r"(?:本科|硕士|研究生|博士|大学)(?:是)?在{graduated_from}(?:读|念|上)的", ""),
    (r"毕业于{graduated_from}", ""),
    (r"(?:是)?{graduated_from}毕业的", ""),
    (r"在学{learning}", ""),
    (r"(?:会说|会讲|能说|说){speaks}", ""),
    (r"会(?:一点|一些|点)?{speaks}", ""),
    # home
    (r"从{-lives_in}搬(?:到|去|来|回)了?{lives_in}", "change"),
    (r"搬回(?:了)?老家{lives_in}", "change hometown"),
    (r"(?:搬到|搬去|搬回|搬进|迁到|搬来)了?{lives_in}", "change"),
    (r"(?:住在|定居在|定居于|生活在|居住在|住){lives_in}", ""),
    (r"家(?:住)?在{lives_in}", ""),
    (r"base(?:在)?\s*{lives_in}", ""),
    # work
    (r"在{works_at}的{member_of}", ""),
    (r"在{workplace}负责{responsible_for}", ""),
    (r"在{workplace}(?:做|干){works_on}的(?:开发|研发|测试|设计|产品)", ""),
    (r"在{workplace}(?:做|当|干|担任){doing}", ""),
    (r"在{workplace}(?:工作|上班|任职|实习|打工|做事)", ""),
    (r"在{works_in}办公", ""),
    (r"公司在{works_in}", ""),
    (r"是{works_at}的{role}", ""),
    (r"从{-workplace}(?:跳槽|跳|换)(?:到|去)了?{workplace}", "change"),
    (r"(?:跳槽到|跳槽去|跳到|跳去|入职|加入|去了)了?{joined}", "change"),
    (r"离开了?{-joined}", ""),
    (r"调(?:到|去)了?{works_in}(?:分公司|办公室|总部|那边|分部)", "change"),
    (r"(?:从{-doing})?调(?:去|到)了?(?:做)?{doing}", "change"),
    (r"换到了?{member_of}", "change"),
    (r"在{workplace}", "now"),
    (r"开始负责{responsible_for}", "change"),
    (r"接手了?{responsible_for}", "change"),
    (r"负责{responsible_for}", ""),
    (r"从{-doing}转(?:到|成|做|去)了?{doing}", "change"),
    (r"是做{doing}的", ""),
    (r"做{doing}的", ""),
    (r"是(?:一名|一个|个|名|一位)?{role}", "job"),
    (r"做{works_on}", "project"),
    # tools
    (r"把(?:默认)?(?:的)?{for}从{-uses}(?:换成|换到|改成|迁到|切到|改为|换为)了?{uses}", "change"),
    (r"从{-uses}(?:换成|换到|改成|迁到|迁移到|切到|转到|改为|换为)了?{uses}", "change"),
    (r"(?:改用|换成|换用|转用|切到|改成)了?\s*{uses}(?:\s*(?:来|去)?{for})?", "change"),
    (r"用的(?:主要|都|一般|基本)?是\s*{uses}", ""),
    (r"(?:在用|使用|采用|选用|用)\s*{uses}(?:\s*(?:来|去)?{for})?", ""),
    (r"{for}用\s*{uses}", ""),
    (r"(?:跑|部署|运行|托管)在\s*{uses}\s*上?", ""),
    # things and pets
    (r"家(?:的|里的|里)?{species}叫{pet}", ""),
    (r"养了?(?:一只|一条|一个|只|条){species}(?:，)?叫{pet}", ""),
    (r"开的是(?:一辆|辆)?{owns}", ""),
    (r"(?:开|有|买了)(?:一辆|一台|辆|台){owns}", ""),
)

# Words that open a clause without being its subject, skipped before the predicate.
ADVERBS = (
    "平时", "平常", "一般", "通常", "经常", "常常", "每天", "主要", "其实", "真的", "也", "还", "都", "就", "才",
    "特别", "非常", "很", "挺", "比较", "一直", "正在", "刚刚", "刚", "已经", "最近", "近来", "上个月", "这个月",
    "上周", "这周", "今年", "去年", "前年", "今天", "昨天", "前几天", "上次", "周末", "工作日", "统一", "决定",
    "一律", "基本", "基本上", "目前", "现在", "如今", "然后", "后来", "之后", "再", "直接", "正式", "终于",
    "又", "btw", "BTW", "顺便说一下", "对了",
)
NOW_CUES = ("现在", "目前", "如今")
PAST_CUES = ("以前", "之前", "原来", "曾经", "过去")
# cessation: "不再用", "已经不在…了", "没在用…了"
CESSATION = (r"不再", r"没再", r"已经不", r"已不", r"没在", r"不")
NEGATION = (r"从来不", r"从不", r"并不", r"并没有", r"没有", r"没", r"不")
# a clause stating the object of the clause before it that was denied: "…，是在天津"
CORRECTION = r"^(?:而)?是(?:在)?(?P<o>[^，。；！？]+?)(?:的)?$"
# the object is named first, the user last: "支付网关现在已经不归我管了", "钉钉不用了"
OBJECT_FIRST: tuple[tuple[str, str], ...] = (
    (r"^{-responsible_for}(?:现在)?(?:已经)?不(?:归|由)我(?:管|负责)了", "user"),
    (r"^{-uses}(?:已经)?(?:不用了|不再用了)", "inherit"),
)
# a sentence whose first words make it no statement of fact
NON_FACT_OPENERS = ("如果", "要是", "假如", "万一", "假设", "下一步", "接下来", "待会", "等会", "记得", "帮我",
                    "请", "麻烦", "先把", "别", "不要", "能不能", "可不可以", "你", "是不是")
NON_FACT_ANYWHERE = ("的话", "要不要", "打算", "计划", "准备", "想要", "在想", "考虑", "应该", "觉得", "认为",
                     "希望", "[ERROR]", "[WARN", "Traceback", "=", "`", "://")
REPORTING = ("说", "问", "觉得", "认为", "告诉", "提醒", "建议", "以为")
PLACE_NOISE = ("脚下", "附近", "一带", "这边", "那边", "周边", "市区", "里", "上")
UNNAMED = ("一家", "一个", "一所", "一间", "某家", "某个", "那家", "这家", "家里", "隔壁")
