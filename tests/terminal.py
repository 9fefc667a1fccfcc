"""A program run on a pseudo-terminal, for the tests of interactive commands.

The standard library's :func:`pty.openpty` gives the program a terminal of its own
(so ``isatty()`` is true and readline edits and completes lines); the test writes
keystrokes to it and reads what the program draws, waiting for the text it
expects. No third-party package (pexpect) is needed for this much.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _own_terminal() -> None:
    """In the child: a session of its own whose controlling terminal is the
    pseudo-terminal (so that Ctrl-C sends it SIGINT, as a real terminal would)."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """``partita ARGS`` on a pseudo-terminal of its own."""

    def __init__(
        self,
        *args: str,
        cwd: Path | None = None,
        stdout: Any = None,
        columns: int = 100,
        env: dict[str, str] | None = None,
    ) -> None:
        """``stdout``: a file for the program's standard output instead of the
        terminal (its input and stderr stay on the terminal); ``columns``: the
        terminal's width; ``env``: variables added to the environment."""
        env_added = env
        env = {
            name: value
            for name, value in os.environ.items()
            if name not in ("PARTITA_DB", "PARTITA_DEBUG", "PARTITA_DECKS")
        }
        env.update(TERM="xterm", COLUMNS=str(columns), LINES="40", **(env_added or {}))
        controller, terminal = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "partita", *args],
            stdin=terminal,
            stdout=terminal if stdout is None else stdout,
            stderr=terminal,
            cwd=cwd or ROOT,
            env=env,
            preexec_fn=_own_terminal,
        )
        os.close(terminal)
        self.controller = controller
        self.output = b""
        self.seen = 0

    def _read(self, timeout: float) -> bool:
        """Read what the program wrote within ``timeout`` seconds; false once it is gone."""
        ready, _, _ = select.select([self.controller], [], [], max(timeout, 0))
        if not ready:
            return True
        try:
            data = os.read(self.controller, 65536)
        except OSError:  # the program has ended and closed its side
            return False
        self.output += data
        return bool(data)

    def expect(self, text: str, timeout: float = 120) -> str:
        """Wait until the program writes ``text``; what it wrote up to there, since
        the last expectation met (an ``AssertionError`` with all of it if not)."""
        wanted = text.encode()
        deadline = time.monotonic() + timeout
        while True:
            found = self.output.find(wanted, self.seen)
            if found >= 0:
                chunk = self.output[self.seen : found + len(wanted)]
                self.seen = found + len(wanted)
                return chunk.decode("utf-8", "replace")
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                rest = self.output[self.seen :].decode("utf-8", "replace")
                raise AssertionError(f"{text!r} never came; the program wrote:\n{rest}")

    def send(self, keys: str) -> None:
        os.write(self.controller, keys.encode())

    def interrupt(self, timeout: float = 60) -> None:
        """Press Ctrl-C, and again every second while the program runs (at most
        ``timeout`` seconds): CPython's readline misses a SIGINT that arrives after
        it has drawn the prompt but before it waits for input (it then waits for
        the next key), a window a loaded machine sometimes hits; a user presses
        Ctrl-C again."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self.send("\x03")
            try:
                self.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                continue

    def line(self, text: str) -> None:
        """Type ``text`` and Enter."""
        self.send(text + "\r")

    def close(self, timeout: float = 60) -> int:
        """Wait for the program to end; its exit code."""
        deadline = time.monotonic() + timeout
        while self._read(deadline - time.monotonic()) and time.monotonic() < deadline:
            pass
        try:
            return self.process.wait(timeout=max(deadline - time.monotonic(), 1))
        finally:
            os.close(self.controller)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
