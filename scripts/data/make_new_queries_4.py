"""Writes new_queries_4.json (issue 11, fourth round): a held-out set written while the
round's rules were built, blind to them, before palace was run on it. After its first score
one fix was chosen on it (docs/search-quality.md, "The honest figure of Round 4").

A new persona and topic: 郑颖 (Zheng Ying, "Ying"), 32, who runs a small bakery-café,
麦穗烘焙 (Maisui Bakery), in Xiamen's 沙坡尾: her husband 阿凯 (Kai), a marine engineer
away at sea for months; her brother 郑浩 in Shenzhen (wife 晓雯, daughter 朵朵); her
sister 郑琪 (Qi), a PhD student in Edinburgh (friend Tom); her parents in Quanzhou; staff
阿珍 (pastry), 小吴 (barista) and Lily (part-time); Ben, the coffee roaster's rep; the
corgi 可乐 (Cola); her friend 阿蔓 (Aman); bouldering, freediving, Japanese lessons.

52 memories (28 Chinese, 16 English, 8 mixed), 2025-10..2026-11, among them seven long ones
(a Hokkaido trip log, a Christmas-menu meeting note, a freediving course log, a quarterly
review with the accountant, and chat logs written "Name: text": 郑颖 and 郑浩 planning
their mother's 60th birthday, Ying and Qi about Christmas, Ying and Ben about coffee beans)
and two short chats. 107 queries in Chinese and English, 72 answerable: keyword,
paraphrase (few or no shared words), concept (a category whose instance is stored),
cross-lingual, temporal ("上个月", "两周前", "last spring", "a year ago"), 16 of them
multi-answer (2–3 relevant memories, under those kinds); and 35 unanswerable ones: near misses (the person and the topic are stored,
the asked fact is not: 郑琪's birthday when 朵朵's is stored; 阿珍's pay when 小吴's is; the
hotel's price when only the booking is; a Rational oven when a Sinmag is; a Honda when a
Polo is; the flat's deposit when the shop's is), speaker swaps in the chat logs (who brings
what, who proposed what) and things never stored. The relevance judgments are by hand, from
the memories' text: a memory is relevant when a careful reader would accept it as answering
the question (so a later note that restates an earlier fact counts too).
"""
import collections
import json
from pathlib import Path

NOW = "2026-11-27T15:00:00+08:00"  # a Friday

TRIP_LOG = """Hokkaido trip log, with Aman, February 15–21 (the bakery was closed for the Spring Festival).
Day 1: Xiamen – Shanghai Pudong – New Chitose, landed at 19:20 in heavy snow. Stayed at a small business hotel near Susukino, 9,800 yen a night for the two of us.
Day 2: Breakfast at Nijo market, a sea-urchin bowl for 3,800 yen, too expensive but worth it once. In the afternoon we found the bakery Donguri and I bought six of their chikuwa breads to study the crust: thin, crackly, a bit of mayonnaise on top.
Day 3: Otaru. Walked along the canal, Aman bought a music box that plays "Castle in the Sky" at the music box museum. Had the LeTAO double fromage cheesecake: two layers, baked and rare; I want to try a version for the shop next winter.
Day 4: Half-day beginner ski lesson in Niseko. The instructor was Josh, from New Zealand, very patient. I fell about twenty times; Aman did much better and went up the longer slope in the afternoon.
Day 5: Noboribetsu. Walked through Hell Valley in the steam, then a ryokan with an outdoor bath and a kaiseki dinner; the best night of the trip.
Day 6: Back to Sapporo, Shiroi Koibito Park, five boxes of cookies for Azhen, Xiao Wu and Lily.
Day 7: Flew home. My suitcase was 3 kg over because I brought back two 1-kg bags of Haruyutaka bread flour to test in our milk bread.
Spent about 14,000 yuan each in total."""

BIRTHDAY_CHAT = """郑浩：妹，妈 12 月 20 号六十大寿，你店里走得开吗？
郑颖：我 19 号回泉州，店交给阿珍看三天。
郑浩：好。我想在西街的侨乡大酒楼订两桌，一桌大概 2600。
郑颖：两桌够吗？舅舅一家就有六个人，还有姨妈他们。
郑浩：那订三桌。酒楼说 11 月底前要交 1000 块定金，我这周就去交。
郑颖：蛋糕我来做，做个三层的，妈喜欢芒果，就做芒果奶油的。
郑浩：别太甜，爸最近血糖有点高，医生让他少吃甜的。
郑颖：知道，我用淡奶油，糖减一半。礼物呢？我本来想给妈买个金手镯。
郑浩：我和晓雯已经给她买了一个玉镯了，你换个别的吧。
郑颖：那我送她一个足浴盆，她膝盖不好，晚上泡泡脚舒服。
郑浩：行。郑琪赶得回来吗？
郑颖：她 16 号到厦门，先在我这住几天，19 号跟我一起坐动车回去。
郑浩：太好了，全家总算能聚齐。朵朵说要给奶奶表演钢琴，弹《小星星》。
郑颖：哈哈，我一定给她录下来。菜单你定吧，记得点妈爱吃的土笋冻和面线糊。
郑浩：放心，再加一道姜母鸭，爸爱吃。
郑颖：酒席几点开始？
郑浩：中午十一点半，亲戚们上午先到爸妈家坐坐喝茶。
郑浩：晓雯问要不要请个摄影师，给全家拍张全家福。
郑颖：好主意，西街那边有家老照相馆，我回去问问。
郑浩：还有，爸的助听器最近老是啸叫，你回来帮他看看。
郑颖：可能是耳塞没塞好，我带他回配的那家店调一下。
郑颖：好，到时候我把蛋糕装在冷藏箱里带过去，路上一个多小时，应该没问题。"""

SISTER_CHAT = """Qi: Jie, I think I can come home for Christmas this year!
Ying: Really? When does your term end?
Qi: My last seminar is on December 12, and my supervisor says I can work remotely for three weeks.
Ying: Then come straight to Xiamen, and we'll go to Quanzhou together for Mum's birthday.
Qi: That's the plan. Should I bring anything?
Ying: Bring some proper Scottish shortbread, the Walkers ones. I want to compare it with ours.
Qi: Ha, research for the bakery. Sure. Anything for Mum?
Ying: She'd love a cashmere scarf, something in dark red.
Qi: I'll look in the Johnstons of Elgin shop on the Royal Mile.
Ying: How's the thesis going?
Qi: Chapter three is done. My supervisor wants more data from the tidal site in Orkney, so I'm going up there in October.
Ying: Wear something warm. Is Tom going with you?
Qi: No, Tom is flying to his parents' in Cork that week.
Ying: Tell him he's welcome in Xiamen any time.
Qi: He says he wants to learn to make mooncakes, actually.
Ying: Mid-Autumn is in ten days, I'll film Azhen making them and send you the video."""

BEN_CHAT = """Ben: Hi Ying, the new Ethiopia Yirgacheffe lot has arrived, washed process, very floral.
郑颖：多少钱一公斤？
Ben: 168 per kilo if you take 20 kg a month, 185 for smaller orders.
郑颖：我们现在每个月大概用 15 公斤，能不能也按 168 算？
Ben: I can do 172 for 15 kg. That's the best I can do this season.
郑颖：好，那先订三个月。烘焙度要浅一点，我们主要做手冲。
Ben: Light roast, noted. We roast every Monday and ship by SF the same day.
郑颖：上次那批哥伦比亚豆有点苦，是不是烘深了？
Ben: Possibly, that batch was roasted by our new guy. I'll add 2 kg free to your next order.
郑颖：谢谢！发票还是开增值税专票。
Ben: No problem, just send me your company's tax number again.
郑颖：等下发你。另外八月份我们想试一款低因的。
Ben: We have a Swiss Water decaf from Colombia, 198 per kilo. I'll send you a 500 g sample with the next box.
郑颖：好的，到了我让小吴试一下做拿铁的效果。"""

MENU_MEETING = """店里圣诞季会议纪要（11 月 18 日打烊后，参加：我、阿珍、小吴、Lily）
一、圣诞菜单：史多伦今年做 200 个（去年 120 个两天就卖完了），价格从 88 提到 98；新增意大利潘娜托尼，由阿珍负责试做，12 月 1 日前定配方；姜饼屋只接预订，每个 268 元，限量 30 个。
二、饮品：小吴提议上两款冬季特饮，肉桂燕麦拿铁和热红酒风味的无酒精果茶，定价分别是 32 和 28 元，下周三前做出样品给大家试喝。
三、人手：12 月 19 日到 21 日我回泉州给妈妈过六十大寿，店里由阿珍负责，Lily 周末多排两个班。12 月 24、25 日全员上班，这两天工资按 1.5 倍算。
四、包装：圣诞礼盒找之前印贴纸的那家印刷厂做 300 个牛皮纸盒，小吴这周去问价，预算控制在 3000 元以内。盒子里放一张手写卡片，Lily 来写英文的。
五、宣传：Lily 负责小红书和 Instagram，每周发三条；12 月 5 日开始接受史多伦预订，每个收 30 元定金，预订的客人 12 月 20 日以后来取。
六、设备：新烤箱的第三层温度比设定低 10 度左右，阿珍已经联系了新麦的售后，周五上门检查。冷库的门封条老化了，漏冷，要尽快换。
七、卫生：过敏原标识卡跟着圣诞新品一起更新，潘娜托尼和史多伦都要标明坚果和乳制品。
八、其他：圣诞节前后面粉和黄油的用量会翻倍，我这周和供应商确认库存；店门口的圣诞树和灯串 12 月 1 日前布置好。
下次会议：12 月 2 日打烊后。"""

DIVE_LOG = """东山岛自由潜 AIDA2 课程记录（8 月 6 日到 9 日）
教练是从台湾来的阿哲，同期学员还有两个从上海来的女生，一个是护士，一个是程序员。
第一天：上午理论课，学了呼吸放松、法兰佐耳压平衡、浮力和安全规则，下午笔试，满分 50 分我得了 44 分。然后在泳池练静态闭气，第一次只憋了 1 分 40 秒，第二次教练带着做了两分钟的放松呼吸，到了 2 分 35 秒，自己都不敢相信。
第二天：泳池动态，带脚蹼游了 42 米，不带脚蹼 25 米。中午在镇上吃了海鲜面线，很鲜，一碗 28 块。
第三天：第一次下海，在马銮湾外面的浮标下面拉绳下潜。耳压平衡一开始很不顺，左耳总是在 6 米左右卡住，教练让我慢一点、提前平衡、不要硬压，最后到了 14 米。上来以后左耳有点闷。
晚上教练讲了浅水黑视和缺氧抽搐的原理，反复强调永远不要一个人潜水，要一潜一看，伙伴在水面盯着。
第四天：考核：CWT 16 米，水面救援演练和水下救援都过了，拿到了 AIDA2 证书。
装备：面镜是自己在网上买的低容积面镜，199 元；配重带用的是潜店的，2 公斤。
花费：课程 3200 元，民宿四晚 880 元，租了一套 3mm 湿衣和长脚蹼 300 元，加上路费和吃饭，总共大概 5000 元。
感受：水下特别安静，除了心跳什么都听不到，比抱石还能让人放空。下一步想考 AIDA3，但得先把耳压练好，左耳从第三天起一直有点闷，回厦门要去看看医生。"""

QUARTER_REVIEW = """Quarterly review with Mr. Huang, our accountant, October 6, at the shop after closing.
Q3 (July to September) revenue: 286,000 yuan, up 12% on Q2. Meituan delivery brought in 41,000 of it, about 14%.
Costs for the quarter: rent 29,400; staff 61,000; ingredients 92,000 (butter and flour both up about 8%); utilities 9,800; packaging 6,200. Net profit roughly 58,000 before tax.
Best sellers: sea-salt rolls (about 3,100 sold), croissants (2,400), basque cheesecake slices (1,300). Worst: the matcha roll cake, 180 slices in three months, and we threw half of them away.
Decisions:
- Croissants go from 16 to 18 yuan from November 1; sea-salt rolls stay at 12.
- Drop the matcha roll cake. Azhen will try a hojicha version for the winter instead.
- Mr. Huang warned that we are close to the 300,000-a-quarter VAT exemption for small-scale taxpayers: if Q4 goes over it because of Christmas, the whole quarter's sales are taxed at 1%, not just the part above the line. We will track the monthly totals and talk again before December 15.
- Keep the receipts for the oven (the Sinmag, bought last November) for depreciation over five years.
- Next review in early January."""

M = [
 ("d01", "麦穗烘焙在沙坡尾的租约和房东陈伯续了三年，月租 9800，每年涨 3%，押金两个月。", "2025-10-12T20:00:00+08:00", ["店铺"]),
 ("d02", "Ordered a Sinmag three-deck oven for the bakery: 46,000 yuan including installation, delivered before December 15.", "2025-11-20T16:00:00+08:00", ["bakery"]),
 ("d03", "可乐（家里的柯基）在瑞派宠物医院打了狂犬疫苗和八联疫苗，下次要到 2027 年 1 月。", "2026-01-08T18:00:00+08:00", ["宠物"]),
 ("d04", "哥哥郑浩的女儿朵朵 4 月 12 号过五岁生日，她说想要一套 48 色的水彩笔。", "2026-03-15T21:00:00+08:00", ["家人"]),
 ("d05", "Qi's UK student visa was extended to September 2027; she is staying in Edinburgh to finish her PhD on tidal energy.", "2026-04-02T22:00:00+08:00", ["family"]),
 ("d06", "妈妈膝关节骨性关节炎，泉州正骨医院的医生建议先打玻璃酸钠，一个疗程五针，每周一针。", "2025-10-28T20:00:00+08:00", ["家人", "健康"]),
 ("d07", "Kai's ship, the container vessel Ocean Lark, leaves Xiamen on December 10 for Rotterdam; he'll be away about four months.", "2025-12-03T21:00:00+08:00", ["family"]),
 ("d08", "报名了 12 月 6 号的日语能力考 N3，考点在厦门大学思明校区，报名费 550 元。", "2026-09-05T22:00:00+08:00", ["学习"]),
 ("d09", TRIP_LOG, "2026-02-21T23:00:00+08:00", ["travel"]),
 ("d10", BIRTHDAY_CHAT, "2026-11-08T21:30:00+08:00", ["家人"]),
 ("d11", SISTER_CHAT, "2026-09-14T22:00:00+08:00", ["family"]),
 ("d12", BEN_CHAT, "2026-07-22T15:00:00+08:00", ["店铺", "coffee"]),
 ("d13", MENU_MEETING, "2026-11-18T22:30:00+08:00", ["店铺"]),
 ("d14", DIVE_LOG, "2026-08-10T21:00:00+08:00", ["运动"]),
 ("d15", QUARTER_REVIEW, "2026-10-06T22:00:00+08:00", ["bakery", "finance"]),
 ("d16", "咖啡师小吴的工资从 9 月起涨到 6500，另外每月有 300 的全勤奖。", "2026-09-03T19:00:00+08:00", ["店铺"]),
 ("d17", "The dermatologist at Zhongshan Hospital said the rash on my hands is contact dermatitis from the dish soap: wear nitrile gloves and use the hydrocortisone cream for one week only.", "2026-05-09T12:00:00+08:00", ["health"]),
 ("d18", "办了湖滨北路那家岩馆的抱石年卡，3600 元，每周一、周五晚上去，现在能爬 V3 了。", "2026-04-25T22:00:00+08:00", ["运动"]),
 ("d19", "陪爸爸配了一副助听器，西门子的，两只耳朵一共一万二，医保不报。", "2026-07-05T17:00:00+08:00", ["家人", "健康"]),
 ("d20", "Our Christmas stollen sold out in two days: 120 loaves at 88 yuan each. Next year bake at least 200.", "2025-12-19T21:00:00+08:00", ["bakery"]),
 ("d21", "店里的食品经营许可证办了延续，市场监管局说 15 个工作日出证，新证有效期到 2031 年 2 月。", "2026-02-03T11:00:00+08:00", ["店铺"]),
 ("d22", "可乐 check-up: 13.5 kg, a bit overweight. 兽医说每天的狗粮减到 180 克，多带它散步。", "2026-06-02T19:00:00+08:00", ["宠物"]),
 ("d23", "Bought a second-hand Volkswagen Polo from a neighbour for 38,000 yuan; the PICC car insurance is 3,100 a year.", "2026-05-24T17:00:00+08:00", ["car"]),
 ("d24", "订了泉州西街附近的古厝客栈两晚（12 月 19 日到 21 日），爸妈家住不下，妈妈过生日那几天住这里。", "2026-10-15T22:00:00+08:00", ["旅行", "家人"]),
 ("d25", "黄油换成了 Anchor unsalted, 25 kg blocks，福建的经销商报价 62 元一公斤。", "2026-11-02T16:00:00+08:00", ["店铺"]),
 ("d26", "阿凯又上船了，这次升了大管轮，合同九个月，跑亚洲到地中海的航线。", "2026-08-25T20:00:00+08:00", ["家人"]),
 ("d27", "给店里买了人保的财产险和公众责任险，一年一共 4200 元。", "2026-01-20T15:00:00+08:00", ["店铺"]),
 ("d28", "找了个日语家教 Sato-sensei on italki，每周二、周四晚上 8 点，一节课 140 元。", "2026-09-22T21:00:00+08:00", ["学习"]),
 ("d29", "体检发现缺铁性贫血，铁蛋白只有 8，医生开了多糖铁复合物胶囊，每天一粒，三个月后复查。", "2026-08-26T12:00:00+08:00", ["健康"]),
 ("d30", "Kai and I moved into the flat on Daxue Road: rent 5,200 a month, landlady Mrs. Su, lease until October 2027.", "2025-11-05T20:00:00+08:00", ["home"]),
 ("d31", "店里意式咖啡机的冲煮头漏水，维修师傅换了密封圈和分水网，收了 260 元。", "2026-10-22T18:00:00+08:00", ["店铺"]),
 ("d32", "Passed the food-safety inspection with an A rating; the inspector asked us to list allergens on the display cards.", "2026-06-27T16:00:00+08:00", ["bakery"]),
 ("d33", "哥哥郑浩换工作去了大疆，做飞控测试，一家人从福田搬到了南山区。", "2026-07-30T21:00:00+08:00", ["家人"]),
 ("d34", "新来的兼职 Lily 是厦大的交换生, from Melbourne，周末来店里帮忙收银，时薪 25 元。", "2026-03-03T19:00:00+08:00", ["店铺"]),
 ("d35", "跨年夜和阿蔓去看了五月天的演唱会 at 白鹭体育场，唱到《倔强》的时候全场大合唱, best New Year's Eve ever.", "2025-12-31T23:50:00+08:00", ["朋友"]),
 ("d36", "ENT doctor: mild barotrauma in my left ear from the freediving course; no diving or flying for three weeks, nasal spray twice a day.", "2026-08-30T11:00:00+08:00", ["health"]),
 ("d37", "今天店里办了第一次面包课，来了十个人，每人 198 元，教做恰巴塔，大家都说下次还来。", "2026-11-21T18:00:00+08:00", ["店铺"]),
 ("d38", "Qi booked her flight home: Edinburgh – Amsterdam – Xiamen on KLM, landing in Xiamen on December 16 at 11:40.", "2026-11-12T20:00:00+08:00", ["family"]),
 ("d39", "可乐被邻居家的猫抓伤了鼻子，宠物医院开了莫匹罗星软膏，一天涂两次。", "2026-05-28T20:00:00+08:00", ["宠物"]),
 ("d40", "黄会计说店里是小规模纳税人，季度销售额不超过 30 万就免增值税。", "2026-09-10T17:00:00+08:00", ["店铺", "财务"]),
 ("d41", "Recipe note: our sourdough starter, Mochi, is fed 1:5:5 at 28°C twice a day; the rye flour comes from a mill in Harbin.", "2026-01-30T07:00:00+08:00", ["bakery"]),
 ("d42", "今年春节和阿蔓去北海道，回不了泉州，提前给爸妈买了一台奥佳华按摩椅，8999 元，直接送到家。", "2026-02-10T21:00:00+08:00", ["家人"]),
 ("d43", "国庆参加了鼓浪屿的 10K 夜跑, finished in 58:30, 个人最好成绩！", "2026-10-03T22:00:00+08:00", ["运动"]),
 ("d44", "开始用《标准日本语》初级上册自学日语，每天早上开店前背 20 个单词。", "2025-10-20T07:30:00+08:00", ["学习"]),
 ("d45", "The Haier washing machine in the flat stopped draining; the technician pulled a sock out of the drain pump and charged 150 yuan.", "2026-07-12T19:00:00+08:00", ["home"]),
 ("d46", "端午节店里做了绿豆糕和碱水粽，两天卖了 300 多个，碱水粽最受欢迎。", "2026-06-20T21:00:00+08:00", ["店铺"]),
 ("d47", "阿蔓 is moving to Shanghai in November for a job at an ad agency; 周六在沙茶小馆给她饯行。", "2026-09-30T22:00:00+08:00", ["朋友"]),
 ("d48", "复查：铁蛋白升到 35，血红蛋白也正常了，医生说多糖铁再吃一个月就可以停。", "2026-11-25T12:00:00+08:00", ["健康"]),
 ("d49", "店里上线了美团外卖，平台抽成 18%，只上架面包和饼干，蛋糕不外送。", "2026-03-20T16:00:00+08:00", ["店铺"]),
 ("d50", "Closed the bakery for the National Day week and repainted the front in sage green; the new sign says Maisui Bakery in Chinese and English.", "2025-10-05T18:00:00+08:00", ["bakery"]),
 ("d51", "阿凯：船到鹿特丹了，这边零下两度。\n郑颖：多穿点！可乐天天趴在门口等你。\n阿凯：四月初回来，给你带荷兰的焦糖华夫饼。", "2026-01-14T07:00:00+08:00", ["家人"]),
 ("d52", "Lily: Can I swap my Saturday shift for Sunday next week? 我有期中考试。\n郑颖：可以，问问小吴能不能顶周六上午。\nLily: He said yes, thanks!", "2026-10-29T20:00:00+08:00", ["店铺"]),
]
Q = []


def q(i, text, kind, rel, lang):
    Q.append({"id": i, "query": text, "now": NOW, "relevant": rel, "kind": kind, "lang": lang})


# keyword: the memory's own words
q("k01", "Sinmag oven price", "keyword", ["d02"], "en")
q("k02", "可乐的狂犬疫苗下次什么时候打", "keyword", ["d03"], "zh")
q("k03", "朵朵的生日", "keyword", ["d04"], "zh")
q("k04", "玻璃酸钠一个疗程几针", "keyword", ["d06"], "zh")
q("k05", "N3 考点在哪", "keyword", ["d08"], "zh")
q("k06", "When does the Ocean Lark leave for Rotterdam?", "keyword", ["d07"], "en")
q("k07", "抱石年卡多少钱", "keyword", ["d18"], "zh")
q("k08", "How many stollen did we sell last Christmas?", "keyword", ["d20", "d13"], "en")
q("k09", "食品经营许可证有效期到什么时候", "keyword", ["d21"], "zh")
q("k10", "Anchor butter price per kilo", "keyword", ["d25"], "en")
q("k11", "italki 日语课一节多少钱", "keyword", ["d28"], "mixed")
q("k12", "碱水粽卖了多少", "keyword", ["d46"], "zh")
q("k13", "How long should I use the hydrocortisone cream?", "keyword", ["d17"], "en")
q("k14", "美团外卖抽成多少", "keyword", ["d49"], "zh")
q("k15", "妈妈生日那几天店里谁管", "keyword", ["d10", "d13"], "zh")
q("k16", "季度销售额多少以内免增值税", "keyword", ["d40", "d15"], "zh")
q("k17", "学日语的安排", "keyword", ["d44", "d28", "d08"], "zh")
# paraphrase: few or no shared words
q("p01", "家里那只胖墩每天该喂多少", "paraphrase", ["d22"], "zh")
q("p02", "开店的铺面每个月要付多少", "paraphrase", ["d01", "d15"], "zh")
q("p03", "我妈腿脚不好，医生给的治疗方案", "paraphrase", ["d06"], "zh")
q("p04", "老爸耳朵背，配的那个东西花了多少", "paraphrase", ["d19"], "zh")
q("p05", "在水里不换气能坚持多久", "paraphrase", ["d14"], "zh")
q("p06", "哥哥跳槽去了哪家公司", "paraphrase", ["d33"], "zh")
q("p07", "调饮品的同事现在一个月拿多少钱", "paraphrase", ["d16"], "zh")
q("p08", "补血的药什么时候能停", "paraphrase", ["d48"], "zh")
q("p09", "下海憋气那门课一共花了多少", "paraphrase", ["d14"], "zh")
q("p10", "过节限定的喝的打算卖多少", "paraphrase", ["d13"], "zh")
q("p11", "送餐软件拿走多少提成", "paraphrase", ["d49"], "zh")
q("p12", "How often do we top up the bread culture?", "paraphrase", ["d41"], "en")
q("p13", "What went wrong with the laundry appliance at home?", "paraphrase", ["d45"], "en")
q("p14", "When did the storefront get a makeover?", "paraphrase", ["d50"], "en")
# concept: the query names a kind (or a relation), the memory an instance
q("c01", "宠物的看病记录", "concept", ["d03", "d22", "d39"], "zh")
q("c02", "家里的电器出过什么毛病", "concept", ["d45"], "zh")
q("c03", "我参加过什么水上运动", "concept", ["d14", "d36"], "zh")
q("c04", "乳制品从哪进货", "concept", ["d25"], "zh")
q("c05", "店里的证照什么时候到期", "concept", ["d21"], "zh")
q("c06", "买了哪些保险", "concept", ["d27", "d23"], "zh")
q("c07", "侄女几岁了", "concept", ["d04"], "zh")
q("c08", "Have I had any skin problems?", "concept", ["d17"], "en")
q("c09", "Did my sister have to renew any immigration documents?", "concept", ["d05"], "en")
q("c10", "Which of my relatives work in tech?", "concept", ["d33"], "en")
q("c11", "去年看过什么演出", "temporal+concept", ["d35"], "zh")
# cross-lingual: zh question, en memory, and back
q("x01", "从北海道带回来的面粉是什么", "cross-lingual", ["d09"], "zh")
q("x02", "教我滑雪的教练是哪国人", "cross-lingual", ["d09"], "zh")
q("x03", "手上起疹子，医生说是什么原因", "cross-lingual", ["d17"], "zh")
q("x04", "从邻居那买的车是什么牌子", "cross-lingual", ["d23"], "zh")
q("x05", "妹妹的签证延到什么时候", "cross-lingual", ["d05"], "zh")
q("x06", "How much was the JLPT registration fee?", "cross-lingual", ["d08"], "en")
q("x07", "How much did Dad's hearing aids cost?", "cross-lingual", ["d19"], "en")
q("x08", "When is Cola's next rabies shot?", "cross-lingual", ["d03"], "en")
q("x09", "Where did my brother move for his new job?", "cross-lingual", ["d33"], "en")
q("x10", "卫生检查评了几级", "cross-lingual", ["d32"], "zh")
q("x11", "我们住的公寓租约到哪年", "cross-lingual", ["d30"], "zh")
q("x12", "What winter drinks did Xiao Wu propose?", "cross-lingual", ["d13"], "en")
q("x13", "潜完水耳朵不舒服是怎么回事", "cross-lingual", ["d14", "d36"], "zh")
q("x14", "我和阿蔓一起去哪旅行过", "cross-lingual", ["d09", "d42"], "zh")
q("x15", "When will my sister land in Xiamen?", "cross-lingual", ["d38", "d10"], "en")
q("x16", "Which prices did we raise at the bakery?", "cross-lingual", ["d15", "d13"], "en")
# temporal (now: Friday 2026-11-27; last week = 11-16..11-22, last month = October)
q("t01", "上个月修了什么东西", "temporal", ["d31"], "zh")
q("t02", "两周前妹妹订的航班几点落地", "temporal", ["d38"], "zh")
q("t03", "What did I do for exercise last spring?", "temporal", ["d18"], "en")
q("t04", "去年冬天店里什么卖断货了", "temporal", ["d20", "d13"], "zh")
q("t05", "三个月前体检查出了什么问题", "temporal", ["d29"], "zh")
q("t06", "半年前买的车花了多少钱", "temporal", ["d23"], "zh")
q("t07", "What did I buy for the bakery about a year ago?", "temporal", ["d02", "d15"], "en")
q("t08", "上周末店里那个课来了几个人", "temporal", ["d37"], "zh")
q("t09", "今年夏天学了什么新本事", "temporal", ["d14", "d36"], "zh")
q("t10", "去年十月开始学的东西", "temporal", ["d44"], "zh")
q("t11", "What happened with Kai last winter?", "temporal", ["d07", "d51"], "en")
q("t12", "这周复查的结果怎么样", "temporal", ["d48"], "zh")
q("t13", "春节前给爸妈买的东西", "temporal", ["d42"], "zh")
q("t14", "九月份谁涨工资了", "temporal", ["d16"], "zh")
# unanswerable, Chinese: near misses (the person and the topic are stored, the fact is not)
q("u01", "郑琪的生日是哪天", "unanswerable", [], "zh")          # 朵朵's and 妈妈's are stored
q("u02", "阿珍的工资多少", "unanswerable", [], "zh")            # only 小吴's
q("u03", "磨豆机修了多少钱", "unanswerable", [], "zh")          # the espresso machine was repaired
q("u04", "泉州那家客栈多少钱一晚", "unanswerable", [], "zh")    # booked, no price
q("u05", "AIDA3 课程什么时候开始", "unanswerable", [], "mixed")  # only "next I want AIDA3"
q("u06", "可乐做过绝育吗", "unanswerable", [], "zh")
q("u07", "圣诞礼盒印刷厂报价多少", "unanswerable", [], "zh")    # only the budget
q("u08", "姜饼屋由谁来做", "unanswerable", [], "zh")
q("u09", "嫂子晓雯在哪上班", "unanswerable", [], "zh")
q("u10", "本田飞度的保险一年多少", "unanswerable", [], "zh")    # a Polo is stored
q("u11", "肯尼亚的豆子多少钱一公斤", "unanswerable", [], "zh")  # Yirgacheffe and a Colombian decaf
# unanswerable, Chinese: speaker swaps in the chat logs and the trip log
q("u12", "郑浩要给妈妈做什么蛋糕", "unanswerable", [], "zh")    # 郑颖 makes the cake
q("u13", "阿蔓滑雪摔了几次", "unanswerable", [], "zh")          # I fell about twenty times
q("u14", "我要从荷兰给阿凯带什么", "unanswerable", [], "zh")    # Kai brings the waffles
# unanswerable, Chinese: never stored
q("u15", "店里的 WiFi 密码是多少", "unanswerable", [], "zh")
q("u16", "我的血型是什么", "unanswerable", [], "zh")
# unanswerable, English: near misses
q("u17", "What does Tom do for a living?", "unanswerable", [], "en")
q("u18", "How much was Qi's flight?", "unanswerable", [], "en")          # booked, no price
q("u19", "When is my brother's birthday?", "unanswerable", [], "en")     # his daughter's is stored
q("u20", "How much did the Rational combi oven cost?", "unanswerable", [], "en")  # a Sinmag is stored
q("u21", "When is Cola due for deworming?", "unanswerable", [], "en")    # only the vaccines
q("u22", "What's the deposit on our flat on Daxue Road?", "unanswerable", [], "en")  # the shop's is stored
q("u23", "How much did the ski lesson in Niseko cost?", "unanswerable", [], "en")
q("u24", "How much does Kai earn now?", "unanswerable", [], "en")
q("u25", "How many knee injections has Mum had so far?", "unanswerable", [], "en")
q("u26", "What's my half-marathon time?", "unanswerable", [], "en")     # a 10K is stored
q("u27", "When is Tom visiting Xiamen?", "unanswerable", [], "en")
q("u28", "How many people signed up for the croissant workshop?", "unanswerable", [], "en")  # a ciabatta class
q("u29", "Lily 在厦大读什么专业", "unanswerable", [], "mixed")
# unanswerable, English: speaker swaps
q("u30", "What sample did I send to Ben?", "unanswerable", [], "en")       # Ben sends the sample
q("u31", "What did Qi ask me to bring her from Xiamen?", "unanswerable", [], "en")  # I asked her
q("u32", "What winter drinks did Azhen propose?", "unanswerable", [], "en")  # Xiao Wu proposed them
# unanswerable, English: never stored
q("u33", "Where do I keep the spare key to the shop?", "unanswerable", [], "en")
q("u34", "Which yoga studio do I go to?", "unanswerable", [], "en")
q("u35", "What's Ben's phone number?", "unanswerable", [], "en")

data = {"description": "Fourth held-out set for issue 11, written while the fourth round's rules were built "
        "(2026-12-01) by a helper that read none of the ranking or floor rules, before palace was "
        "run on it; after its first score one fix was chosen on it (dialogue turn scores on the "
        "memories' scale, docs/search-quality.md): a bakery-café owner in Xiamen, 2025-10..2026-11, 52 new "
        "memories (28 zh, 16 en, 8 mixed; seven long ones: a trip log, a meeting note, a course "
        "log, a quarterly review and three chat logs, plus two short chats), 107 queries in "
        "Chinese and English: 72 answerable (keyword, paraphrase, concept, cross-lingual, "
        "temporal; 16 with 2-3 relevant memories) and 35 unanswerable ones (near misses, speaker swaps, things never stored).",
        "timezone": "Asia/Shanghai",
        "memories": [{"id": i, "content": c, "created_at": t, "tags": tg, "location": "general", "type": "fact"}
                     for i, c, t, tg in M],
        "queries": Q}

if __name__ == "__main__":
    json.dump(data, open(Path(__file__).with_name("new_queries_4.json"), "w", encoding="utf-8"),
              ensure_ascii=False, indent=1)
    print(len(M), len(Q), collections.Counter(x["kind"] for x in Q),
          collections.Counter(x["lang"] for x in Q),
          collections.Counter(x["lang"] for x in Q if x["kind"] == "unanswerable"),
          sum(len(x["relevant"]) > 1 for x in Q), "multi-answer")
