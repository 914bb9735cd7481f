"""Data for ``palace.time_reasoning``: numerals, names, parts of the day, holidays.

Only tables live here (no logic beyond decoding them), so that the rules in
``time_reasoning`` read as rules and this file can be checked against a calendar.
"""

from __future__ import annotations

from datetime import date

# --- numbers -------------------------------------------------------------------

CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4,
             "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
              "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
              "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
              "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30}

# "a few", "几" and friends: how many units they may stand for.  One to seven keeps a
# vague word inside a week of days, which is what people mean by 前几天 / a few days ago.
FEW = (1, 7)

# --- names ---------------------------------------------------------------------

# Monday is 0, as in ``date.weekday()``; 日/天 are Sunday.
CN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
               "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}

EN_WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
               "saturday": 5, "sunday": 6}

EN_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
             "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
             "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
             "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

# Month names that are also ordinary words or first names ("may be", "March of
# Dimes", "June said"): they count as a month only with a preposition, a day or a year.
EN_AMBIGUOUS_MONTHS = {"march", "may", "june", "april", "august"}

# --- parts of the day ----------------------------------------------------------

# Hours from the start of the day, end exclusive; an end past 24 runs into the next
# morning, because "last night" includes the small hours.
DAY_PARTS = {
    "small_hours": (0, 6),      # 凌晨
    "early_morning": (5, 9),    # 清晨 / early morning
    "morning": (6, 12),         # 早上 上午 / morning
    "noon": (11, 14),           # 中午 / noon, lunchtime
    "afternoon": (12, 18),      # 下午 / afternoon
    "dusk": (17, 19),           # 傍晚 / dusk
    "evening": (18, 24),        # English "evening"
    "night": (18, 30),          # 晚上 夜里 / night, tonight, last night
    "late_night": (22, 30),     # 深夜 半夜 / late at night
    "daytime": (6, 18),         # 白天 / daytime
}

CN_DAY_PARTS = {"凌晨": "small_hours", "清晨": "early_morning", "一早": "early_morning",
                "早上": "morning", "早晨": "morning", "上午": "morning", "中午": "noon",
                "正午": "noon", "午间": "noon", "下午": "afternoon", "午后": "afternoon",
                "傍晚": "dusk", "黄昏": "dusk", "晚上": "night", "晚间": "night",
                "夜里": "night", "夜间": "night", "夜晚": "night", "半夜": "late_night",
                "深夜": "late_night", "白天": "daytime"}

EN_DAY_PARTS = {"morning": "morning", "afternoon": "afternoon", "evening": "evening",
                "night": "night", "noon": "noon", "midday": "noon", "lunchtime": "noon",
                "lunch time": "noon", "daytime": "daytime"}

# Meteorological seasons as (first month, number of months); winter runs into the
# next year and belongs to the year its December is in.
SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "winter": (12, 3)}
CN_SEASONS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
EN_SEASONS = {"spring": "spring", "summer": "summer", "autumn": "autumn", "fall": "autumn",
              "winter": "winter"}

# --- holidays ------------------------------------------------------------------

# Lunar holidays by Gregorian year, generated once with the ``lunardate`` package:
#   for y in years: cny = LunarDate(y, 1, 1).to_solar_date()
#   除夕 = cny - 1 day, 春节 = cny, 元宵 = (y,1,15), 端午 = (y,5,5), 七夕 = (y,7,7),
#   中秋 = (y,8,15), 重阳 = (y,9,9); plus 清明 (a solar term: 4 April or 5 April), and
#   腊八 = (y-1,12,8), the 腊八 before that year's 春节.
# Every date of a row falls in that Gregorian year, but for 腊八, which in some years
# falls in the December before (a month after the 春节 column's: 2023's is 2022-12-30).
LUNAR_COLUMNS = ("chuxi", "spring_festival", "lantern", "dragon_boat", "qixi",
                 "mid_autumn", "double_ninth", "qingming", "laba")
LUNAR_TABLE = {
    2015: "0218 0219 0305 0620 0820 0927 1021 0405 0127",
    2016: "0207 0208 0222 0609 0809 0915 1009 0404 0117",
    2017: "0127 0128 0211 0530 0828 1004 1028 0404 0105",
    2018: "0215 0216 0302 0618 0817 0924 1017 0405 0124",
    2019: "0204 0205 0219 0607 0807 0913 1007 0405 0113",
    2020: "0124 0125 0208 0625 0825 1001 1025 0404 0102",
    2021: "0211 0212 0226 0614 0814 0921 1014 0404 0120",
    2022: "0131 0201 0215 0603 0804 0910 1004 0405 0110",
    2023: "0121 0122 0205 0622 0822 0929 1023 0405 1230",
    2024: "0209 0210 0224 0610 0810 0917 1011 0404 0118",
    2025: "0128 0129 0212 0531 0829 1006 1029 0404 0107",
    2026: "0216 0217 0303 0619 0819 0925 1018 0405 0126",
    2027: "0205 0206 0220 0609 0808 0915 1008 0405 0115",
    2028: "0125 0126 0209 0528 0826 1003 1026 0404 0104",
    2029: "0212 0213 0227 0616 0816 0922 1016 0404 0122",
    2030: "0202 0203 0217 0605 0805 0912 1005 0405 0111",
    2031: "0122 0123 0206 0624 0824 1001 1024 0405 0101",
    2032: "0210 0211 0225 0612 0812 0919 1012 0404 0120",
    2033: "0130 0131 0214 0601 0801 0908 1001 0404 0108",
    2034: "0218 0219 0305 0620 0820 0927 1020 0405 0127",
    2035: "0207 0208 0222 0610 0810 0916 1009 0405 0116",
}


def lunar_date(key: str, year: int) -> date | None:
    """The Gregorian date of a table holiday in ``year``; None outside the table."""
    row = LUNAR_TABLE.get(year)
    if row is None:
        return None
    mmdd = row.split()[LUNAR_COLUMNS.index(key)]
    if key == "laba" and mmdd > row.split()[1]:  # the December before
        year -= 1
    return date(year, int(mmdd[:2]), int(mmdd[2:]))


# Each holiday: how to find its first day in a year, and how many days it lasts.
#   ("fixed", month, day)            ("lunar", column)
#   ("nth", month, weekday, n)       n-th weekday of the month; n = -1 is the last one
#   ("easter", offset_days)          ("after", other_key, offset_days)
# Lengths follow what people mean by the name: 春节 and 国庆 are the week-long public
# holidays (春节 = 除夕 through 初七), 劳动节 the five-day May holiday, the rest one day.
HOLIDAYS = {
    "new_year_day": (("fixed", 1, 1), 1),
    "valentine": (("fixed", 2, 14), 1),
    "womens_day": (("fixed", 3, 8), 1),
    "arbor_day": (("fixed", 3, 12), 1),
    "st_patrick": (("fixed", 3, 17), 1),
    "april_fools": (("fixed", 4, 1), 1),
    "qingming": (("lunar", "qingming"), 1),
    "labour_day": (("fixed", 5, 1), 5),
    "youth_day": (("fixed", 5, 4), 1),
    "mothers_day": (("nth", 5, 6, 2), 1),
    "memorial_day": (("nth", 5, 0, -1), 1),
    "childrens_day": (("fixed", 6, 1), 1),
    "fathers_day": (("nth", 6, 6, 3), 1),
    "party_day": (("fixed", 7, 1), 1),
    "independence_day": (("fixed", 7, 4), 1),
    "army_day": (("fixed", 8, 1), 1),
    "us_labor_day": (("nth", 9, 0, 1), 1),
    "teachers_day": (("fixed", 9, 10), 1),
    "national_day": (("fixed", 10, 1), 7),
    "halloween": (("fixed", 10, 31), 1),
    "singles_day": (("fixed", 11, 11), 1),
    "thanksgiving": (("nth", 11, 3, 4), 1),
    "black_friday": (("after", "thanksgiving", 1), 1),
    "cyber_monday": (("after", "thanksgiving", 4), 1),
    "double_twelve": (("fixed", 12, 12), 1),
    "christmas_eve": (("fixed", 12, 24), 1),
    "christmas": (("fixed", 12, 25), 1),
    "boxing_day": (("fixed", 12, 26), 1),
    "new_years_eve": (("fixed", 12, 31), 1),
    "easter": (("easter", 0), 1),
    "good_friday": (("easter", -2), 1),
    "shrove_tuesday": (("easter", -47), 1),
    "ash_wednesday": (("easter", -46), 1),
    "palm_sunday": (("easter", -7), 1),
    "easter_monday": (("easter", 1), 1),
    "ascension": (("easter", 39), 1),
    "pentecost": (("easter", 49), 1),
    "whit_monday": (("easter", 50), 1),
    "laba": (("lunar", "laba"), 1),
    "chuxi": (("lunar", "chuxi"), 1),
    "spring_festival": (("lunar", "chuxi"), 8),
    "lunar_new_year_day": (("lunar", "spring_festival"), 1),
    "lantern": (("lunar", "lantern"), 1),
    "dragon_boat": (("lunar", "dragon_boat"), 1),
    "qixi": (("lunar", "qixi"), 1),
    "mid_autumn": (("lunar", "mid_autumn"), 1),
    "double_ninth": (("lunar", "double_ninth"), 1),
}

# Chinese names.  A name mapped to (key, False) is too ambiguous to stand alone
# (元宵 is also the dumpling, 五一 a square, 重阳 a name): it needs a year before it
# ("去年元宵") to count.
CN_HOLIDAYS = {
    "元旦": "new_year_day", "情人节": "valentine", "妇女节": "womens_day",
    "三八妇女节": "womens_day", "植树节": "arbor_day", "愚人节": "april_fools",
    "清明节": "qingming", "清明": ("qingming", False), "劳动节": "labour_day",
    "五一劳动节": "labour_day", "五一假期": "labour_day", "五一长假": "labour_day",
    "五一小长假": "labour_day", "五一": ("labour_day", False), "青年节": "youth_day",
    "五四青年节": "youth_day", "母亲节": "mothers_day", "儿童节": "childrens_day",
    "六一儿童节": "childrens_day", "六一": ("childrens_day", False), "父亲节": "fathers_day",
    "建党节": "party_day", "建军节": "army_day", "教师节": "teachers_day",
    "国庆节": "national_day", "国庆": "national_day", "国庆假期": "national_day",
    "国庆长假": "national_day", "十一假期": "national_day", "十一长假": "national_day",
    "十一黄金周": "national_day", "黄金周": ("national_day", False), "万圣节": "halloween",
    "双十一": "singles_day", "双11": "singles_day", "光棍节": "singles_day",
    "感恩节": "thanksgiving", "黑五": "black_friday", "黑色星期五": "black_friday",
    "双十二": "double_twelve", "双12": "double_twelve", "平安夜": "christmas_eve",
    "圣诞节": "christmas", "圣诞": "christmas", "复活节": "easter",
    "除夕": "chuxi", "大年三十": "chuxi", "年三十": "chuxi", "除夕夜": "chuxi",
    "春节": "spring_festival", "过年": "spring_festival", "农历新年": "spring_festival",
    "春节假期": "spring_festival", "春节长假": "spring_festival",
    "大年初一": "lunar_new_year_day", "正月初一": "lunar_new_year_day",
    "元宵节": "lantern", "正月十五": "lantern", "元宵": ("lantern", False),
    "端午节": "dragon_boat", "端午": "dragon_boat", "七夕节": "qixi", "七夕": "qixi",
    "中秋节": "mid_autumn", "中秋": "mid_autumn", "重阳节": "double_ninth",
    "腊八节": "laba", "腊八": ("laba", False), "复活节星期一": "easter_monday",
    "圣灵降临节": "pentecost", "耶稣升天节": "ascension", "圣灰星期三": "ash_wednesday",
    "重阳": ("double_ninth", False),
}

# English names, matched case-insensitively; apostrophes may be ' or ’ or missing.
EN_HOLIDAYS = {
    "new year's day": "new_year_day", "new years day": "new_year_day", "new year's": "new_year_day",
    "new year's eve": "new_years_eve", "new years eve": "new_years_eve",
    "valentine's day": "valentine", "valentines day": "valentine", "valentine's": "valentine",
    "international women's day": "womens_day", "women's day": "womens_day",
    "st. patrick's day": "st_patrick", "st patrick's day": "st_patrick",
    "saint patrick's day": "st_patrick", "april fools' day": "april_fools",
    "april fool's day": "april_fools", "april fools day": "april_fools",
    "may day": "labour_day", "mother's day": "mothers_day", "mothers day": "mothers_day",
    "memorial day": "memorial_day", "father's day": "fathers_day", "fathers day": "fathers_day",
    "independence day": "independence_day", "the fourth of july": "independence_day",
    "fourth of july": "independence_day", "labor day": "us_labor_day",
    "labour day": "us_labor_day", "halloween": "halloween", "singles' day": "singles_day",
    "singles day": "singles_day", "thanksgiving": "thanksgiving",
    "thanksgiving day": "thanksgiving", "black friday": "black_friday",
    "cyber monday": "cyber_monday", "christmas eve": "christmas_eve",
    "christmas day": "christmas", "christmas": "christmas", "xmas": "christmas",
    "boxing day": "boxing_day", "easter sunday": "easter", "easter": "easter",
    "good friday": "good_friday", "easter monday": "easter_monday",
    "shrove tuesday": "shrove_tuesday", "mardi gras": "shrove_tuesday",
    "pancake day": "shrove_tuesday", "ash wednesday": "ash_wednesday",
    "palm sunday": "palm_sunday", "ascension day": "ascension", "pentecost": "pentecost",
    "whitsun": "pentecost", "whit sunday": "pentecost", "whit monday": "whit_monday",
    "laba festival": "laba", "chinese new year's eve": "chuxi",
    "lunar new year's eve": "chuxi", "chinese new year": "spring_festival",
    "lunar new year": "spring_festival", "spring festival": "spring_festival",
    "lantern festival": "lantern", "dragon boat festival": "dragon_boat",
    "mid-autumn festival": "mid_autumn", "mid autumn festival": "mid_autumn",
    "moon festival": "mid_autumn", "qixi festival": "qixi", "qingming festival": "qingming",
    "tomb-sweeping day": "qingming", "double ninth festival": "double_ninth",
    "golden week": "national_day", "national day": "national_day",
}

# Words after a holiday name that turn it into a thing rather than a time
# ("Christmas tree", "圣诞老人", "Easter egg"), and greetings ("圣诞快乐").
CN_HOLIDAY_NOT_TIME = ("快乐", "愉快", "老人", "树", "帽", "袜", "卡", "礼物", "歌", "月饼", "礼盒")
EN_HOLIDAY_NOT_TIME = ("tree", "trees", "card", "cards", "gift", "gifts", "present", "presents",
                       "carol", "carols", "light", "lights", "sweater", "sweaters", "list",
                       "movie", "movies", "song", "songs", "spirit", "egg", "eggs", "bunny",
                       "costume", "costumes", "candy", "decorations", "cookies", "resolution",
                       "resolutions", "wishes", "tradition", "traditions", "special",
                       "episode", "agreement", "accords")
