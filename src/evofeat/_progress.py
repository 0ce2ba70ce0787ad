"""Progress of long commands on standard error: a bar on a terminal, a plain line now and then in a log."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import IO, Any

__all__ = ["Progress"]


class Progress:
    """Progress of ``total`` steps on ``stream`` (standard error by default).

    On a terminal a tqdm bar is drawn (and erased when done, so nothing is
    left over the command's output or an error message). Elsewhere (a log
    file, a pipe) no ``\\r`` frames are written: one plain line every
    ``every`` seconds while the work runs, nothing when it is quick.
    Call it with the number of steps done.

    Examples
    --------
    >>> import io
    >>> log = io.StringIO()
    >>> with Progress(3, "demo", unit="cell", stream=log, every=0.0) as step:
    ...     for done in range(1, 4):
    ...         step(done)
    >>> print(log.getvalue().strip())
    demo: 1/3 cells
    demo: 2/3 cells
    demo: 3/3 cells
    """

    def __init__(
        self,
        total: int,
        desc: str,
        *,
        unit: str = "step",
        stream: IO[str] | None = None,
        every: float = 30.0,
    ) -> None:
        self.total = int(total)
        self.desc = desc
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self.every = every
        self._bar: Any = None
        self._last = time.monotonic()
        isatty = getattr(self.stream, "isatty", None)
        if isatty is not None and isatty():
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no thread that redraws the bar after the command printed
            self._bar = tqdm(
                total=self.total,
                desc=desc,
                unit=unit,
                file=self.stream,
                leave=False,
                dynamic_ncols=True,
            )

    def __call__(self, done: int, total: int | None = None) -> None:
        """Report ``done`` steps (of ``total`` when it changed)."""
        if total is not None and total != self.total:
            self.total = int(total)
            if self._bar is not None:
                self._bar.total = self.total
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            return
        now = time.monotonic()
        if now - self._last >= self.every:
            self._last = now
            plural = "s" if self.total != 1 else ""
            print(
                f"{self.desc}: {done}/{self.total} {self.unit}{plural}",
                file=self.stream,
                flush=True,
            )

    def close(self) -> None:
        """Erase the bar (a terminal) so that what is printed next starts on a clean line."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
