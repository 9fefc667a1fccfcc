"""A game's set-up (sides and settings) is part of every position the archive keys
and searches: the keys fold it (the default set-up's keys as before), archives of
schema 7 re-key their games of other set-ups, and a position filter reads its
position under the set-up it names, or says which options choose one."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_runner import run_cli
from hypothesis import given
from hypothesis import strategies as st

from partita.bulk import import_paths
from partita.database.keys import fold_key, key_list_folder, prefix_for
from partita.database.schema import SCHEMA_VERSION, archive, migrate_archive, open_archive
from partita.errors import ArchiveError
from partita.game.configuration import Configuration
from partita.game.registry import get_game
from partita.notation.reader import parse_record
from partita.notation.replay import count_sides, replay

ROOT = Path(__file__).resolve().parent.parent
CIRCULAR = ROOT / "examples" / "circular-reasoning"
GAME = "circular-reasoning"

_KEYS = st.recursive(
    st.integers() | st.text(max_size=4) | st.binary(max_size=4),
    lambda inner: st.tuples(inner, inner),
    max_leaves=6,
)


def _setup(sides: int, **tags: str) -> Configuration:
    return Configuration.of(get_game(GAME), sides, tags)


@given(_KEYS)
def test_the_default_set_up_keeps_its_keys_and_the_others_get_their_own(key):
    default = _setup(2)
    assert prefix_for(GAME, default) == prefix_for(GAME) == GAME.encode() + b"\x00"
    assert fold_key(GAME, key, default) == fold_key(GAME, key)
    # a tag at its default value is the default set-up
    assert fold_key(GAME, key, _setup(2, Variant="basic")) == fold_key(GAME, key)
    others = [_setup(3), _setup(2, Variant="advanced"), _setup(3, Variant="advanced")]
    folded = {fold_key(GAME, key, setup) for setup in [default, *others]}
    assert len(folded) == 4
    for setup in others:
        assert key_list_folder(GAME, setup)([key]) == [fold_key(GAME, key, setup)]


def test_a_set_up_s_prefix_is_no_start_of_another_s_data():
    """The prefix of a set-up other than the default continues with ``c``, which no
    key's encoding starts with, so no (prefix, key) pair reads as another's."""
    prefix = prefix_for(GAME, _setup(3))
    default = prefix_for(GAME)
    assert prefix.startswith(default) and prefix[len(default) : len(default) + 1] == b"c"


# -- the archive ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("setups") / "fresh.db"
    with archive(path) as opened:
        import_paths(opened, [CIRCULAR])
    return path


def _rows(path: Path, table: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT * FROM {table} ORDER BY 2, 3, 1").fetchall()


def _setups(path: Path) -> dict[int, Configuration]:
    notation = get_game(GAME)
    with sqlite3.connect(path) as conn:
        return {
            game_id: Configuration.of(notation, sides, json.loads(tags))
            for game_id, sides, tags in conn.execute("SELECT id, sides, tags FROM games")
        }


def as_version_7(path: Path) -> None:
    """The archive as schema 7 wrote it: every key folded with its game's name
    alone, whatever the game's set-up."""
    with sqlite3.connect(path) as conn:
        texts = conn.execute("SELECT id, pgr FROM games").fetchall()
        conn.execute("DELETE FROM positions")
        conn.execute("DELETE FROM game_positions")
        conn.execute("DELETE FROM variation_positions")
        for game_id, text in texts:
            replayed = replay(parse_record(text))
            keys = [fold_key(GAME, key) for key in replayed.keys]
            conn.executemany(
                "INSERT INTO positions (key, game_id, ply) VALUES (?, ?, ?)",
                [(key, game_id, ply) for ply, key in enumerate(keys, 1)],
            )
            conn.executemany(
                "INSERT INTO game_positions (game_id, ply, key) VALUES (?, ?, ?)",
                [(game_id, ply, key) for ply, key in enumerate(keys, 1)],
            )
            for line, variation in enumerate(replayed.variations, start=1):
                moves = variation.moves
                conn.executemany(
                    "INSERT INTO variation_positions VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (fold_key(GAME, key), game_id, variation.plies_before + at, line, move, nxt)
                        for at, (key, move, nxt) in enumerate(
                            zip(variation.keys, moves, [*moves[1:], None], strict=True), 1
                        )
                    ],
                )
        conn.execute("DELETE FROM schema_version WHERE version >= 8")


def test_an_archive_of_schema_7_migrates_to_the_keys_of_a_new_one(fresh, tmp_path):
    setups = _setups(fresh)
    assert any(setup.is_default for setup in setups.values())
    assert sum(not setup.is_default for setup in setups.values()) >= 8
    older = tmp_path / "v7.db"
    shutil.copy(fresh, older)
    as_version_7(older)
    changed = {row[1] for row in _rows(older, "positions")} & {
        game_id for game_id, setup in setups.items() if not setup.is_default
    }
    assert changed and _rows(older, "positions") != _rows(fresh, "positions")
    with pytest.raises(ArchiveError, match="schema version 7"):
        open_archive(older, readonly=True)
    assert migrate_archive(older) == (7, SCHEMA_VERSION)
    for table in ("positions", "game_positions", "variation_positions"):
        assert _rows(older, table) == _rows(fresh, table), table
    with sqlite3.connect(older) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # and it queries: a three-sided advanced game's position, under its set-up
    position = _position_after(older, 8, 10)
    result = run_cli(
        ["query", "--db", str(older), "--game", GAME, "--position", position, "--json"]
        + ["--sides", "3", "--tag", "Variant=advanced"]
    )
    assert result.code == 0, result.stderr
    assert _ids(result) == [8]


def _position_after(path: Path, game_id: int, ply: int) -> str:
    with sqlite3.connect(path) as conn:
        (text,) = conn.execute("SELECT pgr FROM games WHERE id = ?", (game_id,)).fetchone()
    replayed = replay(parse_record(text))
    assert replayed.game is not None and replayed.initial_state is not None
    game = replayed.game
    state = replayed.initial_state
    for token in replayed.moves[:ply]:
        state = game.rules.apply(state, game.parse_move(state, token))
    return game.format_position(state)


def _ids(result) -> list[int]:
    return [row["id"] for row in json.loads(result.stdout)]


def _query(path: Path, position: str, *options: str):
    return run_cli(
        ["query", "--db", str(path), "--game", GAME, "--position", position, "--json", *options]
    )


def test_a_position_of_several_set_ups_names_the_options_that_choose_one(fresh):
    start = get_game(GAME).format_position(get_game(GAME).initial(3))
    result = _query(fresh, start)
    assert result.code == 2
    [line] = result.stderr.splitlines()
    assert "is a position of 3 set-ups of circular-reasoning in the archive" in line
    assert "--tag Variant=advanced" in line and "--tag Variant=basic" in line
    # the options it names choose: the three-sided advanced games from the start
    chosen = _query(fresh, start, "--tag", "Variant=advanced")
    assert chosen.code == 0, chosen.stderr
    ids = _ids(chosen)
    setups = _setups(fresh)
    assert ids == sorted(
        game_id
        for game_id, setup in setups.items()
        if setup.sides == 3 and setup.tags() == {"Variant": "advanced"}
    )
    assert ids  # the examples have some


def test_the_position_text_decides_between_set_ups(fresh):
    """Under ``--tag Variant=basic`` the archive holds basic games of two, three
    and four sides: a four-sided position reads under the four-sided set-up only,
    and needs no ``--sides``; the key looked up is that set-up's."""
    setups = _setups(fresh)
    four = [i for i, setup in setups.items() if setup.sides == 4 and setup.tags() == {}]
    assert four and {setup.sides for setup in setups.values()} == {2, 3, 4}
    position = _position_after(fresh, four[0], 9)
    result = _query(fresh, position, "--tag", "Variant=basic")
    assert result.code == 0, result.stderr
    assert _ids(result) == [four[0]]
    # under the other setting no game has it: the keys of two set-ups never meet
    other = _query(fresh, position, "--tag", "Variant=advanced")
    assert other.code == 0, other.stderr
    assert _ids(other) == []


def test_a_novelty_is_found_among_the_games_of_the_record_s_set_up(fresh):
    from partita.analysis.novelty import novelty_against_archive

    with sqlite3.connect(fresh) as conn:
        (text,) = conn.execute("SELECT pgr FROM games WHERE id = 9").fetchone()
    record = parse_record(text)
    setup = Configuration.of(get_game(GAME), count_sides(record.tags, 2)[0], record.tags)
    with archive(fresh, readonly=True) as opened:
        novelty = novelty_against_archive(record, opened, game_id=9)
    same = [game_id for game_id, other in _setups(fresh).items() if other == setup and game_id != 9]
    assert novelty.reference_games == len(same)
