"""The word lists text is read with, each declared once.

Lists that share words say so by building on a smaller list (``VAGUE_THINGS``,
``DAY_WORDS``) instead of repeating it.
"""

from __future__ import annotations

# Words that name no particular thing: "something", 事情. Neither a topic of a question
# nor of a period, and the "thing" of "what happened" (EVENT_WORDS).
VAGUE_THINGS = frozenset("thing things something anything everything 事情 事儿".split())
# The days named relative to now: they date a memory, they are not what it is about.
DAY_WORDS = frozenset("今天 昨天 明天 today yesterday tomorrow".split())

# Function words that carry no topic; dropping them keeps indexes small and
# keeps a long question from matching every memory on "the" or "的".
ZH_STOPWORDS = frozenset(
    "的 了 是 在 和 与 及 或 就 都 而 也 还 又 很 吗 吧 呢 啊 呀 哦 嗯 么 着 过 被 把 让 给 对 从 向 "
    "这 那 这个 那个 这些 那些 这样 那样 我 你 他 她 它 我们 你们 他们 她们 咱们 自己 "
    "一个 一些 什么 怎么 怎样 如何 哪 哪个 哪些 为什么 有没有 是不是 之 其 所 以 于 "
    "个 吗 得 地 啦 呗 嘛 么".split()
)
EN_STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto about as
    is are was were be been being am do does did doing done have has had having i me my mine
    myself we us our ours you your yours he him his she her hers it its they them their theirs
    this that these those there here what which who whom whose when where why how all any both
    each few more most other some such no nor not only own same so than too very can will just
    should would could may might must shall s t d ll m re ve y don didn doesn isn aren wasn
    weren hasn haven hadn won wouldn shouldn couldn mustn up down out over under again further
    once also get got let lets ok okay""".split()
)
# Words that ask for whatever happened, not about a topic ("what happened last week",
# 上周发生了什么, 昨天做了什么, "what was I busy with"): a query whose words are all
# these asks for its period (palace.search.retrievers lists it). Unlike stop words they
# stay in the index and in the keyword score: a memory may be about 工作 or "the work".
# Compared with query terms as written, each form listed: a stem would also take "go"
# for "going", and Go is a language people ask about.
EVENT_WORDS = VAGUE_THINGS | frozenset(
    """happen happens happened happening work works worked working going busy
    发生 做 干 啥 有 忙 工作 事""".split()
)
# Nouns that name no particular thing: a question is not about 时候 or "things", so
# none of these is a name the palace must mention to answer it.
GENERIC_NOUNS = VAGUE_THINGS | DAY_WORDS | frozenset(
    """时候 时间 东西 情况 问题 方面 地方 样子 办法 方法 原因 结果 部分 内容 方式 感觉 建议 推荐 哪里
    time times kind kinds sort lot week weeks month months year years
    last next first ever recently recommend suggest suggestions advice ideas idea tips""".split()
)
# Words tokenize() keeps (they can matter in a search) but that say nothing about what
# a period was about: the summary's topics skip them.
SUMMARY_STOPWORDS = VAGUE_THINGS | DAY_WORDS | frozenset(
    """现在 已经 可以 需要 因为 所以 但是 如果 然后 进行 一下 没有 不是 就是 还是
    作为 这里 那里 时候 一直 应该 觉得 发现 开始 之后 之前 以后 以前 还有 其他 有点 比较 非常
    now next need needs use used using make made new one two way like will""".split()
)
