"""Writes tests/data/time_cases_new.yaml: issue 11's batch of new cases, written
before the fix. Expected ranges follow the new convention, computed here by hand
rules (not by palace): N units ago = the day now - N units, widened by a tolerance
that grows with the unit: day 0, week/fortnight/half-month ±3 days, month/quarter/
half-year ±5 days, year ±7 days; calendar words (上个月, last month, 去年) keep the unit."""
from datetime import datetime, date, timedelta
import calendar, yaml
NOWS={"A":datetime(2026,3,18,10),"B":datetime(2026,11,30,14,30),"C":datetime(2026,1,5,9),"D":datetime(2026,3,22,20),
      "E":datetime(2026,7,20,9),"F":datetime(2024,2,29,12)}
TOL={"day":0,"week":3,"halfmonth":3,"month":5,"quarter":5,"halfyear":5,"year":7}
def add_months(d,n):
    m=d.month-1+n; y=d.year+m//12; m=m%12+1
    return date(y,m,min(d.day,calendar.monthrange(y,m)[1]))
def back(now,n,unit,direction=-1):
    d=now.date(); n=n*direction
    if unit=="day": p=d+timedelta(days=n)
    elif unit=="week": p=d+timedelta(days=7*n)
    elif unit=="halfmonth": p=d+timedelta(days=15*n)
    elif unit=="month": p=add_months(d,n)
    elif unit=="quarter": p=add_months(d,3*n)
    elif unit=="halfyear": p=add_months(d,6*n)
    elif unit=="year": p=add_months(d,12*n)
    t=TOL[unit]
    return p-timedelta(days=t), p+timedelta(days=t+1)
def iso(d): return d.isoformat()
cases=[]
def ago(q,n,unit,now="A",direction=-1,**kw):
    s,e=back(NOWS[now],n,unit,direction)
    c={"q":q,"start":iso(s),"end":iso(e)}
    if now!="A": c["now"]=now
    if direction>0: c["past"]=False
    c.update(kw); cases.append(c)
def fixed(q,s,e,now="A",**kw):
    c={"q":q,"start":s,"end":e}
    if now!="A": c["now"]=now
    c.update(kw); cases.append(c)
def none(q,now="A"):
    c={"q":q,"none":True}
    if now!="A": c["now"]=now
    cases.append(c)
# --- N days ago: still the day ---
for q,n in [("三天前",3),("5天前的日志",5),("十天前",10),("二十天前的会议",20),("4 days ago",4),("ten days ago",10),("3 days ago we deployed",3),("十五天前",15)]:
    ago(q,n,"day")
ago("两天前",2,"day",now="C"); ago("6 days ago",6,"day",now="B"); ago("七天前",7,"day",now="E")
# --- weeks ago: a point ±3 days ---
for now in "ABCDE":
    ago("两周前的周会",2,"week",now=now)
for q,n in [("一周前",1),("三周前讨论的方案",3),("一个星期前",1),("两个礼拜前",2),("四周前",4),("a week ago",1),("2 weeks ago",2),("three weeks ago",3),("a fortnight ago",2),("6 weeks ago",6),("五个星期前",5)]:
    ago(q,n,"week")
ago("two weeks ago",2,"week",now="B"); ago("一周前的复盘",1,"week",now="E"); ago("3 weeks ago",3,"week",now="F")
ago("半个月前",1,"halfmonth"); ago("half a month ago",1,"halfmonth",now="E"); ago("半个月前买的",1,"halfmonth",now="C")
# --- months ago: a point ±5 days ---
for now in "ABCDEF":
    ago("一个月前",1,"month",now=now)
for q,n in [("两个月前",2),("三个月前定的目标",3),("a month ago",1),("two months ago",2),("4 months ago",4),("八个月前",8),("11 months ago",11),("十个月前的体检",10)]:
    ago(q,n,"month")
ago("a month ago",1,"month",now="B"); ago("3 months ago",3,"month",now="C"); ago("两个月前",2,"month",now="E")
ago("一个季度前",1,"quarter"); ago("a quarter ago",1,"quarter",now="E")
# half a year
for now in "ABE":
    ago("半年前",1,"halfyear",now=now)
ago("半年前定的目标",1,"halfyear",now="C"); ago("six months ago",6,"month"); ago("half a year ago",1,"halfyear",now="B")
# --- years ago: a point ±7 days ---
for now in "ABCDEF":
    ago("一年前",1,"year",now=now)
for q,n in [("两年前",2),("三年前搬的家",3),("a year ago",1),("two years ago",2),("5 years ago",5),("十年前",10)]:
    ago(q,n,"year")
ago("a year ago",1,"year",now="E"); ago("一年前的今天",0,"day") if False else None
# --- ahead (future mirrors the past) ---
ago("两周后",2,"week",direction=1); ago("一个月后",1,"month",direction=1); ago("in two weeks",2,"week",direction=1) if False else None
ago("3 weeks from now",3,"week",direction=1); ago("三天后",3,"day",direction=1); ago("半年后",1,"halfyear",direction=1)
# --- calendar words keep the unit ---
fixed("上个月","2026-02-01","2026-03-01"); fixed("last month","2026-02-01","2026-03-01"); fixed("去年","2025-01-01","2026-01-01")
fixed("last year","2025-01-01","2026-01-01"); fixed("上周","2026-03-09","2026-03-16"); fixed("last week","2026-03-09","2026-03-16")
fixed("上上周","2026-03-02","2026-03-09"); fixed("前年","2024-01-01","2025-01-01"); fixed("上个月","2026-10-01","2026-11-01",now="B")
fixed("去年","2025-01-01","2026-01-01",now="C"); fixed("last month's invoices","2025-12-01","2026-01-01",now="C")
fixed("上个月的电费","2026-06-01","2026-07-01",now="E"); fixed("last year's offsite","2025-01-01","2026-01-01",now="E")
fixed("上个星期","2026-07-13","2026-07-20",now="E"); fixed("the month before last","2026-01-01","2026-02-01")
ago("两周以前",2,"week"); ago("三个月之前",3,"month"); ago("one year ago",1,"year",now="B")
ago("twelve days ago",12,"day"); ago("1 week ago",1,"week",now="D"); ago("两个月以前的账单",2,"month",now="B")
fixed("去年的今天","2025-03-18","2025-03-19"); fixed("a year ago today","2025-07-20","2025-07-21",now="E")
# --- not time expressions ---
for q in ["三个月大的小猫","一年级的数学","两周时间完成","半年度总结报告","三天的培训","a month of training","two weeks of vacation","一个月的工资"]:
    none(q)
import sys
doc={"nows":{k:v.strftime("%Y-%m-%d %H:%M") for k,v in NOWS.items()},"cases":cases}
header=__doc__.replace("\n","\n# ")
out="# "+header+"\n# Fields as in time_cases.yaml.\n"+yaml.safe_dump(doc,allow_unicode=True,sort_keys=False,default_flow_style=None,width=200)
open(__import__("pathlib").Path(__file__).resolve().parents[2]/"tests"/"data"/"time_cases_new.yaml","w",encoding="utf-8").write(out)
print(len(cases))
