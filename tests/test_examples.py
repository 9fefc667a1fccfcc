"""The shipped examples: valid games replay strictly, invalid ones fail as documented.

Every folder of ``examples`` but ``invalid`` is named after a `Game` tag and holds
games that must replay without any problem in strict mode and survive a write/read
round trip (``forza4x4`` and ``connect4`` are made by ``tools/examples/gravity.py``
and together cover every kind of two-sided result). ``examples/invalid`` holds one
record per kind of problem, the games added after the foundation in a subfolder
each (``examples/invalid/<game>/``); the ``EXPECTED.toml`` of each folder says,
counted by hand, which problem each file gives, where, and whether the record is
valid in lenient and in strict mode.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from partita.notation.reader import parse_record, read_records
from partita.notation.replay import replay
from partita.notation.writer import write_record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAME_FOLDERS = tuple(
    sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir() and path.name != "invalid")
)
#: The folders tools/examples/gravity.py writes.
GENERATED_FOLDERS = ("forza4x4", "connect4")
VALID_FILES = sorted(path for folder in GAME_FOLDERS for path in (EXAMPLES / folder).glob("*.pgr"))
GENERATED_FILES = [path for path in VALID_FILES if path.parent.name in GENERATED_FOLDERS]
INVALID = EXAMPLES / "invalid"


def _load_expected() -> dict[str, dict]:
    """Every invalid file's expectation, keyed by its path under examples/invalid."""
    expected = {}
    for listing in sorted(INVALID.glob("**/EXPECTED.toml")):
        prefix = listing.parent.relative_to(INVALID).as_posix()
        for name, entry in tomllib.loads(listing.read_text(encoding="utf-8")).items():
            expected[name if prefix == "." else f"{prefix}/{name}"] = entry
    return expected


EXPECTED = _load_expected()


def _file_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _records(path: Path) -> list:
    records = list(read_records(path))
    assert records, f"{path} holds no record"
    return records


def _all_valid_records() -> list:
    return [record for path in VALID_FILES for record in read_records(path)]


# -- valid examples ---------------------------------------------------------------------


def test_every_game_folder_has_examples():
    for folder in GAME_FOLDERS:
        assert list((EXAMPLES / folder).glob("*.pgr")), f"no examples in {folder}"


@pytest.mark.parametrize("path", VALID_FILES, ids=_file_id)
def test_example_replays_strictly_valid(path):
    for record in _records(path):
        replayed = replay(record, strict=True)
        assert replayed.problems == [], "\n".join(str(p) for p in replayed.problems)
        assert replayed.valid
        assert record.game == path.parent.name
        assert record.result == record.tags["Result"]


@pytest.mark.parametrize("path", VALID_FILES, ids=_file_id)
def test_example_survives_write_and_read(path):
    for record in _records(path):
        text = write_record(record)
        again = parse_record(text)
        assert again.syntax_problems == []
        assert again.same_game(record)
        assert write_record(again) == text  # idempotent
        assert replay(again, strict=True).problems == []


def test_rulebook_example_ends_where_the_spec_says():
    [record] = _records(EXAMPLES / "forza4x4" / "rulebook-example.pgr")
    replayed = replay(record, strict=True)
    assert replayed.moves == ["t4", "r5", "r5", "t2", "l8"]
    assert replayed.final_position == "8/8/8/1o6/ox6/8/8/2xx4 o"
    assert replayed.outcome is None
    assert record.tags["Result"] == "*"
    comments = [node.comments for node in record.root.mainline()]
    assert all(comments), "every move of the worked example is explained"
    assert "row 8, column 4" in comments[0][0]
    assert "row 8, column 3" in comments[4][0]


def _result_kind(record, replayed) -> str:
    """How a game ended, in the terms of the spec's Results section."""
    if replayed.outcome is not None:
        winner = replayed.outcome.winner
        return "draw by the rules" if winner is None else f"line for {'xo'[winner]}"
    termination = record.tags.get("Termination")
    if record.tags["Result"] == "*" and termination in (None, "unterminated"):
        return "unfinished"
    return termination or "unexplained"


#: Every way a two-player game can end (spec: Results), each with the results it
#: may carry in the examples.
RESULT_KINDS = {
    "line for x": {"1-0"},
    "line for o": {"0-1"},
    "draw by the rules": {"1/2-1/2"},
    "unfinished": {"*"},
    "resignation": {"1-0", "0-1"},
    "time": {"1-0", "0-1"},
    "agreement": {"1/2-1/2"},
    "adjudication": {"1-0", "0-1", "1/2-1/2", "*"},
    "abandoned": {"1-0", "0-1", "1/2-1/2", "*"},
}
#: The kinds each game's examples must show (Connect Four: a smaller set).
REQUIRED = {
    "forza4x4": set(RESULT_KINDS),
    "connect4": {"line for x", "line for o", "draw by the rules", "unfinished", "resignation"},
}


@pytest.mark.parametrize("game", GENERATED_FOLDERS)
def test_examples_cover_every_result_kind(game):
    seen: dict[str, set[str]] = {}
    for path in (EXAMPLES / game).glob("*.pgr"):
        for record in read_records(path):
            replayed = replay(record, strict=True)
            kind = _result_kind(record, replayed)
            assert kind in RESULT_KINDS, f"{path.name}: {record.tags}"
            result = record.tags["Result"]
            assert result in RESULT_KINDS[kind], f"{path.name}: {kind} with {result}"
            if replayed.outcome is not None:
                assert record.tags.get("Termination", "normal") == "normal"
            seen.setdefault(kind, set()).add(result)
    assert REQUIRED[game] <= set(seen), f"missing: {REQUIRED[game] - set(seen)}"
    if game == "forza4x4":
        # both sides win by a line, with and without a Termination tag
        combos = {
            (record.tags["Result"], record.tags.get("Termination"))
            for path in (EXAMPLES / game).glob("*.pgr")
            for record in read_records(path)
        }
        for result in ("1-0", "0-1"):
            assert (result, "normal") in combos or (result, None) in combos
        assert ("*", "abandoned") in combos
        assert ("1/2-1/2", "adjudication") in combos


def test_examples_show_the_record_format_features():
    records = _all_valid_records()
    assert len(records) >= 40
    nodes = [node for record in records for node in record.root.walk() if node.move]
    assert any(node.suffix for node in nodes)
    assert any(node.nags for node in nodes)
    assert any(node.comments for node in nodes)
    assert any(node.starting_comments for node in nodes)
    assert any(record.root.comments for record in records)
    assert any("?" in record.tags.get("Date", "") for record in records)
    assert any(not record.tags.get("Player1", "a").isascii() for record in records)
    assert max(_variation_depth(record.root) for record in records) >= 3
    setups = [record for record in records if record.tags.get("SetUp") == "1"]
    assert {record.game for record in setups} >= {"forza4x4", "connect4"}
    assert any(record.tags["Position"].endswith(" o") for record in setups)


def _variation_depth(root) -> int:
    """The deepest nesting of variations under ``root`` (explicit stack)."""
    deepest = 0
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for index, child in enumerate(node.children):
            stack.append((child, depth + (index > 0)))
    return deepest


def test_setup_with_o_to_move_starts_with_a_continuation_number():
    setups = [
        record
        for record in _all_valid_records()
        if record.tags.get("SetUp") == "1" and record.tags["Position"].endswith(" o")
    ]
    assert any(record.game == "forza4x4" for record in setups)
    for record in setups:
        assert record.root.continuation.written_number == (1, True)


@pytest.mark.slow
def test_generator_reproduces_the_shipped_examples(tmp_path, monkeypatch):
    """tools/examples/gravity.py is seeded: run again, it writes the same files."""
    from example_generators import generator

    module = generator("gravity")

    written = [path for path, _ in module.build(tmp_path)]
    assert {_file_id(path) for path in written} == {_file_id(path) for path in GENERATED_FILES}
    for path in written:
        shipped = EXAMPLES / path.parent.name / path.name
        assert path.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")


# -- invalid examples ---------------------------------------------------------------------------


def test_expected_lists_every_invalid_file():
    on_disk = {path.relative_to(INVALID).as_posix() for path in INVALID.glob("**/*.pgr")}
    assert set(EXPECTED) == on_disk


def _invalid_cases():
    for name, expected in sorted(EXPECTED.items()):
        marks = []
        if "known_issue" in expected:
            marks.append(pytest.mark.xfail(reason=expected["known_issue"], strict=True))
        yield pytest.param(name, expected, id=name, marks=marks)


@pytest.mark.parametrize(("name", "expected"), list(_invalid_cases()))
def test_invalid_example_gives_its_problem(name, expected):
    path = INVALID / name
    [record] = _records(path)
    lenient = replay(record)
    strict = replay(record, strict=True)
    found = [(p.kind, p.line, p.column, p.ply) for p in lenient.problems]
    wanted = (expected["kind"], expected["line"], expected["column"], expected.get("ply"))
    assert found == [wanted]
    [problem] = lenient.problems
    assert problem.file == str(path)
    for words in expected["says"]:
        assert words in problem.message, f"{problem.message!r} does not say {words!r}"
    assert lenient.valid is expected["lenient_valid"]
    assert strict.valid is expected["strict_valid"]
    assert [(p.kind, p.line, p.column) for p in strict.problems] == [wanted[:3]]
    assert all(p.severity == "error" for p in strict.problems)


def test_invalid_examples_say_what_is_wrong():
    for name in EXPECTED:
        text = (INVALID / name).read_bytes().decode("utf-8", "replace")
        assert text.count("Wrong on purpose") == 1, f"{name} does not say what is wrong"
