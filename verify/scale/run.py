"""Run many tasks: local processes by default, a Dask cluster when given its scheduler.

`run_all(tasks, cache)` returns one result per task, in the order given. A task whose key
the cache holds is not run again; every other result is kept in the cache the moment it
arrives, in this process, so a run stopped at any point loses at most the tasks then
running, and the next run with the same tasks starts where it stopped.

- Local (`scheduler=None`): `workers` processes (`concurrent.futures`); `workers=1` runs
  in this process. A process that dies takes only its tasks with it: the pool is started
  again for the tasks left, up to `retries` times.
- Dask (`scheduler="tcp://host:8786"`): `distributed.Client` on that scheduler, each task
  a future keyed by its task key, submitted with `retries`; a worker that is lost costs
  only the tasks it held, which the scheduler gives to another worker (a lost worker's
  task is retried by the scheduler itself, up to its `allowed-failures`). The workers
  must have shrules installed.

A Dask scheduler and its workers are trusted with code execution: Dask sends pickled data
both ways, and plain `tcp://` has no authentication, so whoever reaches the scheduler can
run code on the workers and in this process (SECURITY.md, "The cluster"). `TlsFiles`
(`--scheduler-security FILE`) connects over TLS with a certificate; without it, Dask's own
configuration (`distributed.comm.tls.*`, `require-encryption`) applies as Dask reads it;
`exposed` says when an address is neither TLS nor on this machine.

`progress` is called after every result with a `Progress`: counts, rate and time left.

A result from the cache or from a worker is data from elsewhere: `check` (trust.py:
`check_summary` for `run_task`, `check_raws` for checks.py) replays each game it holds and
believes what no game shows only from a cache no one else can write (a worker's own word
is taken: the cluster runs shrules's code). A kept result that does not check is computed
again, after one warning line; a worker's that does not is one clear error.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spec.errors import SpecError, one_line, read_toml, shown

from ..workers import WorkerPool
from .cache import Cache
from .tasks import Task, run_task
from .trust import NotBelieved, check_summary

Result = dict[str, Any]
Check = Callable[[Task, Any, "str | None"], Result]
"""What a result must pass to be believed: (task, result, why its file may not be believed
on its owner's word, None for a worker's) -> the result, or `NotBelieved`."""


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run stands: tasks done of all (those found in the cache among them), the
    seconds since it started, and the rate of the tasks computed in this run."""

    done: int
    total: int
    cached: int
    seconds: float

    @property
    def rate(self) -> float:
        """Tasks computed per second in this run (cache hits not counted)."""
        computed = self.done - self.cached
        return computed / self.seconds if self.seconds > 0 and computed else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the present rate, None before the first computed task."""
        return (self.total - self.done) / self.rate if self.rate else None

    def describe(self) -> str:
        """`12/40 done (3 cached), 0.52 tasks/s, about 54 s left`."""
        eta = "" if self.eta is None else f", about {self.eta:.0f} s left"
        return f"{self.done}/{self.total} done ({self.cached} cached), {self.rate:.2f} tasks/s{eta}"


def run_all(tasks: Sequence[Task], cache: Cache, *, workers: int = 2, scheduler: str | None = None,
            progress: Callable[[Progress], None] | None = None, retries: int = 2,
            function: Callable[[Task], Result] = run_task, connect_timeout: float = 10.0,
            check: Check | None = None, security: TlsFiles | None = None) -> list[Result]:
    """One result per task, in order (module docstring); `connect_timeout`: seconds to
    wait for the scheduler before giving up with one clear error; `check`: what a result
    must pass (module docstring; given with any `function` but `run_task`); `security`:
    the TLS files to connect with (None: Dask's own configuration)."""
    if check is None:
        if function is not run_task:
            raise ValueError("run_all: say how the results of this function are checked (check=...)")
        check = check_summary
    started = time.perf_counter()
    found: dict[str, Result] = {}
    for task in tasks:
        kept = cache.get(task.key)
        if kept is None:
            continue
        try:
            found[task.key] = check(task, kept, cache.untrusted_because(task.key))
        except NotBelieved as refusal:
            if refusal.kind == "untrusted":
                cache.warn(f"warning: verdicts no game shows are not believed from the cache "
                           f"{shown(str(cache.folder))}, as {refusal.reason}; computing them again",
                           once_as="untrusted")
            elif refusal.kind != "stale":
                cache.warn(f"warning: the kept result of {task.label()} is not believed ({refusal.reason}); "
                           f"computing it again")
    cached = len(found)
    pending = list({task.key: task for task in tasks if task.key not in found}.values())
    total = cached + len(pending)

    def arrived(task: Task, result: Any) -> None:
        key = task.key
        if not isinstance(result, dict) or result.get("key") != key:
            raise SpecError(f"a worker returned a result for another task key than {key[:12]}: it runs another "
                            f"version of shrules or of the rules (install the same checkout on every worker)")
        try:
            result = check(task, result, None)
        except NotBelieved as refusal:
            raise SpecError(f"a worker's result for {task.label()} does not check ({refusal.reason}): it runs "
                            f"another version of shrules or of the rules (install the same checkout on every "
                            f"worker), or it is not to be trusted") from None
        cache.put(key, result)
        found[key] = result
        if progress:
            progress(Progress(len(found), total, cached, time.perf_counter() - started))

    if progress:
        progress(Progress(cached, total, cached, 0.0))
    if pending:
        if scheduler is not None:
            _on_dask(pending, scheduler, retries, function, arrived, connect_timeout, security)
        elif workers == 1:
            for task in pending:
                arrived(task, function(task))
        else:
            _on_processes(pending, workers, retries, function, arrived)
    return [found[task.key] for task in tasks]


def _on_processes(pending: list[Task], workers: int, retries: int, function: Callable[[Task], Result],
                  arrived: Callable[[Task, Any], None]) -> None:
    """The tasks on local processes; a pool broken by a dead process is started again."""
    left = {task.key: task for task in pending}
    for attempt in range(retries + 1):
        try:
            with WorkerPool(min(workers, len(left))) as pool:
                futures: dict[Future[Result], str] = {pool.submit(function, task): key for key, task in left.items()}
                while futures:
                    done, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in done:
                        key = futures.pop(future)
                        arrived(left[key], future.result())
                        del left[key]
            return
        except BrokenProcessPool:
            if attempt == retries:
                raise SpecError(f"a worker process died {retries + 1} times; {len(left)} tasks were not run "
                                f"(their results are not in the cache, the others are)") from None


DASK_EXTRA = "pip install 'shrules[scale]'"
"""How to install what a run on a cluster needs (the package's `scale` extra)."""


def _distributed() -> Any:
    """The `distributed` package, or one clear error: it is an optional dependency, as a
    run on local processes never needs it."""
    try:
        import distributed
    except ImportError:
        raise SpecError(f"--scheduler needs Dask distributed, which is not installed: {DASK_EXTRA}") from None
    return distributed


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """What `--scheduler-security FILE` names: the certificate authority the scheduler's
    certificate must be signed by, and this client's certificate and key (the key may be
    in the certificate file). Mapped onto `distributed.security.Security` with encryption
    required, so a plain `tcp://` address is refused rather than used in the clear."""

    ca_file: str
    cert_file: str
    key_file: str | None = None

    def security(self) -> Any:
        """The `distributed.security.Security` of these files."""
        _distributed()                          # one clear error when distributed is missing
        from distributed.security import Security   # imported on use, as in _client

        return Security(  # type: ignore[no-untyped-call]  # distributed's constructor is untyped
            tls_ca_file=self.ca_file, tls_client_cert=self.cert_file, tls_client_key=self.key_file,
            require_encryption=True)


SECURITY_KEYS = ("ca_file", "cert_file", "key_file")
"""The keys of a `--scheduler-security` file (TOML); paths are relative to its folder."""


def load_security(path: str | Path) -> TlsFiles:
    """The TLS files a `--scheduler-security` TOML file names, each checked to be a file;
    `SpecError` naming the file and the key otherwise (before any work is started)."""
    where = f"--scheduler-security {path}"
    try:
        data, _ = read_toml(path)
    except SpecError as error:
        raise SpecError(f"{where}: {error}") from None
    unknown = sorted(set(data) - set(SECURITY_KEYS))
    if unknown:
        raise SpecError(f"{where}: unknown key {shown(unknown[0])}; expected {', '.join(SECURITY_KEYS)} "
                        f"(the certificate authority, this client's certificate and its key)")
    found: dict[str, str] = {}
    for key in SECURITY_KEYS:
        value = data.get(key)
        if value is None:
            if key == "key_file":
                continue
            raise SpecError(f"{where}: '{key}' is missing; expected ca_file = \"ca.pem\", "
                            f"cert_file = \"client.pem\" and key_file = \"client-key.pem\"")
        if not isinstance(value, str) or not value:
            raise SpecError(f"{where}: '{key}' must be the path of a file, got {shown(value)}")
        file = Path(path).parent / value
        if not file.is_file():
            raise SpecError(f"{where}: '{key}' names {shown(str(file))}, which is not a file")
        found[key] = str(file)
    return TlsFiles(found["ca_file"], found["cert_file"], found.get("key_file"))


LOOPBACK_NAMES = ("localhost",)


def exposed(address: str) -> bool:
    """Whether a scheduler address is neither TLS nor on this machine: anyone on the way
    to it can then send the workers and this process code to run (module docstring)."""
    scheme, _, rest = address.rpartition("://")
    if scheme in ("tls", "inproc"):
        return False
    host = rest.rsplit(":", 1)[0] if rest.count(":") == 1 or rest.startswith("[") else rest
    host = host.strip("[]")
    if host in LOOPBACK_NAMES:
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def _client(scheduler: str, connect_timeout: float, security: TlsFiles | None = None) -> Any:
    """A `distributed.Client` on the scheduler, or one clear error."""
    # Imported on use: only a run on a cluster needs distributed, and importing it takes
    # a second that no other command should pay.
    Client = _distributed().Client
    options: dict[str, Any] = {}
    if security is not None:
        if not scheduler.startswith("tls://"):
            raise SpecError(f"--scheduler {shown(scheduler)}: --scheduler-security connects over TLS only; "
                            f"expected a tls://HOST:PORT address")
        try:
            options["security"] = security.security()
        except (OSError, ValueError) as error:
            raise SpecError(f"--scheduler-security: the TLS files do not load ({type(error).__name__}: "
                            f"{shown(str(error))})") from None

    try:
        return Client(scheduler, timeout=f"{connect_timeout}s", set_as_default=False, **options)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        # TypeError: a tls:// address with no TLS set up (distributed finds no SSL context)
        hint = "; give the TLS files with --scheduler-security FILE or in Dask's configuration" \
            if scheduler.startswith("tls://") and security is None else ""
        said = one_line(str(error).splitlines()[0]) if str(error) else "no answer"
        raise SpecError(f"--scheduler {shown(scheduler)}: cannot reach a Dask scheduler there "
                        f"({type(error).__name__}: {shown(said, 200)}){hint}") from None


def spread_on_dask(scheduler: str, retries: int = 2, connect_timeout: float = 10.0,
                   security: TlsFiles | None = None) -> Callable[
        [Callable[..., Any], list[tuple[Any, ...]]], Iterator[Any]]:
    """A way to call `function` on each argument tuple on the Dask cluster, the results
    yielded in the order of the arguments (verify/diff/mutate.py `analyse(spread=...)`);
    each call is keyed by a digest of its arguments, and retried when its worker is lost."""
    def spread(function: Callable[..., Any], arguments: list[tuple[Any, ...]]) -> Iterator[Any]:
        client = _client(scheduler, connect_timeout, security)
        try:
            keys = [f"shrules-{getattr(function, '__name__', 'task')}-"
                    f"{hashlib.sha256(repr(args).encode()).hexdigest()}" for args in arguments]
            futures = client.map(function, *zip(*arguments), key=keys, retries=retries, pure=False)
            for future in futures:
                yield future.result()
        finally:
            client.close()
    return spread


def _on_dask(pending: list[Task], scheduler: str, retries: int, function: Callable[[Task], Result],
             arrived: Callable[[Task, Any], None], connect_timeout: float, security: TlsFiles | None = None) -> None:
    """The tasks on the Dask cluster whose scheduler listens at `scheduler`."""
    as_completed = _distributed().as_completed   # imported on use, as in _client
    client = _client(scheduler, connect_timeout, security)
    try:
        futures = client.map(function, pending, key=[f"shrules-{task.key}" for task in pending],
                             retries=retries, pure=False)
        keys = {future.key: task for future, task in zip(futures, pending)}
        # Bound to this client's event loop: left alone, as_completed takes the process's
        # default client, and where that is another client (one the caller holds) a result
        # lost with its worker and recomputed is then awaited on the wrong loop.
        for future in as_completed(futures, loop=client.loop):
            arrived(keys[future.key], future.result())
    finally:
        client.close()
