"""Benchmark: the HTML report's time and size (target: 1,000 games under 10 s and 5 MB).

    .venv/bin/python benchmarks/bench_report.py [--games 1000] [--keep FOLDER]

Setup (tests/report_archives.py): the shipped examples (90 games), and the examples
with ``--games`` games of random play added, once Forza 4x4 only and once a mix of
games (Forza 4x4, Connect Four, Circular Reasoning and Universal Forces, the last
two cut at 150 plies).

Measured, each archive in a fresh process: ``build_report`` (the archive's queries,
the opening trees, the diagrams, the sections, every game the page names replayed
for the viewer) and ``render_html`` (the charts drawn, the page written), wall and
CPU time (the process's own: other work on a shared machine counts in the wall
time, not in the CPU time), and the page's size with its parts (the viewer's store,
the SVG). Ratios are against the 90 examples in the same run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from partita.database.schema import archive as opened_archive

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 10.0
TARGET_MB = 5.0


def measure(archive: Path, page: Path) -> dict:
    """Build and render the report of ``archive`` into ``page``; the figures."""
    import re

    from partita.analysis.report import build_report, render_html

    wall, cpu = time.perf_counter(), time.process_time()
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened)
    built_wall, built_cpu = time.perf_counter(), time.process_time()
    html = render_html(data)
    done_wall, done_cpu = time.perf_counter(), time.process_time()
    page.write_text(html, encoding="utf-8")
    store = re.search(r'id="partita-data">(.*?)</script>', html, re.S)
    svg = sum(len(match) for match in re.findall(r"<svg.*?</svg>", html, re.S))
    return {
        "games": data["glance"]["total"],
        "build_wall": built_wall - wall,
        "build_cpu": built_cpu - cpu,
        "render_wall": done_wall - built_wall,
        "render_cpu": done_cpu - built_cpu,
        "bytes": len(html.encode("utf-8")),
        "store_bytes": len(store.group(1).encode("utf-8")) if store else 0,
        "svg_bytes": svg,
        "stored_games": len(data["viewer"]["games"]),
        "charts": len(re.findall(r'<div class="chart"><svg', html)),
    }


def _in_fresh_process(archive: Path, page: Path) -> dict:
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[3]); "
        "from bench_report import measure; from pathlib import Path; "
        "print(json.dumps(measure(Path(sys.argv[1]), Path(sys.argv[2]))))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code, str(archive), str(page), str(Path(__file__).parent)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(output.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="simulated games added")
    parser.add_argument("--keep", type=Path, help="build the archives and pages here")
    arguments = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from report_archives import simulated_archive

    with tempfile.TemporaryDirectory() as temporary:
        folder = arguments.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        archives = {"examples": simulated_archive(folder, 0, mixed=False)}
        for mixed in (False, True):
            name = f"+{arguments.games} {'mixed' if mixed else 'forza4x4'}"
            archives[name] = simulated_archive(folder, arguments.games, mixed=mixed)
        print(
            f"{'archive':<18} {'games':>6} {'build s':>14} {'render s':>14} {'total s':>14} "
            f"{'MB':>6} {'store MB':>8} {'svg MB':>7} {'stored':>6} {'charts':>6} {'x time':>6}"
        )
        base = None
        for name, archive in archives.items():
            row = _in_fresh_process(archive, folder / f"{archive.stem}.html")
            total_wall = row["build_wall"] + row["render_wall"]
            total_cpu = row["build_cpu"] + row["render_cpu"]
            base = base or total_cpu
            print(
                f"{name:<18} {row['games']:>6} "
                f"{row['build_wall']:>6.1f} ({row['build_cpu']:>5.1f}) "
                f"{row['render_wall']:>6.1f} ({row['render_cpu']:>5.1f}) "
                f"{total_wall:>6.1f} ({total_cpu:>5.1f}) "
                f"{row['bytes'] / 1e6:>6.2f} {row['store_bytes'] / 1e6:>8.2f} "
                f"{row['svg_bytes'] / 1e6:>7.2f} {row['stored_games']:>6} {row['charts']:>6} "
                f"{total_cpu / base:>6.2f}"
            )
        print(
            f"(seconds: wall, CPU in parentheses; x time: CPU against the examples; "
            f"targets for 1,000 games: {TARGET_SECONDS:.0f} s, {TARGET_MB:.0f} MB)"
        )


if __name__ == "__main__":
    main()
