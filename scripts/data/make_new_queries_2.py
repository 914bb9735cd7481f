"""Writes new_queries_2.json (issue 11, second round): the held-out set written after the changes."""
import json
NOW = "2026-11-20T10:00:00+08:00"
M = [
 ("a01", "和房东老周续签了两年租约，月租涨到 4200，押一付三。", "2026-09-03T20:00:00+08:00", ["住房"]),
 ("a02", "楼下的川菜馆'蓉味轩'换了老板，水煮鱼没以前辣了。", "2026-10-12T21:00:00+08:00", ["吃饭"]),
 ("a03", "给出版社翻译的那本科普书交了第三章初稿，编辑小林说术语表要统一。", "2026-10-28T18:00:00+08:00", ["工作", "翻译"]),
 ("a04", "Client Northwind wants the logo in three colourways by December 5; invoice 50% upfront.", "2026-11-02T15:00:00+08:00", ["work", "design"]),
 ("a05", "体检报告：低密度脂蛋白 3.9，医生建议少吃油炸，三个月后复查。", "2026-08-15T11:00:00+08:00", ["健康"]),
 ("a06", "猫咪汤圆做了绝育手术，医生说一周内别让它跳高。", "2026-09-20T17:00:00+08:00", ["宠物"]),
 ("a07", "Switched my phone plan to China Telecom, 59 yuan a month with 30 GB.", "2026-07-08T12:00:00+08:00", ["bills"]),
 ("a08", "周六在青城山徒步，走了 14 公里，膝盖有点疼。", "2026-10-18T19:00:00+08:00", ["运动"]),
 ("a09", "报了一个周三晚上的陶艺课，在玉林路，老师姓何。", "2026-09-10T22:00:00+08:00", ["爱好"]),
 ("a10", "The Wacom tablet pen stopped registering pressure; ordered a replacement nib set.", "2026-11-11T10:00:00+08:00", ["equipment"]),
 ("a11", "妹妹下个月在重庆办婚礼，我负责做请柬设计。", "2026-11-05T21:00:00+08:00", ["家人"]),
 ("a12", "把 NAS 上的照片备份到了阿里云盘，一共 380 GB。", "2026-08-02T23:00:00+08:00", ["数码"]),
 ("a13", "Tax note: freelance income for Q3 was 61,000 yuan; keep the receipts for the home office.", "2026-10-08T09:00:00+08:00", ["finance"]),
 ("a14", "买了一台二手的富士 X-T4，镜头是 18-55，花了 6800。", "2026-09-25T16:00:00+08:00", ["数码", "摄影"]),
 ("a15", "爸爸的降压药换成了氨氯地平，早上一片。", "2026-08-28T08:00:00+08:00", ["家人", "健康"]),
 ("a16", "Started learning Spanish on Duolingo; 20 minutes every night before bed.", "2026-07-20T22:30:00+08:00", ["learning"]),
 ("a17", "工作室的空调漏水，物业说周四派人来修。", "2026-08-11T14:00:00+08:00", ["住房"]),
 ("a18", "和大学室友阿杰约了元旦去大理玩五天。", "2026-11-15T20:00:00+08:00", ["旅行"]),
 ("a19", "The font licence for Source Han Serif is free for commercial use (SIL Open Font License).", "2026-10-02T11:00:00+08:00", ["design"]),
 ("a20", "每天早上喝一杯美式，下午改喝菊花茶，晚上不碰咖啡因。", "2026-09-01T08:30:00+08:00", ["习惯"]),
 ("a21", "车子年检通过了，下次是 2028 年 3 月。", "2026-03-14T10:00:00+08:00", ["车"]),
 ("a22", "Booked flights to Kunming for the Chinese New Year: CA4401 on February 14.", "2026-11-18T19:00:00+08:00", ["travel"]),
 ("a23", "给汤圆换了主食，从鸡肉味的干粮换成三文鱼配方，它吃得挺香。", "2026-11-09T18:00:00+08:00", ["宠物"]),
 ("a24", "在闲鱼上卖掉了旧的 iPad Air，1500 块。", "2026-10-22T13:00:00+08:00", ["数码"]),
 ("a25", "Weekly standup with the agency moved to Tuesdays 10am, on Feishu.", "2026-09-15T10:30:00+08:00", ["work"]),
 ("a26", "牙医说左下智齿要拔，约在 12 月 3 号下午。", "2026-11-12T16:00:00+08:00", ["健康"]),
 ("a27", "阳台种的小番茄结果了，摘了一小碗。", "2026-08-20T18:30:00+08:00", ["生活"]),
 ("a28", "Read 'The Design of Everyday Things' again; the chapter on affordances is still the best.", "2026-10-05T21:00:00+08:00", ["reading"]),
 ("a29", "妈妈的生日是农历八月十五，今年送了她一条羊绒围巾。", "2026-09-26T20:00:00+08:00", ["家人"]),
 ("a30", "工作电脑换成了 MacBook Pro M4，旧的给了表弟。", "2026-07-30T15:00:00+08:00", ["数码", "工作"]),
 ("a31", "The printer at the co-working space charges 1 yuan per colour page.", "2026-08-06T14:00:00+08:00", ["work"]),
 ("a32", "每周二、四晚上去小区游泳馆游 1500 米。", "2026-07-15T21:00:00+08:00", ["运动"]),
 ("a33", "Paid the electricity bill: 312 yuan for October, the heater is on a lot.", "2026-11-03T09:00:00+08:00", ["bills"]),
 ("a34", "宽带到期了，续费了一年联通 500M，1080 元。", "2026-10-30T20:00:00+08:00", ["bills"]),
 ("a35", "给客户做的茶饮品牌包装，最终定了墨绿色配烫金。", "2026-10-15T17:00:00+08:00", ["工作", "设计"]),
 ("a36", "Lent my tripod to Xiao Mei; she'll return it after the wedding shoot.", "2026-11-07T12:00:00+08:00", ["equipment"]),
 ("a37", "医保卡补办好了，新卡号后四位 7731。", "2026-09-05T11:00:00+08:00", ["证件"]),
 ("a38", "My running shoes are Asics Novablast 4, size 42.5.", "2026-08-24T19:00:00+08:00", ["sport"]),
 ("a39", "在成都图书馆借了三本书，12 月 1 号前要还。", "2026-11-01T16:00:00+08:00", ["reading"]),
 ("a40", "公众号这个月涨了 800 个粉丝，爆款是那篇讲配色的文章。", "2026-10-31T22:00:00+08:00", ["工作"]),
]
Q = []
def q(i, text, kind, rel, lang):
    Q.append({"id": i, "query": text, "now": NOW, "relevant": rel, "kind": kind, "lang": lang})
# keyword
q("k01", "租约月租多少", "keyword", ["a01"], "zh")
q("k02", "蓉味轩的水煮鱼", "keyword", ["a02"], "zh")
q("k03", "Northwind logo deadline", "keyword", ["a04"], "en")
q("k04", "低密度脂蛋白复查", "keyword", ["a05"], "zh")
q("k05", "Wacom pen nib", "keyword", ["a10"], "en")
q("k06", "富士相机多少钱买的", "keyword", ["a14"], "zh")
q("k07", "Source Han Serif licence", "keyword", ["a19"], "en")
q("k08", "闲鱼卖 iPad", "keyword", ["a24"], "zh")
q("k09", "智齿什么时候拔", "keyword", ["a26"], "zh")
q("k10", "Asics shoe size", "keyword", ["a38"], "en")
q("k11", "联通宽带续费", "keyword", ["a34"], "zh")
q("k12", "Duolingo Spanish", "keyword", ["a16"], "en")
# paraphrase (few or no shared words)
q("p01", "我住的地方房租涨了吗", "paraphrase", ["a01"], "zh")
q("p02", "猫做完手术要注意什么", "paraphrase", ["a06"], "zh")
q("p03", "上次爬山走了多远", "paraphrase", ["a08"], "zh")
q("p04", "捏泥巴的课在哪里上", "paraphrase", ["a09"], "zh")
q("p05", "谁要结婚了", "paraphrase", ["a11"], "zh")
q("p06", "照片存到哪个网盘了", "paraphrase", ["a12"], "zh")
q("p07", "How much did I earn freelancing last quarter?", "paraphrase", ["a13"], "en")
q("p08", "老爸现在吃什么药控制血压", "paraphrase", ["a15"], "zh")
q("p09", "When is the meeting with the agency each week?", "paraphrase", ["a25"], "en")
q("p10", "我晚上还喝咖啡吗", "paraphrase", ["a20"], "zh")
q("p11", "Who has my camera stand?", "paraphrase", ["a36"], "en")
q("p12", "借的书哪天到期", "paraphrase", ["a39"], "zh")
# concept (instances not literally named)
q("c01", "宠物吃的粮换了什么", "concept", ["a23"], "zh")
q("c02", "数码设备的买卖记录", "concept", ["a14", "a24"], "zh")
q("c03", "What sports do I do regularly?", "concept", ["a32", "a38"], "en")
q("c04", "家里的账单", "concept", ["a33", "a34", "a07"], "zh")
q("c05", "我种的蔬菜", "concept", ["a27"], "zh")
q("c06", "book I reread", "concept", ["a28"], "en")
q("c07", "牙齿的问题", "concept", ["a26"], "zh")
q("c08", "证件补办", "concept", ["a37"], "zh")
# cross-lingual
q("x01", "phone plan monthly fee", "cross-lingual", ["a07"], "en")
q("x02", "翻译的书编辑有什么意见", "cross-lingual", ["a03"], "zh")
q("x03", "tea brand packaging colours", "cross-lingual", ["a35"], "en")
q("x04", "电费多少钱", "cross-lingual", ["a33"], "zh")
q("x05", "去昆明的航班", "cross-lingual", ["a22"], "zh")
q("x06", "air conditioner leaking in the studio", "cross-lingual", ["a17"], "en")
q("x07", "new work laptop", "cross-lingual", ["a30"], "en")
# temporal
q("t01", "上个月的徒步", "temporal", ["a08"], "zh")
q("t02", "两周前借出去的东西", "temporal", ["a36"], "zh")
q("t03", "what did I order last week", "temporal", ["a10"], "en")
q("t04", "三个月前的体检", "temporal", ["a05"], "zh")
q("t05", "去年的车检", "temporal", [], "zh")
q("t06", "上个月公众号涨粉", "temporal", ["a40"], "zh")
q("t07", "a month ago the packaging design", "temporal", ["a35"], "en")
# unanswerable: near misses and things never stored
q("u01", "爸爸的生日是哪天", "unanswerable", [], "zh")
q("u02", "阿杰的电话号码", "unanswerable", [], "zh")
q("u03", "What is the landlord's phone number?", "unanswerable", [], "en")
q("u04", "汤圆的疫苗什么时候打", "unanswerable", [], "zh")
q("u05", "陶艺课多少钱一节", "unanswerable", [], "zh")
q("u06", "How much did the Kunming hotel cost?", "unanswerable", [], "en")
q("u07", "妹妹的婚礼在哪个酒店", "unanswerable", [], "zh")
q("u08", "我的血压是多少", "unanswerable", [], "zh")
q("u09", "Which lens did I buy for the Sony camera?", "unanswerable", [], "en")
q("u10", "燃气费交了多少", "unanswerable", [], "zh")
q("u11", "What did Dr. Wang say about my knee?", "unanswerable", [], "en")
q("u12", "王阿姨家的狗叫什么", "unanswerable", [], "zh")
q("u13", "How many followers does my Xiaohongshu account have?", "unanswerable", [], "en")
q("u14", "健身房的私教是谁", "unanswerable", [], "zh")
q("u15", "去年冬天去哈尔滨看冰雕", "unanswerable", [], "zh")
q("u16", "What is my passport number?", "unanswerable", [], "en")
q("u17", "最喜欢的电影是哪部", "unanswerable", [], "zh")
q("u18", "Did I renew the car insurance with PICC?", "unanswerable", [], "en")
# t05: the car inspection happened 2026-03 (this year), so "去年的车检" is unanswerable too
for item in Q:
    if item["id"] == "t05":
        item["kind"] = "unanswerable"
data = {"description": "Second held-out set for issue 11, written after the changes of the second "
        "round (2026-12-01) and never tuned on: a freelance designer and translator in Chengdu, "
        "2026-03..2026-11, 40 new memories, 65 queries in Chinese and English (keyword, paraphrase, "
        "concept, cross-lingual, temporal) and 19 unanswerable ones (near misses: 爸爸's birthday "
        "when 妈妈's is stored; and things never stored).",
        "timezone": "Asia/Shanghai",
        "memories": [{"id": i, "content": c, "created_at": t, "tags": tg, "location": "general", "type": "fact"}
                     for i, c, t, tg in M],
        "queries": Q}
from pathlib import Path
json.dump(data, open(Path(__file__).with_name("new_queries_2.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=1)
import collections; print(len(M), len(Q), collections.Counter(x["kind"] for x in Q))
