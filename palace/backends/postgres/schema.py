"""The Postgres schema as numbered migrations, applied in order on start.

``palace_meta.schema_version`` says which have run. Each migration runs in one
transaction under an advisory lock, so many clients starting at once apply it once.
A database migrated by a newer palace is refused (its tables may mean other things).
"""

from __future__ import annotations

from typing import Any, Callable, Union

from palace.errors import ConfigError
from palace.backends.postgres.capture import MIGRATION as CAPTURE_MIGRATION
from palace.backends.postgres.graph import DECISIONS_MIGRATION
from palace.backends.postgres.graph import MIGRATION as GRAPH_MIGRATION
from palace.backends.postgres.roles import MIGRATION as ROLES_MIGRATION

MIN_SERVER_VERSION = 140000  # PostgreSQL 14: the oldest still supported upstream
MIGRATION_LOCK = 0x70A1ACE  # pg_advisory_xact_lock key while migrating

# Orphaned vectors (no memory in ANY scope has their text) are pruned by a function
# that runs as the schema's owner: a client sees only its scopes' memories, so a query
# of its own would take another agent's private vectors for orphans. Inside the
# function a policy open to the owner alone (``memories_every_scope``) lets the check
# see every scope, for that transaction only; an agent's own role may call it (it
# deletes nothing a memory still uses and returns only a count), never read through it.
VECTOR_PRUNE_MIGRATION = """
DO $migration$
BEGIN
    DROP POLICY IF EXISTS memories_every_scope ON memories;
    EXECUTE format('CREATE POLICY memories_every_scope ON memories FOR SELECT TO %I '
                   'USING (current_setting(''palace.every_scope'', true) = ''on'')', current_user);
    EXECUTE format($fn$
        CREATE OR REPLACE FUNCTION palace_orphan_vectors(remove BOOLEAN) RETURNS BIGINT
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %I, pg_temp AS $body$
        DECLARE
            n BIGINT;
        BEGIN
            PERFORM set_config('palace.every_scope', 'on', true);
            IF remove THEN
                DELETE FROM vectors v WHERE NOT EXISTS (
                    SELECT 1 FROM memories m WHERE m.content_hash = v.content_hash);
                GET DIAGNOSTICS n = ROW_COUNT;
            ELSE
                SELECT COUNT(*) INTO n FROM vectors v WHERE NOT EXISTS (
                    SELECT 1 FROM memories m WHERE m.content_hash = v.content_hash);
            END IF;
            PERFORM set_config('palace.every_scope', '', true);
            RETURN n;
        END
        $body$ $fn$, current_schema());
END
$migration$;
REVOKE ALL ON FUNCTION palace_orphan_vectors(BOOLEAN) FROM PUBLIC;
"""

REKEY_BATCH = 1000  # memories read (and re-keyed) at a time by migration 10


def rekey_dialogues(conn: Any) -> int:
    """10: a dialogue's vectors are keyed by its chunk rule too (``models.embed_key``):
    the memories stored before get their new key, so their vectors are redone by turn
    on the next backfill (the old ones become orphans, pruned as any). Returns how many
    keys changed. Every scope: the migrating role owns the table, FORCE is lifted for
    this transaction. Only texts with a line opening with a speaker label are read."""
    from psycopg.rows import tuple_row

    from palace.models import embed_key

    conn.execute("ALTER TABLE memories NO FORCE ROW LEVEL SECURITY")
    # the keyword postings do not change: the trigger that keeps them skips a bulk write
    conn.execute("SELECT set_config('app.bulk', 'on', true)")
    changed = 0
    # a server-side cursor, in batches: a palace of captured chats may hold many dialogues
    with conn.cursor(name="palace_rekey_dialogues", row_factory=tuple_row) as rows, \
            conn.cursor() as writer:
        rows.execute("SELECT rid, content, summary, content_hash FROM memories WHERE content ~ %s",
                     (r"(^|\n)[ \t]*[^\s:：][^:：\n]{0,30}?(:[ \t]|：)",))
        while batch := rows.fetchmany(REKEY_BATCH):
            keys = [(key, rid) for rid, content, summary, old in batch
                    if (key := embed_key(content, summary)) != old]
            if keys:
                writer.executemany("UPDATE memories SET content_hash = %s WHERE rid = %s", keys)
                changed += len(keys)
    conn.execute("SELECT set_config('app.bulk', 'off', true)")
    conn.execute("ALTER TABLE memories FORCE ROW LEVEL SECURITY")
    return changed


SCOPED_POSTING_TABLES = ("memories", "term_postings", "posting_delta", "collection_stats")


def part_the_postings(conn: Any) -> None:
    """16: each packed base kept in parts by row id (postings.PART_BITS), so a fold
    rewrites the part its delta touched, not a quarter of the palace's postings. The
    bases are packed afresh from the memory rows, every scope's (the migrating role owns
    the tables: FORCE is lifted for this transaction); at 1M that is the import's pack."""
    from psycopg.rows import dict_row

    from palace.backends.postgres.postings import rebuild

    conn.execute("ALTER TABLE term_postings ADD COLUMN IF NOT EXISTS part INTEGER NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE term_postings DROP CONSTRAINT term_postings_pkey, "
                 "ADD PRIMARY KEY (term, scope, part), ALTER COLUMN part DROP DEFAULT")
    for table in SCOPED_POSTING_TABLES:
        conn.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    with conn.cursor(row_factory=dict_row) as cur:  # rebuild reads rows by name
        rebuild(cur)
    conn.execute("ANALYZE term_postings")  # ten times the rows it had: the planner is told now
    for table in SCOPED_POSTING_TABLES:
        conn.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")


# Each migration: SQL, or a function of the connection (a step SQL cannot do).
Migration = Union[str, Callable[[Any], Any]]
MIGRATIONS: list[Migration] = [
    # 1: memories (full Markdown + the indexed columns the SQLite index has, same
    # names, so search, decay and row_to_memory read both alike), tags, keyword
    # postings, trash, the access journal, vectors
    """
    CREATE TABLE memories (
        rid BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        scope TEXT NOT NULL DEFAULT 'team',
        version INTEGER NOT NULL DEFAULT 1,
        path TEXT NOT NULL,
        location TEXT NOT NULL,
        type TEXT NOT NULL,
        status TEXT NOT NULL,
        source TEXT NOT NULL,
        importance DOUBLE PRECISION NOT NULL,
        pinned INTEGER NOT NULL,
        created_ts DOUBLE PRECISION NOT NULL,
        updated_ts DOUBLE PRECISION NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        tags TEXT NOT NULL,
        summary TEXT,
        content TEXT NOT NULL,
        extra TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        raw TEXT NOT NULL,
        terms TEXT NOT NULL,
        doc_len INTEGER NOT NULL,
        mtime_ns BIGINT NOT NULL DEFAULT 0,
        size INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX memories_created ON memories (created_ts, status);
    CREATE INDEX memories_location ON memories (location text_pattern_ops, status);
    CREATE INDEX memories_hash ON memories (content_hash);
    CREATE TABLE memory_tags (
        tag TEXT NOT NULL, rid BIGINT NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
        PRIMARY KEY (tag, rid)
    );
    CREATE TABLE postings (
        term TEXT NOT NULL, rid BIGINT NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
        tf INTEGER NOT NULL, PRIMARY KEY (term, rid)
    );
    CREATE INDEX postings_rid ON postings (rid);
    CREATE TABLE trash (
        id TEXT PRIMARY KEY, scope TEXT NOT NULL DEFAULT 'team', raw TEXT NOT NULL,
        deleted_ts DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE accesses (id TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL, kind TEXT NOT NULL);
    CREATE INDEX accesses_id ON accesses (id, ts);
    CREATE TABLE vectors (
        model TEXT NOT NULL, content_hash TEXT NOT NULL, chunk INTEGER NOT NULL,
        vec vector NOT NULL, PRIMARY KEY (model, content_hash, chunk)
    );
    """,
    # 2: scopes, enforced by the database: a row is visible and writable only when its
    # scope is 'team' or the connection's own agent/user (SET app.agent_id / app.user_id
    # on every pooled connection). FORCE: the owning role is held to it as well.
    """
    CREATE FUNCTION palace_scope_visible(scope TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
        SELECT scope = 'team'
            OR scope = 'agent:' || NULLIF(current_setting('app.agent_id', true), '')
            OR scope = 'user:' || NULLIF(current_setting('app.user_id', true), '')
    $$;
    ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
    ALTER TABLE memories FORCE ROW LEVEL SECURITY;
    CREATE POLICY memories_scoped ON memories USING (palace_scope_visible(scope))
        WITH CHECK (palace_scope_visible(scope));
    ALTER TABLE trash ENABLE ROW LEVEL SECURITY;
    ALTER TABLE trash FORCE ROW LEVEL SECURITY;
    CREATE POLICY trash_scoped ON trash USING (palace_scope_visible(scope))
        WITH CHECK (palace_scope_visible(scope));
    -- an access names a memory id: visible with the memory, or with its trashed copy
    ALTER TABLE accesses ENABLE ROW LEVEL SECURITY;
    ALTER TABLE accesses FORCE ROW LEVEL SECURITY;
    CREATE POLICY accesses_scoped ON accesses USING (
        EXISTS (SELECT 1 FROM memories m WHERE m.id = accesses.id)
        OR EXISTS (SELECT 1 FROM trash t WHERE t.id = accesses.id));
    """,
    # 3: the entity graph (entities, aliases, relations) and the review queue, scoped
    # like the memories they come from (palace/backends/postgres/graph.py)
    GRAPH_MIGRATION,
    # 4: one database role per agent (palace/backends/postgres/roles.py): the registry,
    # and row-level security on the tables bound to a memory (open until an agent's
    # own restrictive policies narrow them)
    ROLES_MIGRATION,
    # 5: keyword postings many writers keep at once (palace/backends/postgres/postings.py):
    # per scope, a packed base per term plus a delta of recent changes, and BM25's
    # collection counters in a few shard rows per scope, all kept by a trigger in each
    # memory's own transaction (no global write lock). The old one-row-per-posting
    # table is rebuilt into them and dropped.
    """
    -- a memory's tags by its row id: a write replaces them, a delete cascades to them and a
    -- tag filter checks candidates by them (the primary key leads with the tag)
    CREATE INDEX memory_tags_rid ON memory_tags (rid, tag);
    -- the digest of a memory's normalised content (palace.text.tokenize.duplicate_key): a store
    -- finds an earlier copy by one index lookup, not by reading common terms' postings
    -- (rows written before this migration have none until ``palace reindex``)
    ALTER TABLE memories ADD COLUMN dup_key TEXT;
    CREATE INDEX memories_dup_key ON memories (dup_key);
    CREATE INDEX memories_no_dup_key ON memories (rid) WHERE dup_key IS NULL;
    CREATE SEQUENCE posting_delta_seq;
    CREATE TABLE term_postings (
        term TEXT NOT NULL, scope TEXT NOT NULL, n INTEGER NOT NULL,
        rids BYTEA NOT NULL, tfs BYTEA NOT NULL, dls BYTEA NOT NULL,
        PRIMARY KEY (term, scope)
    );
    CREATE TABLE posting_delta (
        term TEXT NOT NULL, scope TEXT NOT NULL, rid BIGINT NOT NULL,
        tf INTEGER NOT NULL, dl INTEGER NOT NULL,
        seq BIGINT NOT NULL DEFAULT nextval('posting_delta_seq'),
        PRIMARY KEY (term, scope, rid)
    );
    CREATE TABLE collection_stats (
        scope TEXT NOT NULL, shard INTEGER NOT NULL, docs BIGINT NOT NULL, length BIGINT NOT NULL,
        writes BIGINT NOT NULL DEFAULT 0,  -- bumped by every write that changes text: Σ is a version
        PRIMARY KEY (scope, shard)
    );
    -- a memory's indexed terms (space-joined stems) with their frequencies, as locally
    CREATE FUNCTION palace_memory_terms(terms TEXT) RETURNS TABLE (term TEXT, tf INTEGER)
    LANGUAGE sql IMMUTABLE AS $$
        SELECT t, LEAST(COUNT(*), 65535)::INTEGER FROM unnest(string_to_array(terms, ' ')) AS t
        WHERE t <> '' GROUP BY t
    $$;
    CREATE FUNCTION palace_index_memory() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        my_shard INTEGER := pg_backend_pid() % 16;
    BEGIN
        IF current_setting('app.bulk', true) = 'on' THEN
            RETURN NULL;  -- a bulk load rebuilds the postings once at its end
        END IF;
        IF TG_OP = 'UPDATE' THEN
            IF OLD.terms = NEW.terms AND OLD.scope = NEW.scope AND OLD.doc_len = NEW.doc_len THEN
                IF OLD.content_hash <> NEW.content_hash THEN  -- same terms, new text: vectors differ
                    INSERT INTO collection_stats AS c (scope, shard, docs, length, writes)
                        VALUES (NEW.scope, my_shard, 0, 0, 1)
                        ON CONFLICT (scope, shard) DO UPDATE SET writes = c.writes + 1;
                END IF;
                RETURN NULL;  -- nothing keyword search reads has changed
            END IF;
            INSERT INTO collection_stats AS c (scope, shard, docs, length, writes)
                SELECT v.scope, my_shard, SUM(v.docs), SUM(v.length), 1
                FROM (VALUES (OLD.scope, -1, -OLD.doc_len), (NEW.scope, 1, NEW.doc_len)) AS v(scope, docs, length)
                GROUP BY v.scope ORDER BY v.scope
                ON CONFLICT (scope, shard) DO UPDATE SET docs = c.docs + EXCLUDED.docs,
                                                         length = c.length + EXCLUDED.length,
                                                         writes = c.writes + 1;
            INSERT INTO posting_delta AS d (term, scope, rid, tf, dl)
                SELECT o.term, OLD.scope, OLD.rid, 0, 0 FROM palace_memory_terms(OLD.terms) AS o
                WHERE OLD.scope <> NEW.scope OR o.term <> ALL (string_to_array(NEW.terms, ' '))
                ON CONFLICT (term, scope, rid) DO UPDATE SET tf = 0, dl = 0, seq = EXCLUDED.seq;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO collection_stats AS c (scope, shard, docs, length, writes)
                VALUES (OLD.scope, my_shard, -1, -OLD.doc_len, 1)
                ON CONFLICT (scope, shard) DO UPDATE SET docs = c.docs - 1, length = c.length - OLD.doc_len,
                                                         writes = c.writes + 1;
            INSERT INTO posting_delta AS d (term, scope, rid, tf, dl)
                SELECT o.term, OLD.scope, OLD.rid, 0, 0 FROM palace_memory_terms(OLD.terms) AS o
                ON CONFLICT (term, scope, rid) DO UPDATE SET tf = 0, dl = 0, seq = EXCLUDED.seq;
            RETURN NULL;
        ELSE
            INSERT INTO collection_stats AS c (scope, shard, docs, length, writes)
                VALUES (NEW.scope, my_shard, 1, NEW.doc_len, 1)
                ON CONFLICT (scope, shard) DO UPDATE SET docs = c.docs + 1, length = c.length + NEW.doc_len,
                                                         writes = c.writes + 1;
        END IF;
        INSERT INTO posting_delta AS d (term, scope, rid, tf, dl)
            SELECT n.term, NEW.scope, NEW.rid, n.tf, NEW.doc_len FROM palace_memory_terms(NEW.terms) AS n
            ON CONFLICT (term, scope, rid) DO UPDATE SET tf = EXCLUDED.tf, dl = EXCLUDED.dl, seq = EXCLUDED.seq;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER memories_index AFTER INSERT OR UPDATE OR DELETE ON memories
        FOR EACH ROW EXECUTE FUNCTION palace_index_memory();
    -- the existing memories, every scope (the migrating role owns the table: lift FORCE
    -- for this one statement's transaction)
    ALTER TABLE memories NO FORCE ROW LEVEL SECURITY;
    INSERT INTO term_postings (term, scope, n, rids, tfs, dls)
    SELECT t.term, m.scope, COUNT(*),
           string_agg(int8send(m.rid), ''::bytea ORDER BY m.rid),
           string_agg(int4send(t.tf), ''::bytea ORDER BY m.rid),
           string_agg(int4send(m.doc_len), ''::bytea ORDER BY m.rid)
    FROM memories m CROSS JOIN LATERAL palace_memory_terms(m.terms) t GROUP BY t.term, m.scope;
    INSERT INTO collection_stats (scope, shard, docs, length)
        SELECT scope, 0, COUNT(*), COALESCE(SUM(doc_len), 0) FROM memories GROUP BY scope;
    ALTER TABLE memories FORCE ROW LEVEL SECURITY;
    DROP TABLE postings;
    ALTER TABLE term_postings ENABLE ROW LEVEL SECURITY;
    ALTER TABLE term_postings FORCE ROW LEVEL SECURITY;
    CREATE POLICY term_postings_scoped ON term_postings USING (palace_scope_visible(scope))
        WITH CHECK (palace_scope_visible(scope));
    ALTER TABLE posting_delta ENABLE ROW LEVEL SECURITY;
    ALTER TABLE posting_delta FORCE ROW LEVEL SECURITY;
    CREATE POLICY posting_delta_scoped ON posting_delta USING (palace_scope_visible(scope))
        WITH CHECK (palace_scope_visible(scope));
    ALTER TABLE collection_stats ENABLE ROW LEVEL SECURITY;
    ALTER TABLE collection_stats FORCE ROW LEVEL SECURITY;
    CREATE POLICY collection_stats_scoped ON collection_stats USING (palace_scope_visible(scope))
        WITH CHECK (palace_scope_visible(scope));
    """,
    # 6: live capture's waiting state (palace/backends/postgres/capture.py): each open
    # turn's spool and OpenClaw's sessionKey map, per scope, shared by every machine
    CAPTURE_MIGRATION,
    # 7: orphaned vectors pruned across every scope, by the owner's function (above)
    VECTOR_PRUNE_MIGRATION,
    # 8: the graph's decision log, one for every client (palace/backends/postgres/graph.py)
    DECISIONS_MIGRATION,
    # 9: the review queue looked up by pair and by asking memory (every fact-stating store
    # asks "is this pair queued already?": a sequential scan of the queue under the whole
    # write lock at 1M, docs/backends.md "Where store throughput goes")
    """
    CREATE INDEX IF NOT EXISTS review_items_pair ON review_items (new_memory, old_memory);
    CREATE INDEX IF NOT EXISTS review_items_old ON review_items (old_memory);
    """,
    # 10: dialogues are embedded by their turns (palace/text/chunking.py), and their vectors'
    # key says so: the memories of earlier releases get the new key
    rekey_dialogues,
    # 11: a tag filter ("this tag or one below it") reads memory_tags by a byte range
    # (database._below): text_pattern_ops orders by bytes whatever the collation
    """
    CREATE INDEX IF NOT EXISTS memory_tags_pattern ON memory_tags (tag text_pattern_ops, rid);
    """,
    # 12: packed postings kept uncompressed: a search reads whole arrays, and pglz's
    # decompression cost more than the bytes it saved (five common terms' 4.7 MB at 300k:
    # 10.3 → 6.6 ms a read; 3.4× the disk). The rows are rewritten now, every scope's
    # (FORCE lifted for this transaction, as in migration 5); a fold or rebuild
    # writes them so from here on
    """
    ALTER TABLE term_postings ALTER COLUMN rids SET STORAGE EXTERNAL,
        ALTER COLUMN tfs SET STORAGE EXTERNAL, ALTER COLUMN dls SET STORAGE EXTERNAL;
    ALTER TABLE term_postings NO FORCE ROW LEVEL SECURITY;
    UPDATE term_postings SET rids = rids || ''::bytea, tfs = tfs || ''::bytea, dls = dls || ''::bytea;
    ALTER TABLE term_postings FORCE ROW LEVEL SECURITY;
    """,
    # 13: each packed base carries a version, new whenever a fold or rebuild writes it, so a
    # reader may keep the lists it read and be sent only what changed (cache.py). The
    # rows are updated in place (their packed arrays are not rewritten: an UPDATE keeps
    # unchanged out-of-line values where they are)
    """
    ALTER TABLE term_postings ADD COLUMN IF NOT EXISTS version BIGINT;
    ALTER TABLE term_postings NO FORCE ROW LEVEL SECURITY;
    UPDATE term_postings SET version = nextval('posting_delta_seq') WHERE version IS NULL;
    ALTER TABLE term_postings FORCE ROW LEVEL SECURITY;
    ALTER TABLE term_postings ALTER COLUMN version SET DEFAULT nextval('posting_delta_seq'),
        ALTER COLUMN version SET NOT NULL;
    """,
    # 14: a writers' fold check leaves on each base it counted the scope's write count
    # before which its delta cannot be due (postings.HORIZON_SQL); other clients' checks
    # skip counting it till then. A fold or rebuild writes the base afresh, horizon unset
    """
    ALTER TABLE term_postings ADD COLUMN IF NOT EXISTS horizon BIGINT;
    """,
    # 15: vectors found by content hash through a hash index. An exact scan of a narrow
    # filter (a room of 2 % of 1M memories) looks up each memory's vector: through the
    # primary key's btree (model, content hash, chunk) that was four levels of text
    # comparisons a probe; a hash probe compares none (164 → 123 ms for 22k lookups)
    # and a room's row ids read from its index alone: it carries what the row-level policy
    # and a search's filter read (rid, scope), so a room of 411k memories at 1M is two
    # index-only scans (168 → 71 ms), not a visit to each row's page; it replaces
    # memories_location (same keys)
    """
    CREATE INDEX IF NOT EXISTS vectors_content_hash ON vectors USING hash (content_hash);
    CREATE INDEX IF NOT EXISTS memories_room_rows ON memories (location text_pattern_ops, status) INCLUDE (rid, scope);
    DROP INDEX IF EXISTS memories_location;
    """,
    # 16: packed bases in parts by row id (above)
    part_the_postings,
]


def check_server(conn: Any) -> None:
    """A clear error for a server too old or without pgvector, before any table is made."""
    version = int(conn.execute("SHOW server_version_num").fetchone()[0])
    if version < MIN_SERVER_VERSION:
        raise ConfigError(f"the PostgreSQL server is version {version // 10000}; palace needs "
                          f"{MIN_SERVER_VERSION // 10000} or newer")
    row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if row is None:
        raise ConfigError("the PostgreSQL server has no pgvector extension (CREATE EXTENSION vector "
                          "fails): install pgvector on the server (https://github.com/pgvector/pgvector)")


def _current(conn: Any) -> int | None:
    """The schema version, read without making anything (an agent's role may not)."""
    if conn.execute("SELECT to_regclass('palace_meta')").fetchone()[0] is None:
        return None
    row = conn.execute("SELECT value FROM palace_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: Any) -> int:
    """Apply the migrations not yet applied; returns the schema version now."""
    import psycopg

    check_server(conn)
    current = _current(conn)
    if current is not None and current > len(MIGRATIONS):
        raise _newer(current)
    if current == len(MIGRATIONS):
        return len(MIGRATIONS)  # up to date: no DDL, so a role without CREATE may open it
    try:
        return _apply(conn)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise ConfigError(f"the database schema needs migrating to version {len(MIGRATIONS)} and this "
                          f"role may not ({str(exc).strip()}): open palace once as the database owner") from None


def _newer(version: int) -> ConfigError:
    return ConfigError(f"the database was migrated by a newer palace (schema {version}, this "
                       f"palace knows {len(MIGRATIONS)}): upgrade palace (pip install -U palace-memory)")


def _apply(conn: Any) -> int:
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            try:
                with conn.transaction():
                    conn.execute("CREATE EXTENSION vector")
            except Exception as exc:  # usually: only a superuser may create it
                raise ConfigError(f"pgvector is not installed in this database and palace cannot "
                                  f"install it ({str(exc).strip()}): ask an administrator to run "
                                  f"CREATE EXTENSION vector in it") from None
        conn.execute("CREATE TABLE IF NOT EXISTS palace_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = conn.execute("SELECT value FROM palace_meta WHERE key = 'schema_version'").fetchone()
        version = int(row[0]) if row else 0
        if version > len(MIGRATIONS):
            raise _newer(version)
        for number in range(version + 1, len(MIGRATIONS) + 1):
            step = MIGRATIONS[number - 1]
            if callable(step):
                step(conn)
            else:
                conn.execute(step)
            conn.execute("INSERT INTO palace_meta VALUES ('schema_version', %s) ON CONFLICT (key) "
                         "DO UPDATE SET value = EXCLUDED.value", (str(number),))
        if version < len(MIGRATIONS):
            from palace.backends.postgres.roles import refresh_policies

            refresh_policies(conn)  # a new scoped table binds every agent role too
        return len(MIGRATIONS)
