"""Does a memory state the kind of answer the question asks for? (issue 11, round 5)

A question asking for an amount ("磨豆机修了多少钱", "How much was Qi's flight?") or
for a number ("高乐的钢琴考了几级", "How many followers…", "WiFi 密码是多少") can only
be answered by a memory that states one: digits, Chinese numerals with a measure word,
English number words. A date ("12 月 20 号", "Dec 18"), a year or a clock time is no
amount: the memory saying when Qi's flight lands does not say what it cost.

Two things follow, both explained to the user:

- the words that ask for the amount (多少, 钱, "how much", cost, price) are no evidence
  that a memory is about the question's topic: a chat asking "多少钱一公斤？" holds
  them and is about coffee beans (``type_terms``, read by ``palace.floor``);
- a memory stating no number of the asked kind cannot answer it: it is weak
  ("weak: asks for an amount; states none"), and when no result is left, nothing is
  found.

Classic question answering's answer-type check, by rules over the question and the
memory's text only: pure functions, no model. Other answer types (who, where, when) are
not checked: "when" is answered by a memory's own date, and who / where were not tried
(docs/search-quality.md, "Round 5").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

__all__ = ["AMOUNT", "NUMBER", "COLOUR", "AskedKind", "asked_kind", "states_kind", "KIND_WORDS", "type_terms", "type_phrase_words"]

AMOUNT = "amount"  # money: a price, a cost, a fee, a salary
NUMBER = "number"  # a level, a score, a measure, a number such as a plate or a password
COLOUR = "colour"  # "伊犁租的车是什么颜色", "What colour is the Volvo?": a colour word answers it

# what the note calls each kind
KIND_WORDS = {AMOUNT: "an amount", NUMBER: "a number", COLOUR: "a colour"}

_ZH_MONEY_NOUNS = "价格|价钱|报价|费用|票价|房租|租金|工资|薪水|月薪|年薪|学费|押金|运费|花费|开销|预算|售价|定价|收费|车费|门票钱"
# zh: 多少钱 / 几块钱 / 多贵 / 花了多少; a money noun with 多少 or 几 after it ("押金是多少")
_ZH_AMOUNT = re.compile(rf"多少钱|几块钱?|多少块|多贵|花了多少|(?:{_ZH_MONEY_NOUNS})[^，。？?]{{0,4}}(?:多少|几)"
                        rf"|多少(?:的)?(?:{_ZH_MONEY_NOUNS})")
# en: how much (not "how much time"), what did X cost, what price, the price / cost / fee of
_EN_MONEY_NOUNS = r"price|cost|fare|fee|fees|rent|salary|deposit|budget|charge|wage|wages|bill"
_EN_AMOUNT = re.compile(rf"\bhow\s+much\b(?!\s+(?:time|longer|weight|water|sleep|space|older|more|less|of)\b)"
                        rf"|\bhow\s+expensive\b|\bwhat\s+did\b[^?]{{0,60}}\bcost\b"
                        rf"|\bwhat(?:'s|’s|\s+is|\s+was|\s+were|\s+are)?\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?"
                        rf"(?:[A-Za-z\-]+\s+){{0,2}}(?:{_EN_MONEY_NOUNS})\b", re.IGNORECASE)
# a number the memory must state itself: a level, a score, a reading, a number such as
# a plate or a password ("几级", "多少分", "是多少", "what score"). Not a count ("几次",
# "how many doctors": each memory may be one of the things counted, LongMemEval's
# multi-session questions) nor a duration or an age ("多久", "how long", "how old": a
# date answers those)
_ZH_NUMBER = re.compile(r"几(?:级|分|度|楼|层)|多少(?=分|度|号|[？?。，！!\s]|$)")
_EN_NUMBER = re.compile(r"\bhow\s+(?:tall|heavy|far|high)\b"
                        r"|\bwhat\s+(?:score|number|grade|level|percentage|size|rating)\b", re.IGNORECASE)

# a colour asked for: 什么颜色 / 啥颜色 / 颜色是什么, "what colour", "which color"
_ZH_COLOUR = re.compile(r"(?:什么|啥|哪种|哪个|哪一种)\s*颜色|颜色\s*是?\s*(?:什么|啥)|什么色")
_EN_COLOUR = re.compile(r"\b(?:what|which)\s+colou?rs?\b|\bcolou?r\s+(?:is|was|are|were)\b", re.IGNORECASE)


@dataclass(frozen=True)
class AskedKind:
    """What a question asks for (``kind``: AMOUNT or NUMBER) and the phrases asking it
    ("多少钱", "How much"), whose words are no evidence of the question's topic."""

    kind: str
    phrases: tuple[str, ...]

    @property
    def words(self) -> str:
        return KIND_WORDS[self.kind]

    def note(self) -> str:
        asked = ", ".join(f"'{p}'" for p in self.phrases)
        return f"nothing found: the question asks for {self.words} ({asked}); no matching memory states one"

    def reason(self) -> str:
        return f"weak: the question asks for {self.words}; this memory states none"


# the query words that ask for the amount, not for a topic: a memory holding them holds
# the question's form ("多少钱一公斤？" in a chat about coffee beans), not its subject
_TYPE_WORDS = frozenset("""much many 多少 钱 多少钱 几 多久 多长 多大 多贵 cost costs price prices
    价格 价钱 费用 报价 块 long old far often 颜色 colour color colours colors""".split())


def type_terms(asked: AskedKind, terms: Iterable[str]) -> set[str]:
    """Those of the query's ``terms`` (``query_terms`` output) that ask for the answer's
    kind (how much, 多少钱, 几次, cost) rather than name its topic."""
    del asked  # every kind has the same question words today; kept for the reader of the call
    return {t for t in terms if t in _TYPE_WORDS or (t.startswith("几") and len(t) <= 3)}


def asked_kind(text: str) -> AskedKind | None:
    """The answer type ``text`` asks for, or None (not an amount or number question)."""
    amount = [m.group(0) for m in (*_ZH_AMOUNT.finditer(text), *_EN_AMOUNT.finditer(text))]
    if amount:
        return AskedKind(AMOUNT, tuple(dict.fromkeys(amount)))
    number = [m.group(0) for m in (*_ZH_NUMBER.finditer(text), *_EN_NUMBER.finditer(text))]
    if number:
        return AskedKind(NUMBER, tuple(dict.fromkeys(number)))
    colour = [m.group(0) for m in (*_ZH_COLOUR.finditer(text), *_EN_COLOUR.finditer(text))]
    if colour:
        return AskedKind(COLOUR, tuple(dict.fromkeys(colour)))
    return None


# ------------------------------------------------------------- in a memory

_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# what looks like a number and is a date, a year or a clock time: taken out before looking.
# Every run (letters, digits, numerals) is tried from its start only (the lookbehinds):
# tried at each of its characters, a 1 MB memory of one run took minutes (quadratic)
_NOT_AMOUNTS = re.compile(
    r"\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?"           # 2026-12-01, 2026/12
    r"|\d{1,2}:\d{2}(?::\d{2})?"                     # 11:40
    r"|(?<!\d)\d+\s*[年月日号点](?!元|块)"              # 12 月 20 号, 2026 年, 3 点
    r"|第\s*\d+\s*[天次届期]"                          # 第1天
    rf"|\b{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"  # Dec 18, December 16th
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\b"  # 18 December
    r"|\b\d{1,2}(?:st|nd|rd|th)\b"                   # the 12th
    r"|\b(?:19|20)\d{2}\b"                           # a year
    r"|\b(?:day|week|chapter|room|gate|flight|no\.?)\s+\d+\b"  # Day 4 (a label)
    r"|(?<![A-Za-z])[A-Za-z]+\d[\w\-]*|(?<!\d)\d+[A-Za-z][\w\-]*",  # A320, K-300, 3rd-party: names
    re.IGNORECASE)
_DIGITS = re.compile(r"\d[\d,.]*")
_ZH_NUMERAL = "零一二两三四五六七八九十百千万亿半"
_ZH_MEASURE = ("个次级岁天年月周小时分钟秒块元角毛万千百斤公斤克米公里里倍遍场台件本张只条位人口层瓶杯份箱"
               "套双对趟回页首顿碗盒包袋间辆架株棵颗粒")
# 两个小时, 八级, 三千块, 一万二: a Chinese numeral and a measure word (or a numeral run of
# two or more: 一万二, 八千八); 一起 / 一下 / 一直 are no numbers
_ZH_COUNT = re.compile(rf"(?<![{_ZH_NUMERAL}])[{_ZH_NUMERAL}]+[{_ZH_MEASURE}]|[零一二两三四五六七八九十][百千万亿][{_ZH_NUMERAL}]*")
_ZH_MONEY = re.compile(rf"(?<![{_ZH_NUMERAL}])[{_ZH_NUMERAL}]+(?:块|元|万|千|百|毛|角)|免费|没收钱|不要钱|不收费|白送")
_EN_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|thousand|million|dozen|once|twice|half|a\s+couple)\b", re.IGNORECASE)
_EN_MONEY = re.compile(
    r"(?:[$€£¥]|\b(?:rmb|cny|usd|eur|gbp|hkd|yuan|dollars?|euros?|pounds?|bucks|yen|quid|grand|"
    r"baht|won|francs?)\b)", re.IGNORECASE)
# an amount told against another ("worth triple what I paid", 贵了一倍) answers "how much"
_MULTIPLE = re.compile(r"\b(?:double|triple|quadruple|twice|thrice|tenfold)\b|倍", re.IGNORECASE)
_EN_FREE = re.compile(r"\bfor\s+free\b|\bfree\s+of\s+charge\b|\bno\s+charge\b|\bdidn'?t\s+charge\b|\bat\s+no\s+cost\b",
                      re.IGNORECASE)


# a colour named: a Chinese colour character (红, 深蓝, 米色; loose on purpose: 红包 passes,
# and a memory that cannot answer is only ever let through, never one that can held back)
# or an English colour word
_ZH_COLOURS = re.compile(r"[红橙黄绿青蓝紫黑白灰粉棕褐金银]|米色|咖啡色|卡其|藏青|香槟色")
_EN_COLOURS = re.compile(
    r"\b(?:red|orange|yellow|green|blue|purple|violet|black|white|gr[ae]y|pink|brown|gold(?:en)?|"
    r"silver|beige|navy|maroon|burgundy|teal|turquoise|cyan|magenta|cream|ivory|khaki|olive|"
    r"charcoal|champagne|tan|lilac|lavender|coral|crimson|scarlet|indigo|bronze)\b", re.IGNORECASE)


def states_kind(content: str, kind: str) -> bool:
    """Whether ``content`` states a number of ``kind``: for AMOUNT, digits that are no
    date, year or clock time, a Chinese numeral with a money unit (三千块), a number
    word with a currency, a multiple ("triple what I paid") or "free"; for NUMBER, any of those, a Chinese numeral with a measure word (八级,
    两个小时) or an English number word ("twenty times")."""
    if kind == COLOUR:
        return bool(_ZH_COLOURS.search(content) or _EN_COLOURS.search(content))
    plain = _NOT_AMOUNTS.sub(" ", content)
    if _DIGITS.search(plain) or _ZH_MONEY.search(plain) or _EN_FREE.search(plain) or _MULTIPLE.search(plain):
        return True
    if kind == AMOUNT:
        return bool(_EN_MONEY.search(plain) and _EN_NUMBER_WORDS.search(plain))
    return bool(_ZH_COUNT.search(plain) or _EN_NUMBER_WORDS.search(plain))


# ------------------------------------------------------------- the type a question names

# the words between an English question word and its verb name the answer's type, not
# its topic ("What European countries has Maria been to?": the answer names Spain, and
# John is the one who says "countries"), as the Chinese question word's noun does
_EN_TYPE_PHRASE = re.compile(r"\b(?:what|which|whose)\s+((?:[A-Za-z\-]+\s+){1,3}?)"
                             r"(?=(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|"
                             r"should|might|must)\b)", re.IGNORECASE)


def type_phrase_words(text: str) -> set[str]:
    """The words of ``text`` (as ``tokenize`` gives them) between an English question
    word and its verb: the answer's type ("What European countries has…"), not a thing
    a memory must mention."""
    from .tokenize import tokenize

    return {t for m in _EN_TYPE_PHRASE.finditer(text) for t in tokenize(m.group(1))}
