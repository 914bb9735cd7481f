"""Word lists extraction reads: who a kin word names, what a job title looks like, which
words are times, verbs or commands and so never a person. One list per fact; the rule
tables (``rules_zh``, ``rules_en``) and the entity typing read them from here."""

from __future__ import annotations

import re

# kin and relation nouns -> (predicate of the user's relation to that person, kind)
KIN_ZH: dict[str, tuple[str, str | None]] = {
    "老婆": ("partner", None), "妻子": ("partner", None), "太太": ("partner", None), "爱人": ("partner", None),
    "老公": ("partner", None), "丈夫": ("partner", None), "先生": ("partner", None), "女朋友": ("partner", None),
    "男朋友": ("partner", None), "对象": ("partner", None), "未婚妻": ("partner", None), "未婚夫": ("partner", None),
    "女儿": ("family", "daughter"), "儿子": ("family", "son"), "哥哥": ("family", "brother"),
    "哥": ("family", "brother"), "姐姐": ("family", "sister"), "姐": ("family", "sister"),
    "弟弟": ("family", "brother"), "弟": ("family", "brother"), "妹妹": ("family", "sister"),
    "妹": ("family", "sister"), "表哥": ("family", "cousin"), "表姐": ("family", "cousin"),
    "表弟": ("family", "cousin"), "表妹": ("family", "cousin"), "堂哥": ("family", "cousin"),
    "堂姐": ("family", "cousin"), "堂弟": ("family", "cousin"), "堂妹": ("family", "cousin"),
    "爸爸": ("family", "father"), "爸": ("family", "father"), "父亲": ("family", "father"),
    "妈妈": ("family", "mother"), "妈": ("family", "mother"), "母亲": ("family", "mother"),
    "爷爷": ("family", "grandfather"), "奶奶": ("family", "grandmother"), "外公": ("family", "grandfather"),
    "外婆": ("family", "grandmother"), "叔叔": ("family", "uncle"), "阿姨": ("family", "aunt"),
    "舅舅": ("family", "uncle"), "姑姑": ("family", "aunt"), "父母": ("family", "parents"),
    "室友": ("friend", None), "朋友": ("friend", None), "好朋友": ("friend", None), "闺蜜": ("friend", None),
    "好友": ("friend", None), "发小": ("friend", None), "哥们": ("friend", None), "同学": ("friend", None),
    "同事": ("colleague", None), "搭档": ("colleague", None), "合伙人": ("colleague", None),
    "老板": ("reports_to", None), "领导": ("reports_to", None), "上司": ("reports_to", None),
    "直属领导": ("reports_to", None), "主管": ("reports_to", None), "老大": ("reports_to", None),
    "组长": ("reports_to", None), "经理": ("reports_to", None), "leader": ("reports_to", None),
    "导师": ("advisor", None),
}
# the kin words that name a relative (an unnamed relative is a subject of its own)
RELATIVES_ZH = frozenset(w for w, (p, _k) in KIN_ZH.items() if p in ("partner", "family"))

KIN_EN: dict[str, tuple[str, str | None]] = {
    "wife": ("partner", None), "husband": ("partner", None), "girlfriend": ("partner", None),
    "boyfriend": ("partner", None), "partner": ("partner", None), "fiancee": ("partner", None),
    "fiancée": ("partner", None), "fiance": ("partner", None), "fiancé": ("partner", None),
    "spouse": ("partner", None),
    "daughter": ("family", "daughter"), "son": ("family", "son"), "sister": ("family", "sister"),
    "brother": ("family", "brother"), "mom": ("family", "mother"), "mum": ("family", "mother"),
    "mother": ("family", "mother"), "dad": ("family", "father"), "father": ("family", "father"),
    "cousin": ("family", "cousin"), "aunt": ("family", "aunt"), "uncle": ("family", "uncle"),
    "grandma": ("family", "grandmother"), "grandmother": ("family", "grandmother"),
    "grandpa": ("family", "grandfather"), "grandfather": ("family", "grandfather"),
    "parents": ("family", "parents"), "niece": ("family", "niece"), "nephew": ("family", "nephew"),
    "friend": ("friend", None), "best friend": ("friend", None), "roommate": ("friend", None),
    "flatmate": ("friend", None), "buddy": ("friend", None),
    "coworker": ("colleague", None), "co-worker": ("colleague", None), "colleague": ("colleague", None),
    "cofounder": ("colleague", None), "co-founder": ("colleague", None), "teammate": ("colleague", None),
    "manager": ("reports_to", None), "boss": ("reports_to", None), "supervisor": ("reports_to", None),
    "team lead": ("reports_to", None), "lead": ("reports_to", None),
    "advisor": ("advisor", None), "adviser": ("advisor", None), "phd advisor": ("advisor", None),
}
RELATIVES_EN = frozenset(w for w, (p, _k) in KIN_EN.items() if p in ("partner", "family"))

PERSON_OBJECTS = frozenset({"partner", "family", "friend", "colleague", "reports_to", "advisor", "name"})

# job titles in Chinese end in one of these (产品经理, 数据工程师, 医生, 实习生, 法务)
JOB_SUFFIXES_ZH = ("经理", "工程师", "设计师", "架构师", "分析师", "会计师", "律师", "医生", "医师", "护士",
                   "老师", "教师", "教授", "讲师", "总监", "专家", "主管", "组长", "实习生", "研究员", "科学家",
                   "程序员", "开发", "运营", "策划", "产品", "设计", "测试", "法务", "财务", "会计", "审计",
                   "顾问", "记者", "编辑", "作家", "厨师", "司机", "警察", "店长", "主播", "销售", "HR",
                   "hr", "CTO", "CEO", "cto", "ceo", "负责人", "专员", "助理", "学生", "博士生", "研究生",
                   "公务员", "工人", "师")
# an English job title ends in one of these ("data engineer", "PM", "sous chef")
JOB_HEADS_EN = frozenset({
    "engineer", "developer", "dev", "designer", "manager", "pm", "lead", "scientist", "analyst", "teacher", "nurse",
    "doctor", "vet", "veterinarian", "chef", "cook", "student", "intern", "consultant", "architect", "researcher",
    "writer", "editor", "accountant", "lawyer", "attorney", "electrician", "plumber", "pediatrician", "physician",
    "surgeon", "dentist", "pharmacist", "therapist", "sre", "founder", "cofounder", "co-founder", "cto", "ceo",
    "cfo", "coo", "vp", "director", "officer", "specialist", "administrator", "admin", "technician", "programmer",
    "professor", "lecturer", "coach", "pilot", "artist", "musician", "photographer", "marketer", "recruiter",
    "journalist", "reporter", "translator", "paramedic", "firefighter", "mechanic", "carpenter", "barista",
    "bartender", "cashier", "clerk", "secretary", "assistant", "tutor", "librarian", "economist", "auditor",
    "banker", "trader", "broker", "salesperson", "rep", "representative", "owner", "contractor", "freelancer",
    "scrum master", "product owner", "head", "principal", "postdoc", "resident", "psychologist", "counselor",
    "social worker", "waiter", "waitress", "driver", "farmer", "soldier", "police officer", "judge",
    "illustrator", "animator", "producer", "actor", "actress", "dancer", "singer", "composer", "planner",
    "strategist", "hr", "tester", "qa", "devops", "sysadmin", "dba", "statistician", "biologist",
    "chemist", "physicist", "mathematician", "historian", "curator", "optometrist", "midwife", "caregiver",
    "nanny", "homemaker", "retiree", "phd student", "undergrad", "grad student", "apprentice", "trainee"})
LEADER_ROLES = frozenset({"组长", "负责人", "主管", "leader", "lead", "head", "经理", "总监", "tech lead",
                          "team lead", "manager"})
TEAM_SUFFIXES = ("团队", "小组", "组", "部门", "事业部", "中心", "team", "squad")
PROJECT_SUFFIXES = ("项目", "project")
SPECIES_ZH = ("猫", "狗", "猫咪", "小猫", "小狗", "狗狗", "柯基", "柴犬", "金毛", "哈士奇", "泰迪", "布偶",
              "英短", "兔子", "仓鼠", "鹦鹉", "乌龟", "鱼", "边牧", "拉布拉多", "橘猫")
SPECIES_EN = ("cat", "cats", "dog", "dogs", "puppy", "kitten", "parrot", "rabbit", "bunny", "hamster",
              "turtle", "tortoise", "corgi", "golden retriever", "retriever", "labrador", "poodle",
              "beagle", "husky", "goldfish", "fish", "gecko", "snake", "guinea pig", "ferret")
DIETS_ZH = ("素食", "纯素", "吃素", "蛋奶素", "生酮")
DIETS_EN = ("vegan", "vegetarian", "pescatarian", "keto", "gluten-free", "plant-based")
PROVINCES_ZH = ("河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建", "江西", "山东", "河南",
                "湖北", "湖南", "广东", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古",
                "广西", "西藏", "宁夏", "新疆")

# Chinese surnames (the common single ones and the compound ones): a bare 2-3 character
# word is taken for a name only when it starts with one
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
    "常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季"
    "裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦"
    "戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻"
    "苑迟邝封钮")
COMPOUND_SURNAMES = ("欧阳", "司马", "诸葛", "上官", "慕容", "东方", "皇甫", "尉迟", "公孙", "令狐", "长孙",
                     "宇文", "司徒", "夏侯", "端木")
NAME_TITLES_ZH = ("总", "老师", "教授", "博士", "经理", "医生", "工", "哥", "姐")

# never a person, whatever a tagger says: time words and the like
TIME_WORD_ZH = re.compile(
    r"^(?:[上下这本前后今明昨去]*(?:个)?(?:周|星期|礼拜|月|年|天|号|日)[一二三四五六七日天末0-9]*|"
    r"周[一二三四五六日末]|星期[一二三四五六日天]|[一二三四五六七八九十0-9]+(?:月|号|日|点|年|天|岁)|"
    r"白天|晚上|早上|上午|下午|中午|傍晚|凌晨|今天|明天|昨天|后天|前天|马上|现在|刚才|最近|以后|以前)")
MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
             "October", "November", "December")
WEEKDAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# capitalised words that open a sentence without being a name (and pronouns, articles)
NOT_NAMES_EN = frozenset({
    "I", "The", "A", "An", "We", "He", "She", "They", "It", "My", "Our", "Your", "His", "Her", "Their",
    "This", "That", "These", "Those", "Today", "Yesterday", "Tomorrow", "If", "When", "And", "But", "Or",
    "So", "Also", "Then", "Next", "Now", "Just", "Please", "Let", "Maybe", "Sorry", "Yes", "No", "Ok",
    "Okay", "Thanks", "Hi", "Hello", "Btw", "Anyway", "Well", "Oh", "Actually", "Here", "There", "What",
    "Why", "How", "Where", "Who", "Which", "Can", "Could", "Would", "Should", "Did", "Do", "Does",
    "Is", "Are", "Was", "Were", "Have", "Has", "Had", "Add", "Move", "Edit", "Read", "Run", "Write", "Ping", "Fix", "Make", "Check", "Open", "Use", "Remove", "Delete", "Update", "Create", "Set",
    "Try", "Start", "Stop", "Show", "Find", "Look", "Keep", "Put", "Get", "Go", "Tell", "Ask", "Give",
    "Send", "Test", "Call", "Bash", "Yeah", "Yep", "Wow", "Cool", "Great", "Sure", "Hey", "Hmm", "Right",
    "Perfect", "Awesome", "Nice", "Oops", "Ugh", "Alright", "Thank", "Sounds", "Good", "Interesting", "Plus", "Error", "Warning", "Note", "Todo", "Done", "Step", "Timeouts",
    *MONTHS_EN, *WEEKDAYS_EN, *(day + "s" for day in WEEKDAYS_EN)})
# what follows a Chinese name in a sentence about that person (张伟说…, 王芳也…)
PERSON_CONTEXT_ZH = ("说", "觉得", "认为", "问", "告诉", "提醒", "和我", "跟我", "是我", "也", "还", "今天", "昨天",
                     "明天", "刚", "已经", "正在", "最近", "老师", "同学", "他", "她")
REPORTING_VERBS_EN = ("said", "says", "told", "asked", "asks", "thinks", "thought", "mentioned", "wrote",
                      "replied", "suggested", "wants", "called")
