"""Twins: the same game on the board, whatever the tags, comments and spellings."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from partita.bulk import import_paths
from partita.cli.app import _register_commands, app
from partita.database import open_archive
from partita.database.schema import archive
from partita.database.twins import find_twins, twins_to_delete
from partita.errors import ArchiveError
from partita.game.registry import get_game
from partita.notation.reader import read_records
from partita.notation.replay import replay
from partita.notation.writer import write_record

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GAMES = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir() and path.name != "invalid")


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def respellings(token: str) -> list[str]:
    """Other ways of writing ``token`` that a game's reader may accept."""
    return [
        candidate
        for candidate in (
            token.upper(),
            token.lower(),
            token.swapcase(),
            token.replace("*y", "*Y").replace("*n", "*N"),
        )
        if candidate != token
    ]


def pick(game: str):
    """A valid example of ``game`` with at least two plies, one of which has another
    spelling its reader accepts: (record, replayed, ply index, the other spelling)."""
    notation = get_game(game)
    for path in sorted((EXAMPLES / game).glob("*.pgr")):
        for record in read_records(path):
            replayed = replay(record)
            if not replayed.valid or replayed.plies < 2:
                continue
            for index, token in enumerate(replayed.moves):
                for candidate in respellings(token):
                    try:
                        if notation.canonical_token(candidate) == token:
                            return record, replayed, index, candidate
                    except ValueError:
                        continue
    raise AssertionError(f"no example of {game} has a move with another spelling")


def text_of(tags: dict[str, str], moves: list[str], result: str, comment: str = "") -> str:
    header = "".join(
        '[{} "{}"]\n'.format(name, value.replace("\\", "\\\\").replace('"', '\\"'))
        for name, value in tags.items()
    )
    return f"{header}\n{' '.join(moves)}{comment} {result}\n"


@cache
def variants(game: str) -> tuple[list[str], str]:
    """Records of one game, all twins (the canonical original with its comments and
    variations; bare moves; another Event; an added comment; one move re-spelled; an
    added tag), and one that is not a twin (the last move left out)."""
    record, replayed, index, respelled = pick(game)
    tags = dict(record.tags)
    moves = list(replayed.moves)
    result = tags["Result"]
    other_spelling = [*moves]
    other_spelling[index] = respelled
    twins = [
        write_record(record),
        text_of(tags, moves, result),
        text_of({**tags, "Event": "Another event entirely"}, moves, result),
        text_of(tags, moves, result, comment=" {a comment added later}"),
        text_of(tags, other_spelling, result),
        text_of({**tags, "Annotator": "Ada", "Round": "99"}, moves, result),
    ]
    unfinished = {**tags, "Result": "*"}
    unfinished.pop("Termination", None)
    shorter = text_of(unfinished, moves[:-1], "*")
    for text in (*twins, shorter):
        [again] = read_records(text)
        assert replay(again).valid, text
    return twins, shorter


def archive_of(tmp_path: Path, texts: list[str]) -> tuple[Path, object]:
    source = tmp_path / "records.pgr"
    source.write_text("\n".join(texts), encoding="utf-8")
    target = tmp_path / "twins.db"
    with archive(target) as opened:
        return target, import_paths(opened, [source])


@pytest.mark.parametrize("game", GAMES)
def test_twins_of_every_game_are_found_whatever_their_tags_comments_and_spellings(
    game, tmp_path, runner
):
    twins, shorter = variants(game)
    target, summary = archive_of(tmp_path, [*twins, shorter])
    assert summary.imported == len(twins) + 1  # no twin is a duplicate: all are stored
    assert summary.twins == [
        {"game": game_id, "twin_of": 1} for game_id in range(2, len(twins) + 1)
    ]
    outcome = runner.invoke(app, ["twins", "--db", str(target), "--json"])
    assert outcome.exit_code == 0, outcome.output
    [group] = json.loads(outcome.stdout)["groups"]
    assert [entry["id"] for entry in group["games"]] == list(range(1, len(twins) + 1))
    assert group["ply"] is None
    assert {entry["game"] for entry in group["games"]} == {game}


@pytest.mark.parametrize("game", GAMES)
def test_fuzzy_twins_share_the_position_at_a_ply(game, tmp_path):
    twins, shorter = variants(game)
    target, _ = archive_of(tmp_path, [*twins, shorter])
    plies = open_archive(target).execute("SELECT plies FROM games WHERE id = 1").fetchone()[0]
    with archive(target, readonly=True) as opened:
        [at_end] = find_twins(opened, fuzzy_depth=plies)
    assert at_end.ids == list(range(1, len(twins) + 1))  # the shorter game never got there
    with archive(target, readonly=True) as opened:
        [before_end] = find_twins(opened, fuzzy_depth=plies - 1)
    assert before_end.ids == list(range(1, len(twins) + 2)) and before_end.ply == plies - 1
    with archive(target, readonly=True) as opened:
        assert find_twins(opened, fuzzy_depth=plies + 1) == []


def test_other_moves_another_game_or_an_invalid_record_are_no_twins(tmp_path):
    texts = [
        '[Game "forza4x4"]\n[Result "*"]\n\nt4 t5 t6 *\n',
        '[Game "forza4x4"]\n[Result "*"]\n\nt6 t5 t4 *\n',  # the same position, other moves
        '[Game "connect4"]\n[Result "*"]\n\nt4 t5 t6 *\n',  # the same moves, another game
        '[Game "forza4x4"]\n[Result "*"]\n\nt4 t5 t6 z9 *\n',  # invalid: no twin key
    ]
    target, summary = archive_of(tmp_path, texts)
    assert summary.imported == 4 and summary.twins == []
    with archive(target, readonly=True) as opened:
        assert find_twins(opened) == []
    assert open_archive(target).execute("SELECT twin_key FROM games WHERE id = 4").fetchone() == (
        None,
    )
    # At ply 3 the transposition and the invalid record's legal prefix meet game 1.
    with archive(target, readonly=True) as opened:
        [same_position] = find_twins(opened, fuzzy_depth=3)
    assert same_position.ids == [1, 2, 4]
    with archive(target, readonly=True) as opened:
        [same_start] = find_twins(opened, fuzzy_depth=2)  # t4 t5, not t6 t5
    assert same_start.ids == [1, 4]


def test_filters_choose_which_games_can_be_twins(tmp_path):
    twins, _ = variants("forza4x4")
    target, _ = archive_of(tmp_path, twins)
    event = pick("forza4x4")[0].tags["Event"]
    assert "another" not in event.casefold()
    with archive(target, readonly=True) as opened:
        [group] = find_twins(opened, event=event)  # all but the twin with another Event
    assert group.ids == [1, 2, 4, 5, 6]
    with archive(target, readonly=True) as opened:
        assert find_twins(opened, event="another event") == []  # one game alone
    with archive(target, readonly=True) as opened:
        [both] = find_twins(opened, tags=["Round=99"], fuzzy_depth=1) or [None]
    assert both is None  # one game with Round 99: no pair


def test_deleting_twins_keeps_one_of_each_group(tmp_path, runner):
    twins, shorter = variants("connect4")
    target, _ = archive_of(tmp_path, [*twins, shorter])
    outcome = runner.invoke(
        app, ["twins", "--db", str(target), "--delete", "--keep", "most-tags", "--yes", "--json"]
    )
    assert outcome.exit_code == 0, outcome.output
    data = json.loads(outcome.stdout)
    most_tags = len(twins)  # the last twin has two more tags than the others
    assert data["groups"][0]["kept"] == most_tags
    assert data["deleted"]["games"] == [game_id for game_id in range(1, most_tags)]
    db = open_archive(target)
    assert [row[0] for row in db.execute("SELECT id FROM games ORDER BY id")] == [
        most_tags,
        most_tags + 1,
    ]
    assert db.execute(
        "SELECT count(*) FROM positions WHERE game_id NOT IN (SELECT id FROM games)"
    ).fetchone() == (0,)
    with archive(target, readonly=True) as opened:
        assert find_twins(opened) == []


def test_keep_oldest_and_the_confirmation(tmp_path, runner):
    twins, _ = variants("universal-forces")
    target, _ = archive_of(tmp_path, twins)
    declined = runner.invoke(app, ["twins", "--db", str(target), "--delete"], input="n\n")
    assert declined.exit_code == 1 and "nothing deleted" in declined.output
    with archive(target, readonly=True) as opened:
        assert len(find_twins(opened)[0].ids) == len(twins)
    with archive(target, readonly=True) as opened:
        groups = find_twins(opened)
    assert twins_to_delete(groups, "oldest") == list(range(2, len(twins) + 1))
    assert groups[0].kept == 1
    accepted = runner.invoke(app, ["twins", "--db", str(target), "--delete"], input="y\n")
    assert accepted.exit_code == 0, accepted.output
    assert f"deleted {len(twins) - 1} twins" in accepted.output
    assert open_archive(target).execute("SELECT id FROM games").fetchall() == [(1,)]


def test_twin_mistakes(tmp_path, runner):
    twins, _ = variants("forza4x4")
    target, _ = archive_of(tmp_path, twins)
    outcome = runner.invoke(app, ["twins", "--db", str(target), "--keep", "oldest"])
    assert outcome.exit_code == 2 and "--keep" in outcome.output
    outcome = runner.invoke(app, ["twins", "--db", str(target), "--fuzzy-depth", "0"])
    assert outcome.exit_code == 2
    with (
        pytest.raises(ArchiveError, match="counts plies from 1"),
        archive(target, readonly=True) as opened,
    ):
        find_twins(opened, fuzzy_depth=0)
    with (
        pytest.raises(ArchiveError, match="keep 'newest' is not one of oldest, most-tags"),
        archive(target, readonly=True) as opened,
    ):
        twins_to_delete(find_twins(opened), "newest")


def test_the_twin_query_is_a_group_by_on_the_index(tmp_path):
    twins, _ = variants("forza4x4")
    target, _ = archive_of(tmp_path, twins)
    db = open_archive(target)
    plan = " ".join(
        row[-1]
        for row in db.execute(
            "EXPLAIN QUERY PLAN SELECT group_concat(id) FROM games WHERE twin_key IS NOT NULL "
            "GROUP BY twin_key HAVING count(*) > 1"
        )
    )
    assert "COVERING INDEX games_twin" in plan and "TEMP B-TREE" not in plan
