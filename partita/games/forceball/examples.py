"""Generate the shipped Forceball example records: one complete game per league.

Writes ``examples/forceball/<league>.pgr`` (the hand-made invalid records are not
touched). Seeded and deterministic: the same code gives the same files. Run from the
repository root::

    .venv/bin/python partita/games/forceball/examples.py [--out examples]

How a game is made: a seeded heuristic player builds each turn action by action on
the engine's turn runner (so every choice sees the table as it is): it draws unless
the top card is a Stress card it can avoid, keeps its speed near 3, answers with the
cheapest maneuver that beats the force to beat (the attacker shoots when it can,
the defender intercepts when it can), fouls now and then when nothing else answers,
always takes its reward, plays Lucky shot and Goalie when it can, and in the pro
league raises the stakes when it holds a strong answer. For each league, the first
seed whose game shows every event that league adds is kept. Comments are written by
the script at the interesting moments (goals, face-offs, fouls, Stress, Lucky shot,
Goalie, stakes, period ends, two turns in a row), and every record is replayed in
strict mode before it is written.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from partita.games.forceball.cards import ATTACK_TYPES, DEFENCE_TYPES
from partita.games.forceball.narration import narrate
from partita.games.forceball.notation import FORCEBALL
from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.sampler import ManeuverPlan, plan_increases
from partita.games.forceball.turn import Stage, TurnRunner
from partita.games.forceball.values import (
    EMPTY,
    JUNIOR,
    PRO,
    SENIOR,
    Action,
    Draw,
    End,
    FaceOff,
    ForceballState,
    ForceHand,
    ForceSpeed,
    Play,
    RefereeCheck,
    RewardHand,
    RewardSpeed,
    Shuffle,
    Special,
    SpeedUp,
    Stakes,
    Transform,
    Turn,
)
from partita.notation.model import Node, Record
from partita.notation.reader import parse_record
from partita.notation.replay import replay
from partita.notation.writer import write_record

PLAYERS = [
    ("Maja Lindqvist", "Tomás Ó Briain"),
    ("Ayşe Demir", "Kofi Mensah"),
    ("Léa Moreau", "Jonas Østergaard"),
    ("Priya Raman", "Mateus Ferreira"),
]
#: What each league's example must show (events named as in ``_events``).
WANTED = {
    "little": {"goal", "pass reward", "dribble reward", "interception", "two in a row"},
    "junior": {"goal", "face-off again", "transform", "increase", "period end"},
    "senior": {"goal", "lucky shot", "goalie", "seen foul", "unseen foul", "stress"},
    "pro": {"goal", "stakes accepted", "stakes declined", "lucky shot", "seen foul"},
}


# -- the player ----------------------------------------------------------------------------


def heuristic_turn(rules: ForceballRules, state: ForceballState, rng: random.Random) -> Turn:
    runner = TurnRunner(rules, state)
    actions: list[Action] = []

    def do(action: Action) -> None:
        actions.append(action)
        reason = runner.step(action)
        assert reason is None, (action, reason)

    def open_turn() -> bool:
        return runner.stage in (Stage.START, Stage.DRAWN, Stage.ADJUSTED)

    mover = runner.mover
    hand = runner.hands[mover]
    speed = runner.speed[mover]
    top = runner.draw[0] if runner.draw else None
    avoid = top is not None and rules.stress[top] and rng.random() < 0.6
    if runner.must_draw or (len(hand) < 6 and not avoid and rng.random() < 0.9):
        do(Draw())
    if open_turn() and hand:
        if len(speed) < 3 and rng.random() < 0.8:
            spare = _spare_card(rules, hand, len(speed), mover == runner.attacker)
            do(SpeedUp(rules.ids[spare]))
        elif rules.level >= JUNIOR and len(speed) > 3 and rng.random() < 0.5:
            count = 0
            for card in runner.draw[:2]:
                if rules.stress[card]:
                    break
                count += 1
            do(Transform(count))
    if open_turn():
        stake_first = (
            rules.level >= PRO
            and runner.requester != mover
            and runner.piles[1 - mover]
            and rng.random() < 0.15
        )
        if stake_first:
            do(Stakes(rng.random() < 0.6))
    if open_turn():
        choice = _choose(runner, rules, rng)
        if choice is None:
            do(End())
        else:
            do(Play(rules.ids[choice.card], choice.declared))
            if choice.from_speed:
                do(ForceSpeed(choice.from_speed))
            for extra in choice.from_hand:
                do(ForceHand(rules.ids[extra]))
            if choice.declared is not None:
                pile = runner.draw if runner.referee_pile() == "draw" else runner.discard
                if pile:
                    do(RefereeCheck(rules.ids[rng.choice(pile)]))
    if runner.stage == Stage.NEED_END:
        do(End())
    if runner.stage == Stage.WON:
        winner = runner.winner
        specials = []
        if winner == runner.attacker and runner.win_type in ("Pass", "Dribble"):
            specials = [c for c in runner.hands[winner] if rules.lucky[c]]
        elif winner != runner.attacker and runner.win_type in ("Block", "Tackle"):
            specials = [c for c in runner.hands[winner] if rules.goalie[c]]
        if specials:
            do(Special(rules.ids[specials[0]]))
        if runner.win_type in ("Pass", "Block"):
            do(RewardHand(min(3, len(runner.draw) + 1)))
        elif runner.win_type in ("Dribble", "Tackle"):
            cards = sorted(runner.draw[:2], key=lambda c: rules.speed_of[c])
            wanted = [rules.ids[c] for c in cards]
            if len(runner.draw) < 2:
                wanted.append(EMPTY)
            do(RewardSpeed(tuple(wanted)))
    return Turn(tuple(actions))


def _spare_card(rules: ForceballRules, hand: list[int], speed: int, attacking: bool) -> int:
    """The card to put on the speed pile: one the player could not make a maneuver
    with at the new speed (a card of the other side, or too fast), the weakest
    first; otherwise the weakest card. A player keeps what he can play now."""

    def playable(card: int) -> bool:
        info = rules.cards[card]
        natural = info.attack_type if attacking else info.defence_type
        return natural is not None and info.speed <= speed + 1

    keep = [card for card in hand if playable(card)]
    spares = [card for card in hand if not playable(card)] if len(keep) < 3 else hand
    return min(spares or hand, key=lambda card: (rules.force[card], rules.ids[card]))


def _choose(runner: TurnRunner, rules: ForceballRules, rng: random.Random) -> ManeuverPlan | None:
    """The cheapest answer (fewest increase cards, then the weakest card), preferring
    a Shot as the attacker and an Interception as the defender; a foul if nothing
    else answers (senior); ``None``: do not respond."""
    mover = runner.mover
    hand = runner.hands[mover]
    speed = runner.speed[mover]
    attacking = mover == runner.attacker
    allowed = ATTACK_TYPES if attacking else DEFENCE_TYPES
    favourite = "Shot" if attacking else "Interception"
    options: list[tuple[tuple[Any, ...], ManeuverPlan]] = []
    for card in hand:
        info = rules.cards[card]
        if info.speed > len(speed):
            continue
        natural = info.attack_type if attacking else info.defence_type
        kinds: list[tuple[str, str | None]] = [(natural, None)] if natural else []
        if rules.level >= SENIOR:
            kinds += [(kind, kind) for kind in allowed if not info.has_type(kind)]
        for kind, declared in kinds:
            plan = plan_increases(rules, card, kind, runner.beat, speed, hand)
            if plan is None:
                continue
            from_speed, from_hand = plan
            cost = (
                declared is not None,
                kind != favourite
                or (attacking and not runner.piles[1 - mover] and rng.random() < 0.7),
                from_speed + len(from_hand),
                info.force,
                rules.ids[card],
            )
            options.append((cost, ManeuverPlan(card, declared, from_speed, from_hand)))
    if not options:
        return None
    options.sort()
    best_cost, best = options[0]
    if best_cost[0] and rng.random() < 0.5:
        return None  # a foul is a risk: half the time the player gives up instead
    if rng.random() < 0.05:
        return None  # now and then a player saves his strength
    return best


# -- comments ------------------------------------------------------------------------------


def _events(
    rules: ForceballRules,
    state: ForceballState,
    move: Shuffle | FaceOff | Turn,
    after: ForceballState,
    names: Sequence[str],
    seen: set[str],
) -> tuple[list[str], str]:
    """The events of one ply (for the WANTED check) and its comment ('' for none):
    the narration a game being played tells too (:mod:`.narration`)."""
    events, notes = narrate(rules, state, move, after, names, seen)
    return events, "; ".join(notes)


# -- games and records -------------------------------------------------------------------


def play_game(league: str, seed: int, names: Sequence[str]) -> tuple[Record, set[str]]:
    game = FORCEBALL.configure({"League": league})
    rules = game.rules
    rng = random.Random(seed)
    state = rules.initial()
    tags = {
        "Game": "forceball",
        "Event": f"Forceball {league} league example",
        "Site": "Partita game club",
        "Date": f"2025.05.{10 + list(WANTED).index(league):02d}",
        "Round": "1",
        "Player1": names[0],
        "Player2": names[1],
        "Deck": "example",
        "League": league,
    }
    record = Record(tags=tags)
    record.root.comments.append(
        f"A complete {league} league game with the example deck, played by a seeded "
        "heuristic player (partita/games/forceball/examples.py)"
    )
    node = record.root
    seen: set[str] = set()
    commented: set[str] = set()
    while rules.outcome(state) is None:
        move: Shuffle | FaceOff | Turn
        if state.phase == "shuffle":
            order = list(rules.ids)
            rng.shuffle(order)
            move = Shuffle(tuple(order))
        elif state.phase == "faceoff":
            move = _face_off(rules, state, rng)
        else:
            move = heuristic_turn(rules, state, rng)
        after = rules.apply(state, move)
        events, comment = _events(rules, state, move, after, names, seen)
        keep = bool(comment) and (
            not set(events) <= commented
            or "goal" in events
            or "period end" in events
            or isinstance(move, (Shuffle, FaceOff))
        )
        commented.update(events)
        node = node.add(Node(game.format_move(state, move), comments=[comment] if keep else []))
        state = after
    outcome = rules.outcome(state)
    assert outcome is not None
    node.comments.append(f"Final score {state.scores[0]}-{state.scores[1]}: {outcome.reason}")
    record.result = outcome.result_token()
    record.tags["Result"] = record.result
    return record, seen


def _face_off(rules: ForceballRules, state: ForceballState, rng: random.Random) -> FaceOff:
    """Show the strongest attack card half the time, the weakest card otherwise."""
    shown = []
    for seat in (0, 1):
        hand = state.hands[seat]

        def strength(card: int) -> tuple[bool, int, str]:
            info = rules.cards[card]
            return (info.attack_type is not None, info.force, rules.ids[card])

        shown.append(max(hand, key=strength) if rng.random() < 0.5 else min(hand, key=strength))
    return FaceOff(rules.ids[shown[0]], rules.ids[shown[1]])


def build_files() -> dict[str, Record]:
    files = {}
    for index, league in enumerate(WANTED):
        names = PLAYERS[index]
        for seed in range(1000 * (index + 1), 1000 * (index + 1) + 500):
            record, seen = play_game(league, seed, names)
            if WANTED[league] <= seen:
                break
        else:
            raise SystemExit(f"no seed shows every {league} league event")
        files[f"{league}.pgr"] = record
    return files


def build(out: Path) -> list[tuple[Path, int]]:
    folder = out / "forceball"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, record in build_files().items():
        text = write_record(record)
        replayed = replay(parse_record(text), strict=True)
        if replayed.problems:
            raise SystemExit(f"{name}: {[str(p) for p in replayed.problems]}")
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append((path, 1))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("examples"))
    args = parser.parse_args(argv)
    for path, count in build(args.out):
        print(f"{path}: {count} record(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
