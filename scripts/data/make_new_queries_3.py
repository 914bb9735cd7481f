"""Writes new_queries_3.json (issue 11, third round): the held-out set written after the
focus rule was fixed (palace/focus.py), before palace was run on it, and never tuned on.

A new persona and topic: 老秦 (Qin), a retired physics teacher in Qingdao: his wife
刘梅, his daughter 秦悦 (Yue) in Toronto with her husband Mark and their son 豆豆
(Doudou); a vegetable plot, a choir, a sailing club, night fishing with his friend 老韩,
volunteering. 42 memories (three of them chat logs written "Name: text"), 65 queries in
Chinese and English: 12 keyword, 10 paraphrase, 7 concept, 7 cross-lingual, 6 temporal and
23 unanswerable: near misses (the people and things are stored, the asked fact is not:
秦悦's birthday when 刘梅's is stored; 老伴's blood-pressure pill when only her diabetes
pill and my own blood-pressure pill are; 水费 when only other bills are; a speaker swap in
a chat: 老秦 caught the fish 老韩 did) and things never stored (a cat, a car, a granddaughter).
The relevance judgments are by hand, from the memories' text.
"""
import collections
import json
from pathlib import Path

NOW = "2026-11-25T10:00:00+08:00"  # a Wednesday
M = [
 ("b01", "老伴刘梅的降糖药是二甲双胍，每天早晚各一片，饭后吃。", "2026-06-10T09:00:00+08:00", ["健康", "家人"]),
 ("b02", "在崂山脚下的菜地种了韭菜、茄子和两垄花生，每周三、周六去浇水。", "2026-05-04T18:00:00+08:00", ["园艺"]),
 ("b03", "合唱团每周二下午在老年大学排练，指挥姓葛，今年要唱《黄河大合唱》选段。", "2026-09-08T17:00:00+08:00", ["爱好"]),
 ("b04", "Yue called from Toronto: Doudou starts kindergarten on September 3, the school is called Maple Leaf Montessori.", "2026-08-20T21:00:00+08:00", ["family"]),
 ("b05", "给社区的初中生义务辅导物理，周五晚上七点到八点半，在街道活动中心三楼。", "2026-09-12T20:00:00+08:00", ["志愿"]),
 ("b06", "钓鱼竿是光威的 4.5 米碳素竿，去年在即墨小商品城买的，380 块。", "2026-04-15T16:00:00+08:00", ["钓鱼"]),
 ("b07", "体检：眼压偏高 23，医生怀疑青光眼，让 12 月 10 号去眼科复查。", "2026-11-02T11:00:00+08:00", ["健康"]),
 ("b08", "The sailing club membership renews every March; annual fee 2,400 yuan, boat slip B-17.", "2026-03-05T10:00:00+08:00", ["sailing"]),
 ("b09", "小区停车位月租从 150 涨到了 200，物业通知从 11 月起执行。", "2026-10-28T19:00:00+08:00", ["住房"]),
 ("b10", "给豆豆寄了一套乐高城市系列的消防站，顺丰国际，运费 420。", "2026-10-15T15:00:00+08:00", ["家人"]),
 ("b11", "老同事老孟心脏搭桥手术很顺利，在青大附院住院，我们周日去看他。", "2026-07-19T20:00:00+08:00", ["朋友"]),
 ("b12", "电动自行车换了新电池，48V 20Ah 的锂电，续航大概 60 公里。", "2026-06-25T17:00:00+08:00", ["出行"]),
 ("b13", "Mark sent the recipe for his maple salmon: soy sauce, maple syrup, garlic, bake at 200°C for 15 minutes.", "2026-07-02T22:00:00+08:00", ["cooking"]),
 ("b14", "退休金这个月起涨了 3%，到手 6850 元。", "2026-08-01T10:00:00+08:00", ["财务"]),
 ("b15", "把阳台的三角梅剪了枝，施了一次磷钾肥，希望明年开得多。", "2026-10-05T16:00:00+08:00", ["园艺"]),
 ("b16", "学会了用剪映给合唱团的演出视频加字幕，导出 1080p。", "2026-10-20T21:00:00+08:00", ["数码"]),
 ("b17", "刘梅报了一个瑜伽班，周一周四上午在区文化馆，一期 12 次 600 元。", "2026-09-15T12:00:00+08:00", ["家人"]),
 ("b18", "Passport renewed at the Qingdao exit-entry office; the new one expires in 2036.", "2026-05-20T15:00:00+08:00", ["documents"]),
 ("b19", "老家即墨的房子租给了一对年轻夫妻，每年租金 18000，合同签到 2028 年 6 月。", "2026-06-01T11:00:00+08:00", ["房产"]),
 ("b20", "秋天腌了两坛辣白菜，用的是胶州大白菜，放在北阳台。", "2026-11-10T18:00:00+08:00", ["做饭"]),
 ("b21", "和钓友老韩约好每月第一个周日去小麦岛夜钓，主要钓黑鲷。", "2026-08-03T21:00:00+08:00", ["钓鱼"]),
 ("b22", "The piano tuner comes twice a year; last tuning on October 8 cost 300 yuan.", "2026-10-08T17:00:00+08:00", ["home"]),
 ("b23", "女儿秦悦升职做了项目经理，年底可能回国探亲两周。", "2026-09-28T22:00:00+08:00", ["家人"]),
 ("b24", "在拼多多给菜地买了一卷 50 米的滴灌管，还没装。", "2026-07-11T20:00:00+08:00", ["园艺"]),
 ("b25", "膝盖做了理疗，一共十次，医保报销了七成。", "2026-04-22T16:00:00+08:00", ["健康"]),
 ("b26", "秦悦：爸，豆豆最近迷上恐龙了，天天要看恐龙纪录片。\n老秦：那我给他买本恐龙百科寄过去。\n秦悦：好呀，要中英双语的。", "2026-11-05T21:00:00+08:00", ["家人"]),
 ("b27", "Yue: Dad, Mark got tickets for the Raptors game in December.\nQin: Tell him to take photos for me.\nYue: He will, and he wants you to visit next summer.", "2026-11-12T09:00:00+08:00", ["family"]),
 ("b28", "老韩：上周我在小麦岛钓了条三斤的黑鲷。\n老秦：我那天只钓到几条小黄鱼。\n老韩：下次早点去，涨潮前最好。", "2026-10-12T20:00:00+08:00", ["钓鱼"]),
 ("b29", "The dentist at Hisense Plaza said my upper-left crown needs replacing; quote 3,800 yuan.", "2026-09-03T15:00:00+08:00", ["health"]),
 ("b30", "每天早上六点沿着栈桥到第六海水浴场散步，大约 5 公里。", "2026-05-15T07:00:00+08:00", ["运动"]),
 ("b31", "订了 1 月 8 号去三亚的机票，和刘梅去过冬，住在亲戚的海景房。", "2026-11-18T20:00:00+08:00", ["旅行"]),
 ("b32", "老年大学书法班报满了，只好改报了国画班，老师是周老师。", "2026-09-01T11:00:00+08:00", ["爱好"]),
 ("b33", "家里的燃气热水器打不着火，师傅说是脉冲点火器坏了，换了 85 元。", "2026-11-20T19:00:00+08:00", ["住房"]),
 ("b34", "Donated 30 physics textbooks to the community library's reading corner.", "2026-06-18T10:00:00+08:00", ["volunteer"]),
 ("b35", "刘梅的生日是腊月二十三，每年这天全家吃饺子。", "2026-01-10T20:00:00+08:00", ["家人"]),
 ("b36", "手机换成了华为 Mate 60，旧的小米给了刘梅当备用机。", "2026-03-28T14:00:00+08:00", ["数码"]),
 ("b37", "血压最近稳定在 130/80 左右，医生说继续吃缬沙坦。", "2026-10-25T10:00:00+08:00", ["健康"]),
 ("b38", "帆船课的教练叫 Tom Chen，下次出海定在周六上午，要带救生衣。", "2026-11-19T18:00:00+08:00", ["帆船"]),
 ("b39", "Bought a Xiaomi air purifier for the bedroom; the filter is changed every six months.", "2026-02-14T16:00:00+08:00", ["home"]),
 ("b40", "给合唱团订了 40 件统一的红色演出服，每件 95 元，团费里出。", "2026-10-30T20:00:00+08:00", ["爱好"]),
 ("b41", "去银行把三年期定期存了 10 万，利率 2.35%。", "2026-07-25T11:00:00+08:00", ["财务"]),
 ("b42", "楼上邻居小赵家装修，说好工作日上午九点以后才动电钻。", "2026-08-14T19:00:00+08:00", ["住房"]),
]
Q = []


def q(i, text, kind, rel, lang):
    Q.append({"id": i, "query": text, "now": NOW, "relevant": rel, "kind": kind, "lang": lang})


# keyword: the memory's own words
q("k01", "二甲双胍怎么吃", "keyword", ["b01"], "zh")
q("k02", "黄河大合唱排练", "keyword", ["b03"], "zh")
q("k03", "Maple Leaf Montessori start date", "keyword", ["b04"], "en")
q("k04", "光威钓鱼竿多少钱", "keyword", ["b06"], "zh")
q("k05", "眼压复查", "keyword", ["b07"], "zh")
q("k06", "sailing club annual fee", "keyword", ["b08"], "en")
q("k07", "停车位月租涨到多少", "keyword", ["b09"], "zh")
q("k08", "乐高消防站运费", "keyword", ["b10"], "zh")
q("k09", "滴灌管", "keyword", ["b24"], "zh")
q("k10", "piano tuning cost", "keyword", ["b22"], "en")
q("k11", "即墨房子租金", "keyword", ["b19"], "zh")
q("k12", "演出服多少钱一件", "keyword", ["b40"], "zh")
# paraphrase: few or no shared words
q("p01", "老伴控制血糖吃的药", "paraphrase", ["b01"], "zh")
q("p02", "唱歌的团哪天练", "paraphrase", ["b03"], "zh")
q("p03", "给孩子们免费讲题是哪天晚上", "paraphrase", ["b05"], "zh")
q("p04", "眼睛可能有什么毛病", "paraphrase", ["b07"], "zh")
q("p05", "电瓶车充一次能跑多远", "paraphrase", ["b12"], "zh")
q("p06", "养老金现在每个月拿多少", "paraphrase", ["b14"], "zh")
q("p07", "冬天储备的泡菜放哪了", "paraphrase", ["b20"], "zh")
q("p08", "洗澡的热水器修了多少钱", "paraphrase", ["b33"], "zh")
q("p09", "清晨锻炼走哪条路线", "paraphrase", ["b30"], "zh")
q("p10", "刘梅锻炼身体的课在哪上", "paraphrase", ["b17"], "zh")
# concept: the query names a kind, the memory an instance
q("c01", "花卉怎么养护的", "concept", ["b15"], "zh")
q("c02", "蔬菜种了哪些", "concept", ["b02"], "zh")
q("c03", "电子产品换新", "concept", ["b36"], "zh")
q("c04", "存款理财", "concept", ["b41"], "zh")
q("c05", "乐器保养", "concept", ["b22"], "zh")
q("c06", "家里的电器", "concept", ["b39", "b33"], "zh")
q("c07", "朋友生病住院", "concept", ["b11"], "zh")
# cross-lingual
q("x01", "豆豆的幼儿园叫什么", "cross-lingual", ["b04"], "zh")
q("x02", "护照什么时候到期", "cross-lingual", ["b18"], "zh")
q("x03", "牙冠换一个要多少钱", "cross-lingual", ["b29"], "zh")
q("x04", "Mark 的三文鱼做法", "cross-lingual", ["b13"], "mixed")
q("x05", "What does my wife take for diabetes?", "cross-lingual", ["b01"], "en")
q("x06", "How far can my e-bike go on one charge?", "cross-lingual", ["b12"], "en")
q("x07", "Who is the sailing instructor?", "cross-lingual", ["b38"], "en")
# temporal (now: Wednesday 2026-11-25)
q("t01", "上个月做了哪些园艺活", "temporal", ["b15"], "zh")
q("t02", "九月份报的课", "temporal", ["b17", "b32"], "zh")
q("t03", "上个月给豆豆寄了什么", "temporal", ["b10"], "zh")
q("t04", "What did Yue tell me two weeks ago?", "temporal", ["b27"], "en")
q("t05", "今年五月办的证件", "temporal", ["b18"], "zh")
q("t06", "上周家里修了什么", "temporal", ["b33"], "zh")
# unanswerable: near misses (the people and things are stored, the fact is not)
q("u01", "秦悦的生日是哪天", "unanswerable", [], "zh")
q("u02", "老伴的降压药是什么", "unanswerable", [], "zh")
q("u03", "合唱团每次排练多久", "unanswerable", [], "zh")
q("u04", "国画班的学费多少", "unanswerable", [], "zh")
q("u05", "菜地的租金一年多少", "unanswerable", [], "zh")
q("u06", "豆豆的生日", "unanswerable", [], "zh")
q("u07", "Mark 在哪家公司上班", "unanswerable", [], "mixed")
q("u08", "What size is my sailing boat?", "unanswerable", [], "en")
q("u09", "电动车的电池多少钱换的", "unanswerable", [], "zh")
q("u10", "What did the ophthalmologist prescribe?", "unanswerable", [], "en")
q("u11", "去三亚的机票多少钱", "unanswerable", [], "zh")
q("u12", "水费交了多少", "unanswerable", [], "zh")
q("u13", "刘梅的瑜伽老师叫什么", "unanswerable", [], "zh")
q("u14", "老孟出院了吗", "unanswerable", [], "zh")
# unanswerable: speaker swaps in the chat logs (b26, b27, b28)
q("u15", "What did Qin say about visiting next summer?", "unanswerable", [], "en")
q("u16", "老秦在小麦岛钓的黑鲷有几斤", "unanswerable", [], "zh")
q("u17", "秦悦说要给豆豆买什么书", "unanswerable", [], "zh")
# unanswerable: never stored
q("u18", "我的社保卡号是多少", "unanswerable", [], "zh")
q("u19", "What's the Wi-Fi password at the choir room?", "unanswerable", [], "en")
q("u20", "家里的猫吃什么粮", "unanswerable", [], "zh")
q("u21", "How much is my car insurance?", "unanswerable", [], "en")
q("u22", "孙女的钢琴课", "unanswerable", [], "zh")
q("u23", "Which hotel did we book in Sanya?", "unanswerable", [], "en")

data = {"description": "Third held-out set for issue 11, written after the focus rule of the third "
        "round was fixed (2026-12-01), before palace was run on it, never tuned on: a retired "
        "physics teacher in Qingdao, 2026-01..2026-11, 42 new memories (three chat logs), 65 queries "
        "in Chinese and English (keyword, paraphrase, concept, cross-lingual, temporal) and 23 "
        "unanswerable ones (near misses, speaker swaps, things never stored).",
        "timezone": "Asia/Shanghai",
        "memories": [{"id": i, "content": c, "created_at": t, "tags": tg, "location": "general", "type": "fact"}
                     for i, c, t, tg in M],
        "queries": Q}

if __name__ == "__main__":
    json.dump(data, open(Path(__file__).with_name("new_queries_3.json"), "w", encoding="utf-8"),
              ensure_ascii=False, indent=1)
    print(len(M), len(Q), collections.Counter(x["kind"] for x in Q))
