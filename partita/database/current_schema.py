"""The archive's schema at the newest migration, for making a new archive in one step.

A new archive is made by running :data:`CURRENT_SCHEMA` (the ``sqlite_master`` text
the migrations of :data:`partita.database.schema.MIGRATIONS` leave behind, in the
order they make it) and writing the ``schema_version`` rows the migrations would
write, in one transaction, with the stdlib ``sqlite3`` alone: running the seven
migrations through sqlite-utils cost a small import the loading of sqlite-utils
(about 70 ms) and its table introspection.

The text must stay what the migrations make: ``tests/test_current_schema.py``
compares an archive made in one step with one made by the migrations
(``sqlite_master``, ``schema_version``, pragmas). A new migration changes the
schema: add what it makes here (as SQLite stores it in ``sqlite_master``, at the
place it lands) and raise :data:`CURRENT_SCHEMA_VERSION`. Until then a new archive
is made at :data:`CURRENT_SCHEMA_VERSION` and the newer migrations run on it.
"""

from __future__ import annotations

__all__ = ["CURRENT_SCHEMA", "CURRENT_SCHEMA_VERSION", "CURRENT_STATEMENTS"]

#: The migration :data:`CURRENT_SCHEMA` is the schema after.
CURRENT_SCHEMA_VERSION = 8

#: Every table and index of an archive at :data:`CURRENT_SCHEMA_VERSION`, as
#: ``sqlite_master`` holds them after the migrations (sqlite-utils' quoting for the
#: tables it made, the ``twin_key`` column as ``ALTER TABLE`` appended it).
CURRENT_SCHEMA = """\
CREATE TABLE "schema_version" (
   "version" INTEGER PRIMARY KEY,
   "description" TEXT,
   "applied" TEXT
);
CREATE TABLE "games" (
   "id" INTEGER PRIMARY KEY,
   "game" TEXT,
   "event" TEXT,
   "site" TEXT,
   "date" TEXT,
   "round" TEXT,
   "player1" TEXT,
   "player2" TEXT,
   "player3" TEXT,
   "player4" TEXT,
   "result" TEXT,
   "termination" TEXT,
   "sides" INTEGER,
   "plies" INTEGER NOT NULL,
   "status" TEXT NOT NULL,
   "final_position" TEXT,
   "date_min" TEXT,
   "date_max" TEXT,
   "tags" TEXT NOT NULL,
   "pgr" TEXT NOT NULL,
   "moves" TEXT NOT NULL,
   "hash" TEXT NOT NULL,
   "source_file" TEXT,
   "source_index" INTEGER,
   "source_line" INTEGER,
   "source_offset" INTEGER
, twin_key INTEGER, hash_key INTEGER);
CREATE INDEX "games_moves"
    ON "games" ("moves");
CREATE INDEX "games_game_date"
    ON "games" ("game", "date_min");
CREATE TABLE "problems" (
   "id" INTEGER PRIMARY KEY,
   "game_id" INTEGER NOT NULL REFERENCES "games"("id"),
   "kind" TEXT NOT NULL,
   "severity" TEXT NOT NULL,
   "line" INTEGER,
   "column" INTEGER,
   "ply" INTEGER,
   "move_number" INTEGER,
   "token" TEXT,
   "message" TEXT NOT NULL
);
CREATE INDEX "problems_game"
    ON "problems" ("game_id");
CREATE INDEX "problems_kind"
    ON "problems" ("kind");
CREATE TABLE book (
   game TEXT NOT NULL,
   setup TEXT NOT NULL,
   kind TEXT NOT NULL,
   key BLOB NOT NULL,
   ply INTEGER NOT NULL,
   position TEXT NOT NULL,
   score INTEGER,
   moves TEXT NOT NULL,
   games INTEGER,
   budget INTEGER,
   nodes INTEGER,
   seconds REAL,
   PRIMARY KEY (game, setup, kind, key)
) WITHOUT ROWID;
CREATE INDEX games_twin ON games(twin_key);
CREATE TABLE game_players (
   game_id INTEGER NOT NULL REFERENCES games(id),
   seat INTEGER NOT NULL,
   name TEXT NOT NULL,
   folded TEXT NOT NULL,
   PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX game_players_folded ON game_players(folded);
CREATE TABLE game_tags (
   game_id INTEGER NOT NULL REFERENCES games(id),
   name TEXT NOT NULL,
   value TEXT NOT NULL,
   number REAL,
   PRIMARY KEY (game_id, name)
) WITHOUT ROWID;
CREATE INDEX game_tags_value ON game_tags(name, value);
CREATE INDEX game_tags_number ON game_tags(name, number) WHERE number IS NOT NULL;
CREATE TABLE variation_positions (
   key INTEGER NOT NULL,
   game_id INTEGER NOT NULL REFERENCES games(id),
   ply INTEGER NOT NULL,
   line INTEGER NOT NULL,
   move TEXT NOT NULL,
   next_move TEXT,
   PRIMARY KEY (key, game_id, line, ply)
) WITHOUT ROWID;
CREATE INDEX variation_positions_game ON variation_positions(game_id);
CREATE INDEX games_hash_key ON games(hash_key);
CREATE TABLE positions (
   key INTEGER NOT NULL,
   game_id INTEGER NOT NULL REFERENCES games(id),
   ply INTEGER NOT NULL,
   PRIMARY KEY (key, game_id, ply)
) WITHOUT ROWID;
CREATE TABLE game_positions (
   game_id INTEGER NOT NULL REFERENCES games(id),
   ply INTEGER NOT NULL,
   key INTEGER NOT NULL,
   PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
CREATE TABLE positions_pending (
   id INTEGER PRIMARY KEY CHECK (id = 1),
   first_game_id INTEGER NOT NULL
);
"""

#: :data:`CURRENT_SCHEMA` statement by statement. They run one by one inside the
#: transaction that holds the write lock: ``sqlite3``'s ``executescript`` would
#: first commit that transaction (Python 3.11), and let another process in between
#: the check that the file is empty and the making of the schema.
CURRENT_STATEMENTS: tuple[str, ...] = tuple(
    statement for statement in CURRENT_SCHEMA.split(";\n") if statement.strip()
)
