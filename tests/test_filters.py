"""The one selection of games (GameFilter) and the filter options of query, export,
tree and report: OR within an option, AND between options, the tag operators, and
accent-insensitive names, on a small archive written by hand and on every game's
examples."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from cli_runner import run_cli
from hypothesis import example, given
from hypothesis import strategies as st

from partita.analysis.tree import configurations_from_archive
from partita.bulk import import_paths
from partita.database import GameFilter, query_games
from partita.database.filters import TagCondition, fold
from partita.database.schema import archive
from partita.errors import ArchiveError, PartitaError, UnknownGameError
from partita.game.registry import all_games

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# fmt: off
RECORDS = [
    # (Event, Player1, Player2, Date, Result, extra tags, movetext)
    ("Spring Open", "Anna Rossi", "Bruno Bianchi", "2024.03.10", "1-0",
     {"Rating1": "1850", "Board": "3", "EventDate": "2024.03.09"}, "1. t4 r5 2. r5 t2 3. l8"),
    ("Spring Open", "Bruno Bianchi", "Carla Verdi", "2024.03.12", "0-1",
     {"Rating1": "1720", "Board": "12", "EventDate": "2024.03.09"}, "1. t4 r5 2. t1"),
    ("Autumn Cup", "Zoë Müller", "Dario", "2023.10.05", "1/2-1/2",
     {"Rating1": "2010", "EventDate": "2023.10.01"}, "1. t4 t4 2. b1"),
    ("Autumn Cup", "Dario", "Elena", "2023.10.06", "*",
     {"Rating1": "unrated"}, "1. r5 t4"),
]
# fmt: on
NAMES = [(event, one) for event, one, *_ in RECORDS]
SPRING_ANNA, SPRING_BRUNO, AUTUMN_ZOE, AUTUMN_DARIO = NAMES


def hand_text() -> str:
    texts = []
    for event, one, two, date, result, extra, movetext in RECORDS:
        tags = "".join(f'[{name} "{value}"]\n' for name, value in extra.items())
        texts.append(
            f'[Game "forza4x4"]\n[Event "{event}"]\n[Date "{date}"]\n[Player1 "{one}"]\n'
            f'[Player2 "{two}"]\n[Result "{result}"]\n{tags}\n{movetext} {result}\n'
        )
    return "\n".join(texts)


@pytest.fixture(scope="module")
def hand_archive(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("filters")
    (folder / "hand.pgr").write_text(hand_text(), encoding="utf-8")
    with archive(folder / "hand.db") as opened:
        summary = import_paths(opened, [folder / "hand.pgr"])
    assert (summary.imported, summary.invalid) == (4, 0)
    return folder / "hand.db"


@pytest.fixture(scope="module")
def examples_archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("examples") / "games.db"
    code, _, err = run_cli(["import", str(EXAMPLES), "--db", str(db)])
    assert code in (0, 1), err
    return db


def who(rows: list[dict]) -> list[tuple[str, str]]:
    return [(row["event"], row["players"][0]) for row in rows]


# -- the value ------------------------------------------------------------------------------


def test_singular_keywords_and_scalars_become_tuples():
    selection = GameFilter.of(game="forza4x4", player="anna", sides=2, tags=["Board=3"])
    assert selection.games == ("forza4x4",) and selection.players == ("anna",)
    assert selection.sides == (2,) and selection.tags == ("Board=3",)
    assert not GameFilter() and selection


def test_keywords_narrow_a_selection_with_and():
    user = GameFilter(tags=("Board=3", "Board=12"))
    narrowed = GameFilter.of(user, tags=["Board=12"], sides=2)
    # sides was open: set on the selection; tags were taken: a narrowing filter.
    assert narrowed.sides == (2,) and narrowed.tags == user.tags
    assert narrowed.within == (GameFilter(tags=("Board=12",)),)
    assert GameFilter.of(GameFilter(position="x"), position="y").position == "y"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Board", "NAME=VALUE"),
        ("3=Board", "NAME=VALUE"),
        ("Event~(", "bad regular expression"),
        ("Board>=many", "compares numbers or dates"),
    ],
)
def test_malformed_tag_filters_are_refused_when_made(text, message):
    with pytest.raises(ArchiveError, match=message):
        GameFilter(tags=(text,))


def test_unknown_games_and_bad_dates_are_refused_when_made():
    with pytest.raises(UnknownGameError):
        GameFilter(games=("chess",))
    with pytest.raises(ArchiveError, match="no month 13"):
        GameFilter(date_to="2024.13")
    with pytest.raises(TypeError, match="unknown filter"):
        GameFilter.of(colour="red")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Elo>=1800", ("Elo", ">=", "1800", "number")),
        ("Elo<2.5", ("Elo", "<", "2.5", "number")),
        ("EventDate>2024", ("EventDate", ">", "2024", "date")),
        ("Played<=2024.03", ("Played", "<=", "2024.03", "date")),
        ("Event~^Spr", ("Event", "~", "^Spr", None)),
        ("Year>2024", ("Year", ">", "2024", "number")),
        ("League=a=b", ("League", "=", "a=b", None)),
    ],
)
def test_tag_conditions_parse(text, expected):
    condition = TagCondition.parse(text)
    assert (condition.name, condition.operator, condition.value, condition.kind()) == expected
    assert condition.notation() == text


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Zoë", "zoe"),
        ("ZOE", "zoe"),
        ("Müller", "muller"),
        ("ﬁsher", "fisher"),
        ("Straße", "strasse"),
        ("Işık", "isik"),  # Turkish dotless i: its capital is I
        ("İSTANBUL", "istanbul"),
        ("ᾳ", "αι"),  # the iota subscript is the iota that case mapping writes
        ("㎒", "mhz"),  # a decomposition that brings capitals
    ],
)
def test_fold_drops_accents_and_case(text, folded):
    assert fold(text) == folded


@example("ı")
@example("\u0345")
@example("ᾀ")
@given(st.text())
def test_fold_is_idempotent_and_ignores_case(text):
    assert fold(fold(text)) == fold(text)
    assert fold(text.upper().lower()) == fold(text.lower())


# -- against an archive -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"player": ["anna", "carla"]}, [SPRING_ANNA, SPRING_BRUNO]),
        ({"player": ["ZOE"]}, [AUTUMN_ZOE]),
        ({"player": ["muller"]}, [AUTUMN_ZOE]),
        ({"player": ["dario", "anna"], "event": ["autumn"]}, [AUTUMN_ZOE, AUTUMN_DARIO]),
        ({"result": ["1-0", "0-1"]}, [SPRING_ANNA, SPRING_BRUNO]),
        ({"event": ["SPRING", "autumn"], "result": ["*"]}, [AUTUMN_DARIO]),
        ({"opening": ["t4 t4", "r5"]}, [AUTUMN_ZOE, AUTUMN_DARIO]),
        ({"tags": ["Board=3", "Board=12"]}, [SPRING_ANNA, SPRING_BRUNO]),
        ({"tags": ["Board=3", "Rating1=1850"]}, [SPRING_ANNA]),
        ({"tags": ["Board=3", "Rating1=1720"]}, []),
        ({"tags": ["Event~^Spr"]}, [SPRING_ANNA, SPRING_BRUNO]),
        ({"tags": ["Player1~(?i)zo"]}, [AUTUMN_ZOE]),
        ({"tags": ["Rating1>=1850"]}, [SPRING_ANNA, AUTUMN_ZOE]),
        ({"tags": ["Rating1>1850"]}, [AUTUMN_ZOE]),
        ({"tags": ["Rating1<=1850"]}, [SPRING_ANNA, SPRING_BRUNO]),
        ({"tags": ["Rating1<1850"]}, [SPRING_BRUNO]),
        ({"tags": ["Board>=9"]}, [SPRING_BRUNO]),  # as numbers: 12 >= 9
        ({"tags": ["Rating1>1800", "Rating1<2000"]}, [SPRING_ANNA]),
        ({"tags": ["EventDate>=2024"]}, [SPRING_ANNA, SPRING_BRUNO]),
        ({"tags": ["EventDate<2024"]}, [AUTUMN_ZOE]),
        ({"tags": ["EventDate>2023.10"]}, [SPRING_ANNA, SPRING_BRUNO]),
        ({"tags": ["EventDate<=2023.10"]}, [AUTUMN_ZOE]),
        ({"tags": ["Date>2024.03.10"]}, [SPRING_BRUNO]),
    ],
)
def test_filters_or_within_and_between(hand_archive, filters, expected):
    with archive(hand_archive, readonly=True) as opened:
        assert who(query_games(opened, **filters)) == expected


def test_a_selection_and_keywords_combine(hand_archive):
    user = GameFilter(players=("bruno", "dario"))
    with archive(hand_archive, readonly=True) as opened:
        assert who(query_games(opened, user)) == [
            SPRING_ANNA,
            SPRING_BRUNO,
            AUTUMN_ZOE,
            AUTUMN_DARIO,
        ]
    with archive(hand_archive, readonly=True) as opened:
        assert who(query_games(opened, user, event="spring", player="carla")) == [SPRING_BRUNO]


# -- the commands ---------------------------------------------------------------------------


def rows(db: Path, *args: str) -> list[dict]:
    code, out, err = run_cli(["query", "--db", str(db), *args, "--json"])
    assert code == 0, err
    return json.loads(out)


def test_repeated_player_is_or_on_the_command_line(hand_archive):
    assert who(rows(hand_archive, "--player", "carla", "--player", "ZOE")) == [
        SPRING_BRUNO,
        AUTUMN_ZOE,
    ]
    assert who(rows(hand_archive, "--player", "zoe")) == [AUTUMN_ZOE]
    assert who(rows(hand_archive, "--tag", "Rating1>=1850", "--tag", "Event~Cup")) == [AUTUMN_ZOE]


def test_a_bad_tag_filter_is_one_line(hand_archive):
    code, _, err = run_cli(["query", "--db", str(hand_archive), "--tag", "Event~("])
    assert code == 1 and "bad regular expression" in err and "Traceback" not in err


def example_games(db: Path) -> list[str]:
    """The supported games the examples hold (they also hold records of no known game)."""
    known = {notation.name for notation in all_games()}
    return sorted({row["game"] for row in rows(db)} & known)


def test_every_game_of_the_examples_is_selected_by_repeated_game(examples_archive):
    games = example_games(examples_archive)
    assert len(games) >= 4
    every = rows(examples_archive)
    for game in games:
        alone = rows(examples_archive, "--game", game)
        assert alone and {row["game"] for row in alone} == {game}
    first, second = games[:2]
    both = rows(examples_archive, "--game", first, "--game", second)
    assert {row["game"] for row in both} == {first, second}
    assert len(both) == sum(row["game"] in (first, second) for row in every)


def test_export_takes_the_same_filters(examples_archive, tmp_path):
    for game in example_games(examples_archive):
        target = tmp_path / f"{game}.pgr"
        code, _, err = run_cli(
            [
                "export",
                "--db",
                str(examples_archive),
                "--game",
                game,
                "--game",
                game,
                "-o",
                str(target),
            ]
        )
        assert code == 0, err
        assert target.read_text(encoding="utf-8").count("[Game ") == len(
            rows(examples_archive, "--game", game)
        )


def tree_games(db: Path, game: str, *args: str) -> int:
    """The games at the root of `partita tree` for ``game`` in its most played set-up."""
    with archive(db, readonly=True) as opened:
        configuration = configurations_from_archive(opened, game)[0][0]
    code, out, err = run_cli(
        ["tree", "--db", str(db), "--game", game, "--depth", "1", "--json",
         *shlex.split(configuration.options()), *args]
    )  # fmt: skip
    assert code == 0, err
    return json.loads(out)["games"]


def test_tree_takes_the_same_filters(examples_archive):
    for game in example_games(examples_archive):
        every = tree_games(examples_archive, game)
        assert every > 0
        results = ["1-0", "0-1", "1/2-1/2", "*", "1-0-0", "0-1-0", "0-0-1"]
        by_result = {
            result: tree_games(examples_archive, game, "--result", result) for result in results
        }
        assert sum(by_result.values()) == every, game
        both = tree_games(examples_archive, game, "--result", "1-0", "--result", "0-1")
        assert both == by_result["1-0"] + by_result["0-1"]


def test_report_takes_the_same_filters(examples_archive, tmp_path):
    target = tmp_path / "report.md"
    first, second = example_games(examples_archive)[:2]
    code, _, err = run_cli(
        ["report", "--db", str(examples_archive), "-o", str(target), "--game", first,
         "--game", second, "--no-charts"]
    )  # fmt: skip
    assert code == 0, err
    text = target.read_text(encoding="utf-8")
    assert f'game = "{first}", game = "{second}"' in text
    total = len(rows(examples_archive, "--game", first, "--game", second))
    assert f"from {total} games" in text


def test_filter_errors_name_the_option(hand_archive):
    code, _, err = run_cli(["query", "--db", str(hand_archive), "--sides", "5"])
    assert code == 2 and "--sides" in err
    with pytest.raises(PartitaError), archive(hand_archive, readonly=True) as opened:
        query_games(opened, date_from="2024/03")
