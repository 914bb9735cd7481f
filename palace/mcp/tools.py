"""The 23 tools, in the order clients list them: each tool's function (its name is the
tool's name, its parameters the tool's schema), how it touches the palace, and the
description the agent reads. Plain data: ``server`` turns it into the SDK's tools."""

from typing import Any, Callable, NamedTuple

from palace.mcp import context, experiences, graph, memories, search, tasks

# The SDK's ToolAnnotations, as keyword arguments (the SDK is imported only by the server).
READ_ONLY = {"read_only_hint": True, "open_world_hint": False}
WRITES = {"read_only_hint": False, "destructive_hint": False, "open_world_hint": False}
DELETES = {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": False,
           "open_world_hint": False}


class Tool(NamedTuple):
    fn: Callable[..., Any]  # takes the open manager first, then the tool's arguments
    annotations: dict[str, Any]  # ToolAnnotations' keyword arguments
    description: str


TOOLS: tuple[Tool, ...] = (
    Tool(memories.save_memory, WRITES,
         "Save a memory (a fact, decision, preference, event, task or session summary) to "
         "long-term memory. Returns the stored memory with its id."),
    Tool(search.search_memory, READ_ONLY,
         "Search long-term memory. Time words in the query are understood and become a time "
         "filter ('上周讨论的数据库', 'what did we decide last Friday', '三天前'); a query that "
         "is only a time word lists that period. Best first, each with why it matched."),
    Tool(memories.record_access, WRITES,
         "Report which memories you actually used (from search_memory or get_context): they "
         "count as accessed and are reinforced against fading. Search itself reinforces only "
         "what MEMORY_REINFORCE says (by default the best result), never weak results."),
    Tool(memories.get_memory, READ_ONLY,
         "Get one memory in full by its id: whole content, summary, tags, dates, decay score "
         "and file path (search and list results shorten long content)."),
    Tool(memories.update_memory, WRITES,
         "Change a memory: give only the fields to change. Tags replace the old tags. "
         "Close a task by adding the tag 'done'."),
    Tool(memories.delete_memory, DELETES,
         "Delete a memory: it moves to the trash and restore_memory can bring it back."),
    Tool(memories.restore_memory, WRITES,
         "Bring a memory back from the trash (after delete_memory) or from the archive."),
    Tool(memories.list_memories, READ_ONLY,
         "List memories, newest first, optionally by room, tags, type or status."),
    Tool(context.get_context, READ_ONLY,
         "The memories most relevant to a query as ready-to-read text within a token budget: "
         "most relevant first, whole when they fit, else their summary or a marked excerpt, "
         "each labelled [id] room · date · type. Time words work as in search_memory."),
    Tool(context.bootstrap, READ_ONLY,
         "Start-of-session context within a token budget: the user's essence (who they are, "
         "rules, preferences), the latest session summaries, open tasks and, given a query, "
         "the memories relevant to it. Call this first in a new session."),
    Tool(context.get_persona, WRITES,
         "The user's persona, as bootstrap shows it: what palace knows about the user from their "
         "current facts (likes, dislikes, where they live and work, the tools they use for what) plus "
         "lines the user wrote in it. refresh=true first rebuilds the generated lines from the current "
         "facts (a superseded fact drops out; the user's own lines are kept)."),
    Tool(context.get_summary, READ_ONLY,
         "What happened in a day, week (Monday to Sunday) or month: how many memories, main "
         "tags and topics, decisions, experiences, rooms that changed, with memory ids."),
    Tool(experiences.record_experience, WRITES,
         "Record a lesson learned: what happened (the problem, the error) and what worked. "
         "Returns the experience memory with its id; later call verify_experience."),
    Tool(experiences.verify_experience, WRITES,
         "Report whether applying a recorded experience worked (effective=true) or not. "
         "Verified lessons rank higher in search_experiences."),
    Tool(experiences.search_experiences, READ_ONLY,
         "Find lessons learned for a problem, best first by relevance and proven effectiveness."),
    Tool(search.search_compact, READ_ONLY,
         "Search memory cheaply: compact hits (id, title, date, type, ~50 tokens each) "
         "instead of whole memories. Open the interesting ones with get_memories, or see "
         "what happened around one with timeline."),
    Tool(search.timeline, READ_ONLY,
         "The observations around one memory of a captured session, in session order "
         "(for a session summary: its first ones), as compact items."),
    Tool(search.get_memories, READ_ONLY,
         "Get several memories in full by their ids (ids not found are listed in 'missing')."),
    Tool(tasks.list_open_tasks, READ_ONLY,
         "Open tasks that captured sessions left behind (next steps, unfinished to-dos): "
         "doing first, then blocked, then to do."),
    Tool(graph.recall_memory, READ_ONLY,
         "Follow the entity graph: memories linked to the people, places, projects or tools a "
         "query names (or to the given entity names), nearest first, each with its graph_path such as "
         "'张伟 —负责→ 星图 ←参与— 用户'. Use for 'who works on X with Y', 'what is related to Z'."),
    Tool(graph.entity_history, READ_ONLY,
         "Every fact (relation) recorded about an entity, oldest first, with when each held "
         "(validFrom/validTo) and the memory stating it: how a fact changed over time."),
    Tool(graph.review_facts, WRITES,
         "The review queue: pairs of facts where palace was unsure whether the new one replaces "
         "the old one. action=list shows them; accept (the old fact is superseded) or reject "
         "(both stand) one by its id."),
    Tool(tasks.manage_task, WRITES,
         "Tasks the user or agent must do: action=add (text) creates one in state todo; "
         "start, block, done (id) move it, and set (id, state) moves it to any allowed state, each "
         "move recorded with its time; list shows the open ones (or those in 'states'). Open tasks "
         "appear in bootstrap."),
)
