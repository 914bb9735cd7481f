"""The entity graph, as pure rules over the Markdown files (issue 15).

``normalise`` (entity names), ``facts`` (entities and relations read from a memory's
frontmatter and ``[[wiki links]]``), ``extract`` (deterministic extraction from text),
``supersede`` (whether a new fact retires an old one) and ``paths`` (walks over the
relation graph). Nothing here touches a palace: the index and the manager call in.
"""

from palace.graph.facts import Entity, Relation, graph_rows, read_facts
from palace.graph.normalise import entity_key, is_user
from palace.graph.supersede import Decision, decide

__all__ = ["Decision", "Entity", "Relation", "decide", "entity_key", "graph_rows", "is_user",
           "read_facts"]
