"""The report's overview of the selection: the archive at a glance (games by game,
status, results, players, years) and the results per player."""

from __future__ import annotations

from partita.analysis import charts
from partita.analysis.report.tallies import wdl_bar
from partita.errors import UnknownGameError
from partita.game.registry import get_game
from partita.game.rules import DRAW, WIN, parse_result_token

__all__ = ["glance", "players_table"]


def glance(rows: list[dict]) -> dict:
    """Counts by game, status, result, players and year."""
    by_game: dict[str, dict] = {}
    players: set[str] = set()
    years: dict[str, int] = {}
    for row in rows:
        name = row["game"] or "?"
        entry = by_game.setdefault(
            name,
            {
                "game": name,
                "games": 0,
                "valid": 0,
                "invalid": 0,
                "results": {},
                "plies": [],
                "first": None,
                "last": None,
                "players": set(),
            },
        )
        entry["games"] += 1
        entry["valid" if row["status"] == "valid" else "invalid"] += 1
        result = row["result"] or "*"
        entry["results"][result] = entry["results"].get(result, 0) + 1
        entry["plies"].append(row["plies"])
        if row["date_min"] and (entry["first"] is None or row["date_min"] < entry["first"][0]):
            entry["first"] = (row["date_min"], row["date"])
        if row["date_max"] and (entry["last"] is None or row["date_max"] > entry["last"][0]):
            entry["last"] = (row["date_max"], row["date"])
        for seat in range(1, 5):
            player = row[f"player{seat}"]
            if player:
                players.add(player)
                entry["players"].add(player)
        if row["date_min"]:
            year = row["date_min"][:4]
            years[year] = years.get(year, 0) + 1
    games = []
    for name in sorted(by_game):
        entry = by_game[name]
        try:
            title = get_game(name).rules.title
        except UnknownGameError:
            title = name
        plies = entry["plies"]
        games.append(
            {
                "game": name,
                "title": title,
                "games": entry["games"],
                "valid": entry["valid"],
                "invalid": entry["invalid"],
                "results": sorted(entry["results"].items(), key=lambda item: -item[1]),
                "players": len(entry["players"]),
                "first": entry["first"][1] if entry["first"] else None,
                "last": entry["last"][1] if entry["last"] else None,
                "mean_plies": round(sum(plies) / len(plies), 1) if plies else 0,
            }
        )
    chart = None
    if years:
        ordered = sorted(years)
        chart = charts.bar_chart(
            ordered,
            [years[year] for year in ordered],
            title="Games per year",
            ylabel="games",
            salt="years",
        )
    dates = [row["date_min"] for row in rows if row["date_min"]]
    return {
        "total": len(rows),
        "valid": sum(1 for row in rows if row["status"] == "valid"),
        "invalid": sum(1 for row in rows if row["status"] != "valid"),
        "players": len(players),
        "first": min(dates) if dates else None,
        "last": max(row["date_max"] for row in rows if row["date_max"]) if dates else None,
        "by_game": games,
        "years_chart": chart,
    }


def players_table(rows: list[dict], limit: int) -> dict:
    """Results per player over the valid games (their results agree with the moves)."""
    table: dict[str, dict] = {}
    for row in rows:
        if row["status"] != "valid":
            continue
        sides = row["sides"] or 2
        try:
            scores = parse_result_token(row["result"] or "*", sides)
        except ValueError:
            scores = None
        for seat in range(sides):
            name = row.get(f"player{seat + 1}") if seat < 4 else None
            if not name:
                continue
            entry = table.setdefault(
                name,
                {
                    "name": name,
                    "games": 0,
                    "won": 0,
                    "drawn": 0,
                    "lost": 0,
                    "unfinished": 0,
                    "played": set(),
                },
            )
            entry["games"] += 1
            entry["played"].add(row["game"])
            if scores is None:
                entry["unfinished"] += 1
            elif scores[seat] == WIN:
                entry["won"] += 1
            elif scores[seat] == DRAW:
                entry["drawn"] += 1
            else:
                entry["lost"] += 1
    players = []
    for entry in table.values():
        decided = entry["won"] + entry["drawn"] + entry["lost"]
        entry["score"] = (entry["won"] + entry["drawn"] / 2) / decided if decided else None
        entry["played"] = ", ".join(sorted(entry["played"]))
        entry["bar"] = wdl_bar(entry["won"], entry["drawn"], entry["lost"], entry["unfinished"])
        players.append(entry)
    players.sort(key=lambda entry: (-entry["games"], entry["name"]))
    return {"rows": players[:limit], "total": len(players), "shown": min(limit, len(players))}
