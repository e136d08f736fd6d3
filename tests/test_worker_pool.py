"""A pool left by an exception stops its work at once (verify/workers.py `abandon`)
instead of waiting for every queued call before the error is reported."""

from __future__ import annotations

import time
from collections.abc import Generator

import pytest

from verify.workers import WorkerPool


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_an_exception_inside_the_pool_cancels_what_is_queued_and_ends_the_workers() -> None:
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="refused"):
        with WorkerPool(2) as pool:
            futures = [pool.submit(_sleep, 5.0) for _ in range(20)]
            raise RuntimeError("a worker's result refused")
    assert time.monotonic() - started < 15.0          # 20 calls of 5 s on 2 workers: 50 s if waited for
    assert sum(future.cancelled() for future in futures) >= 16


def test_a_generator_over_the_results_closed_early_does_not_wait_for_the_rest() -> None:
    def results() -> Generator[float, None, None]:
        with WorkerPool(2) as pool:
            futures = [pool.submit(_sleep, 0.1 if n == 0 else 5.0) for n in range(20)]
            for future in futures:
                yield future.result()
    started = time.monotonic()
    walk = results()
    assert next(walk) == 0.1
    walk.close()
    assert time.monotonic() - started < 15.0


def test_a_pool_left_normally_still_waits_for_every_call() -> None:
    with WorkerPool(2) as pool:
        futures = [pool.submit(_sleep, 0.2) for _ in range(4)]
    assert all(future.done() and future.result() == 0.2 for future in futures)
