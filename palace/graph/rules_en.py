"""How English states a fact: one row per phrasing, tried in order, first match wins.

The same template language as ``rules_zh`` (read its docstring): a row is matched at
the start of what follows a clause's subject, once contractions are spelled out ("I'm"
→ "I am", "doesn't" → "does not", "Kenji's a chef" → "Kenji is a chef") and adverbs
(just, really, mostly, now…) are skipped. ``{slot}`` is the object filling that slot,
``{-slot}`` the value a change ends. An object ends at a word that starts what the
sentence says next (at, in, for, with, and, now…): after the row, that rest is read as
*trailers* (" at Netflix" after a role: works_at; " in Sydney": works_in; " as a PM"
after joining: role; " on the Orion project": works_on) or as a further clause
("… and reports to Tom").

Flags as in ``rules_zh``; also ``colleague`` (the subject is the user's colleague:
"Kevin is on my team").
"""

from __future__ import annotations

from palace.graph.lexicon import PERSON_OBJECTS

BE = r"(?:am|is|are|was|were)"
_PROPER = r"[A-Z0-9][\w.&'\-]*(?: (?:of |de |and |& )?[A-Z0-9][\w.&'\-]*)*"
_TOOL = r"[A-Za-z0-9][\w.+#\-]*(?: [A-Z0-9][\w.+#\-]*)*"
_TEAM = r"(?:[A-Za-z][\w\-]* ){0,3}?(?:team|squad|group|org)\b"

OBJECTS: dict[str, str] = {
    "proper": _PROPER,
    "uses": _TOOL + r"(?:(?:,| and| &|,? or) " + _TOOL + r")*",
    "member_of": _TEAM,
    "speaks": r"[A-Z][a-z]+(?:(?:,| and|,? and) [A-Z][a-z]+)*",
    "learning": r"[A-Za-z][\w\-]*(?: [A-Z][\w\-]*)*",
    "diet": r"(?:vegan|vegetarian|pescatarian|keto|gluten-free|plant-based)",
    "age": r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)",
    "joined": r"(?:the |a |an )?(?:[a-z][\w\-]* ){0,3}?(?:team|squad|group)\b|(?:an? [a-z]+ (?:called|named) )?"
              + _PROPER,
}
# slots whose object is a name, in English written with a capital: a person's, a place's,
# an organisation's or a pet's
PROPER_SLOTS = PERSON_OBJECTS | frozenset({"lives_in", "works_at", "works_in", "born_in", "hometown",
                                           "studies_at", "graduated_from", "pet", "workplace"})

EN_RULES: tuple[tuple[str, str], ...] = (
    # preferences
    (r"(?:do|does|did) not (?:like|enjoy|love) {dislikes}", ""),
    (r"(?:can not|cannot|could not) stand {dislikes}", ""),
    (r"(?:hate|hates|dislike|dislikes|detest|detests|loathe|loathes) {dislikes}", ""),
    (r"(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|adore|adores) {likes}", ""),
    (BE + r" (?:really |totally |big |huge )?into {likes}", ""),
    (BE + r" (?:a |an )?(?:huge |big |massive |die-hard )?fan of {likes}", ""),
    (BE + r" (?:a |an )?(?:huge |big |massive |die-hard )?{likes} fan", ""),
    (BE + r" obsessed with {likes}", ""),
    (r"play (?:a lot of |lots of )?{likes}", ""),
    # the body
    (BE + r" allergic to {allergic_to}", ""),
    (BE + r" {diet}", ""),
    (BE + r" {age}(?: years old)?", ""),
    # people
    (r"name is {name}", ""),
    (r"am {name}$", ""),
    (r"(?:new |current )?(?:manager|boss|supervisor|team lead|lead) is (?:Prof\. |Dr\. )?{reports_to}", ""),
    (r"(?:advisor|adviser|phd advisor|supervisor) is (?:Prof\. |Dr\. |Professor )?{advisor}", ""),
    (BE + r" (?:my|our) {kin}", "of_user"),
    (BE + r" on (?:my|our) team", "colleague"),
    (r"(?:work|works|worked) with us", "colleague"),
    (r"(?:report|reports|reported|am reporting|is reporting) to {reports_to}(?: instead of {-reports_to})?", ""),
    # origins and studies
    (r"(?:was|were) born in {born_in}", ""),
    (r"(?:grew|grow) up in {hometown}", ""),
    (BE + r" (?:originally )?from {hometown}", ""),
    (r"birthday is {birthday}", ""),
    (BE + r" (?:studying|doing (?:my|a) [\w']+(?: degree)?) at {studies_at}", ""),
    (BE + r" (?:a|an) (?:phd|ph\.d\.|grad|graduate|master's|masters|undergrad|undergraduate|college|university|"
          r"doctoral|mba) student at {studies_at}", ""),
    (r"(?:study|studies|studied) at {studies_at}", ""),
    (r"did (?:my|a) (?:undergrad|undergraduate|degree|bachelor's|bachelors|master's|masters|phd|mba)(?: degree)? "
     r"at {graduated_from}", ""),
    (r"graduated from {graduated_from}", ""),
    (BE + r" (?:learning|picking up) {learning}", ""),
    (r"(?:speak|speaks) {speaks}", ""),
    # home
    (r"(?:moved|relocated) from {-lives_in} to {lives_in}", "change"),
    (r"(?:moved|relocated|transferred) (?:back )?to (?:the )?{works_in} office", "change"),
    (r"(?:moved|relocated) (?:back )?to {lives_in}", "change"),
    (r"used to live in {-lives_in}", ""),
    (r"(?:live|lives|lived) in {lives_in}", ""),
    (BE + r" (?:based|living) (?:in|out of) {lives_in}", ""),
    (r"(?:is|are) in {lives_in}", ""),
    # work
    (r"(?:moved|switched|transferred) from (?:the )?{-member_of} to (?:the )?{member_of}", "change"),
    (r"switched teams", "change"),
    (r"(?:work|works) (?:at|for) (?:an? |the )(?:[a-z][\w\-]* ){0,3}in {works_in}", ""),
    (r"(?:work|works|worked)(?: nights| days| part-time| full-time| remotely)? (?:at|for) {works_at}", ""),
    (r"started (?:a new job |working )?at {works_at}", "change"),
    (r"joined {joined}", "change"),
    (r"left {-joined}", ""),
    (BE + r" on (?:the )?{member_of}", ""),
    (BE + r" at {works_at}", ""),
    (r"office is in {works_in}", ""),
    (r"(?:work|works|am working|is working|are working|worked) on (?:the )?{works_on}", ""),
    (r"(?:lead|leads|head|heads|handle|handles|manage|manages|run|runs|own|owns|am in charge of|is in charge of) "
     r"(?:the |all the |our )?{responsible_for}", "not_a"),
    (r"(?:do|does) all the {responsible_for}", ""),
    (r"took over (?:the )?{responsible_for}", "change"),
    (r"(?:do|does) {role} on (?:the )?{works_on}", ""),
    (r"got promoted to {role}", "change"),
    (BE + r" (?:a|an|the) {role}", "job"),
    # tools
    (r"stopped using {-uses}", ""),
    (r"(?:switched|moved|migrated|went) (?:our |my |the )?(?:{for} )?from {-uses} to {uses}", "change"),
    (r"(?:switched|moved|migrated) (?:over )?to {uses}(?: for {for})?", "change"),
    (r"swapped (?:my |our )?(?:old )?{-owns} for (?:a |an |the )?(?:new )?{owns}", "change"),
    (r"(?:use|uses|am using|is using|are using|used) {uses}(?: (?:for|to) {for})?", ""),
    (r"(?:decided|agreed|chose|chosen) to (?:use|go with|standardi[sz]e on|adopt|move to) {uses}"
     r"(?: (?:as|for) (?:the |our )?{for})?", ""),
    (BE + r" going with {uses}(?: (?:for|as) (?:the |our )?{for})?", ""),
    (r"(?:standardi[sz]e|standardi[sz]ed) on {uses}", ""),
    (r"(?:run|runs) (?:everything |all |it )?on {uses}", ""),
    (r"(?:write|writes) (?:most of |all of )?(?:my |our )?{for} in {uses}", ""),
    (r"(?:build|builds) (?:my |our )?{for} with {uses}", ""),
    (BE + r" writing {uses}", ""),
    (r"writing {uses}", ""),
    (r"ask {uses} to {for}", ""),
    # things and pets
    (r"(?:have|has|got) (?:a|an|two|three) {species} (?:named|called) {pet}", ""),
    (r"{species} is named {pet}", ""),
    (r"{species}'s name is {pet}", ""),
    (r"(?:drive|drives) (?:a|an) {owns}", ""),
    (r"(?:have|has) (?:had )?(?:a|an|my) {owns}", ""),
)

ADVERBS = ("just", "really", "also", "still", "now", "currently", "mostly", "mainly", "actually", "officially",
           "recently", "finally", "usually", "always", "basically", "totally", "even", "definitely",
           "honestly", "pretty much", "primarily", "kind of", "sort of", "already")
FILLERS = ("btw", "by the way", "so", "also", "and", "but", "oh", "well", "anyway", "actually", "honestly",
           "no", "yes", "ok", "okay", "plus", "fyi", "just", "then", "and then", "fun fact:", "update:")
NOW_CUES = ("now", "currently", "these days", "nowadays", "new")
# the words a lazy object stops before
STOPS = ("at", "in", "for", "on", "with", "from", "since", "because", "when", "while", "as", "and", "but", "or",
         "to", "now", "anymore", "instead", "last", "this", "next", "every", "again", "too", "already",
         "lately", "recently", "so", "who", "which", "that", "though", "btw", "right", "these", "most",
         "pretty", "over", "during", "after", "before", "until", "about", "by", "online", "there", "here",
         "nights", "a lot", "all the time", "someday", "ago", "a while", "then", "if", "than", "whenever")
CESSATION_CUES = ("anymore", "any more", "any longer", "no longer")
NEGATIONS = (r"(?:do|does|did) not ", r"(?:can|could|will|would) not ", r"cannot ", r"never ", r"no longer ",
             r"(?:have|has|had) not ", r"not ")
CORRECTION = r"^(?:(?:it|that) is|just|only|but|rather|actually|instead)\s+(?:an? |the )?(?P<o>[^,;]+?)$"
NON_FACT_OPENERS = ("if", "what", "why", "how", "where", "which", "maybe", "let", "please", "next", "remind",
                    "i will", "i would", "i am going to", "i am thinking", "i am planning", "i am moving")
NON_FACT_ANYWHERE = ("`", "://", " = ", "==", "[ERROR]", "Traceback", "$ ", ">>> ")
CONTINUERS = ("especially", "particularly", "also", "and", "plus", "mostly", "mainly", "but", "even")
