"""Local parallel work that is safe to interrupt and leaves no processes behind.

Tasks run in joblib's loky worker processes, each with one BLAS thread (so a
result does not depend on where it ran: a sum split over threads adds in
another order). There are never more workers than cores or tasks. The workers
ignore Ctrl-C, SIGTERM and SIGHUP (the main process decides), leave when idle
for :data:`IDLE_TIMEOUT` seconds, and exit within a second of the main process
dying, even by ``kill -9``. A worker that dies (killed, out of memory) ends
the work with :class:`WorkerDied`.

SIGTERM (``kill``, ``timeout``, batch schedulers) and SIGHUP (a closed
terminal) are handled as Ctrl-C once :func:`stop_on_signals` is set up: the
work stops where Ctrl-C would stop it, keeping what finished, and
:func:`stop_signal` says which signal it was (the exit code is 128 + it).
"""

from __future__ import annotations

import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from itertools import chain, islice
from typing import Any

from evofeat.base.errors import InputError

__all__ = [
    "IDLE_TIMEOUT",
    "JobsCappedWarning",
    "WorkerDied",
    "deferred_sigint",
    "imap_unordered",
    "n_workers",
    "one_blas_thread",
    "stop_on_signals",
    "stop_signal",
]

#: seconds an idle worker process waits for more work before it exits
IDLE_TIMEOUT = 10

_ONE_THREAD = {
    name: "1"
    for name in (
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "BLIS_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "NUMEXPR_NUM_THREADS",
    )
}


class JobsCappedWarning(UserWarning):
    """More workers were asked for than there are cores (or tasks): fewer are started."""


class WorkerDied(RuntimeError):
    """A worker process died while it ran a task (killed by a signal, or out of memory)."""


def n_workers(jobs: int, tasks: int | None = None) -> int:
    """Worker count for ``jobs`` (joblib's meaning: -1 all cores, -2 all but one, ...).

    Never more than the cores, nor than ``tasks`` when given; asking for
    more than the cores gives a :class:`JobsCappedWarning`.

    >>> cores = os.cpu_count() or 1
    >>> n_workers(1), n_workers(-1) == cores, n_workers(-1, tasks=1)
    (1, True, 1)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     n_workers(100_000) == cores, "cores" in str(w[0].message)
    (True, True)
    >>> n_workers(0)
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: bad --jobs 0: expected a positive count, or -1 for all cores (-2 all but one, ...); fix: pass --jobs 1 to run in this process
    """
    cores = os.cpu_count() or 1
    if jobs == 0:
        raise InputError(
            "bad --jobs 0",
            expected="a positive count, or -1 for all cores (-2 all but one, ...)",
            fix="pass --jobs 1 to run in this process",
        )
    if jobs > cores:
        warnings.warn(
            f"--jobs {jobs} is more than the {cores} cores of this machine: {cores} worker "
            f"processes are started (pass --jobs -1 for all cores)",
            JobsCappedWarning,
            stacklevel=2,
        )
    n = min(jobs, cores) if jobs > 0 else max(1, cores + 1 + jobs)
    return n if tasks is None else max(1, min(n, tasks))


#: the signal that stopped the work (SIGINT unless SIGTERM or SIGHUP came)
_stopped_by = signal.SIGINT


def _as_sigint(signum: int, frame: Any) -> None:
    """SIGTERM / SIGHUP: note which, then do what Ctrl-C does now (raise, or note it)."""
    global _stopped_by
    _stopped_by = signal.Signals(signum)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # SIGINT ignored (a background job of a shell) or default: SIGTERM still stops
        raise KeyboardInterrupt


def stop_on_signals() -> None:
    """Handle SIGTERM and SIGHUP as Ctrl-C from now on (main thread only; the command line does)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _as_sigint)


def stop_signal() -> signal.Signals:
    """The signal that stopped the work: SIGINT (Ctrl-C), SIGTERM or SIGHUP.

    >>> stop_signal().name
    'SIGINT'
    """
    return signal.Signals(_stopped_by)


def one_blas_thread() -> Any:
    """A context in which BLAS / OpenMP use one thread (results independent of the machine's load)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


def _watch_parent(parent: int) -> None:
    """Worker initializer: ignore Ctrl-C, SIGTERM and SIGHUP, and exit as soon as the main process is gone."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="evofeat-parent-watch", daemon=True).start()


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    with one_blas_thread():
        return fn(*args)


class deferred_sigint:
    """Hold SIGINT while set up (main thread only): the first Ctrl-C is noted, a second one raises.

    The code inside checks ``hit`` at points where stopping loses nothing.

    >>> import os, signal
    >>> with deferred_sigint() as sigint:
    ...     os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while a result is being stored
    ...     stored = True
    >>> sigint.hit, stored
    (True, True)
    """

    def __init__(self) -> None:
        self.hit = False
        self._old: Any = None

    def __enter__(self) -> deferred_sigint:
        if threading.current_thread() is threading.main_thread():
            self._old = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handler)
        return self

    def _handler(self, signum: int, frame: Any) -> None:
        if self.hit:
            raise KeyboardInterrupt
        self.hit = True

    def __exit__(self, *exc: Any) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def imap_unordered(
    fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]], jobs: int
) -> Iterator[tuple[int, Any]]:
    """Yield ``(i, fn(*tasks[i]))`` as each task finishes, on ``jobs`` worker processes.

    ``fn`` must be a module-level function. At most ``n_workers(jobs)``
    workers are started, and no more than there are tasks. On Ctrl-C the tasks already
    finished are still yielded (so the caller can keep them), the others are
    cancelled, the workers are stopped and :class:`KeyboardInterrupt` is
    raised. A task's exception is raised as it is; a worker that dies raises
    :class:`WorkerDied`.

    >>> sorted(imap_unordered(pow, [(2, 3), (3, 2)], jobs=2))
    [(0, 8), (1, 9)]
    """
    from joblib.externals.loky import get_reusable_executor

    workers = n_workers(jobs)
    numbered = enumerate(tasks)
    head = list(islice(numbered, workers))  # no more workers than tasks
    workers = max(1, min(workers, len(head)))
    todo = chain(head, numbered)
    executor = get_reusable_executor(
        max_workers=workers,
        timeout=IDLE_TIMEOUT,
        initializer=_watch_parent,
        initargs=(os.getpid(),),
        env=_ONE_THREAD,
    )
    futures: dict[Future[Any], int] = {}  # in flight: at most one task a worker, so a stop
    # leaves nothing queued (and memory holds only the tasks running)

    def submit() -> None:
        for i, t in todo:
            futures[executor.submit(_call, fn, tuple(t))] = i
            if len(futures) >= workers:
                return

    try:
        with deferred_sigint() as sigint:
            submit()
            while futures and not sigint.hit:
                done, _ = wait(futures, timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=futures.__getitem__):
                    yield futures.pop(fut), _result(fut)
                if not sigint.hit:
                    submit()
            if sigint.hit:  # Ctrl-C: keep what finished, stop the rest
                for fut in sorted(futures, key=futures.__getitem__):
                    if fut.done() and fut.exception() is None:
                        yield futures.pop(fut), fut.result()
                raise KeyboardInterrupt
    finally:
        if futures:  # Ctrl-C, an error, or the caller stopped early: no work left running
            _stop(executor)


def _result(fut: Future[Any]) -> Any:
    """The future's result; a worker's death as :class:`WorkerDied`."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return fut.result()
    except BrokenProcessPool as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise WorkerDied(
            "a worker process died while it ran (killed by a signal, or out of memory?): "
            + detail[:200]
        ) from None


def _stop(executor: Any) -> None:
    """End the workers now (their cells are lost anyway) and let loky clean up quietly.

    Killing them first lets loky's manager thread see a broken pool and tidy
    up (``shutdown(kill_workers=True)`` with work queued races inside loky
    and prints a traceback and leaked-semaphore warnings).
    """
    for proc in list(getattr(executor, "_processes", {}).values()):
        try:
            proc.kill()
        except (OSError, AttributeError):  # already gone
            pass
    executor.shutdown(wait=True)
