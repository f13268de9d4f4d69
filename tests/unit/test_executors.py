"""Every executor gives the inline executor's results, in task order, with the context sent
once per worker and nothing inherited (the fork-based worker pool these replaced,
``verifier.parallel``, is gone).

Batch functions live in ``tests/batchfns.py`` (a worker imports that, not pytest). Dask
tests start a ``LocalCluster`` of two workers each; without Dask they skip, under CI they
fail (CI installs the ``dask`` extra).

Dask leaves process-wide state behind in any process that used it (its offload thread pool;
after a failed connection, its IO loop thread), which other tests of this suite would see
(``test_parallel.py`` counts threads). So the Dask cases run in a child pytest of their own
(:func:`test_the_cluster_cases_in_a_child_process`, with ``CHILD`` set): in this process they
are neither collected as parameters nor run."""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tests.batchfns as fns
import verifier.execute.dask
import verifier.execute.interface
from tests.dasktest import allow_loopback, distributed, need_dask
from verifier.execute import EXECUTORS, Executor, ExecutorError, create
from verifier.execute.registry import (
    CHOICES,
    MAX_PARSED_FOR_THREADS,
    MIN_ITEMS,
    MIN_WEIGHT,
    resolve,
)

CHILD = "VERIFIER_DASK_CHILD"
IN_CHILD = os.environ.get(CHILD) == "1"
#: the executors with workers tested here: Dask only in the child process
PARALLEL = ("processes", "dask") if IN_CHILD else ("processes",)
REGISTERED = list(EXECUTORS) if IN_CHILD else [n for n in EXECUTORS if n != "dask"]
dask_only = pytest.mark.skipif(
    not IN_CHILD, reason="run by test_the_cluster_cases_in_a_child_process"
)


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of three tasks: 50 tasks make 17 batches, spread over the workers (Dask's
    batches, :data:`verifier.execute.dask.BATCH_SCALE` times larger, the same size)."""
    monkeypatch.setattr(verifier.execute.interface, "BATCH_ITEMS", 3)
    monkeypatch.setattr(verifier.execute.dask.DaskExecutor, "scale", 1)


@pytest.fixture
def one_per_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verifier.execute.interface, "BATCH_ITEMS", 1)
    monkeypatch.setattr(verifier.execute.dask.DaskExecutor, "scale", 1)


def start(name: str, monkeypatch: pytest.MonkeyPatch, workers: int = 2) -> Executor:
    if name == "dask":
        need_dask()
        allow_loopback(monkeypatch)
    return create(name, workers)


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc here
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def served_pids(executor: Executor) -> list[int]:
    described = executor.describe()
    if "pids" in described:
        return list(described["pids"])
    return [int(w.rsplit(":", 1)[1]) for w in described["served"]]


def test_the_registry_feeds_the_choices() -> None:
    assert ("auto", *EXECUTORS) == CHOICES
    assert set(EXECUTORS) == {"inline", "processes", "threads", "dask"}


@pytest.mark.parametrize("name", REGISTERED)
def test_every_registered_executor_builds_and_maps(
    name: str, monkeypatch: pytest.MonkeyPatch, small_batches: None
) -> None:
    with start(name, monkeypatch) as executor:
        assert executor.name == name
        assert list(executor.map(fns.double, None, list(range(50)))) == [2 * i for i in range(50)]
        described = executor.describe()
    assert described["executor"] == name
    assert described["workers"] >= 1


def test_auto_picks_processes_only_when_worth_it() -> None:
    assert resolve("auto", MIN_ITEMS, 0, 2) == "processes"
    assert resolve("auto", MIN_ITEMS - 1, 0, 2) == "inline"
    assert resolve("auto", 10, 1 << 30, 2) == "processes"
    assert resolve("auto", MIN_ITEMS, 0, 1) == "inline"
    assert resolve("dask", 1, 0, 1) == "dask"


def test_auto_picks_threads_for_few_large_files_to_hash() -> None:
    """Few tasks, many bytes, little of them to parse: the time is in reads and hashes,
    which threads run on every core; with more to parse, or many tasks, processes."""
    assert resolve("auto", 10, 1 << 30, 2, 0) == "threads"
    assert resolve("auto", 10, 1 << 30, 2, MAX_PARSED_FOR_THREADS) == "threads"
    assert resolve("auto", 10, 1 << 30, 2, MAX_PARSED_FOR_THREADS + 1) == "processes"
    assert resolve("auto", MIN_ITEMS, 1 << 30, 2, 0) == "processes"
    assert resolve("auto", 10, MIN_WEIGHT - 1, 2, 0) == "inline"
    assert resolve("auto", 10, 1 << 30, 1, 0) == "inline"

    def never() -> int:
        raise AssertionError("not needed to decide")

    assert resolve("auto", MIN_ITEMS, never, 2, never) == "processes"
    assert resolve("auto", 10, MIN_WEIGHT - 1, 2, never) == "inline"


def test_threads_give_results_in_order_each_thread_with_its_own_context(
    monkeypatch: pytest.MonkeyPatch, one_per_batch: None
) -> None:
    """A batch per task over two threads: in task order, with progress; the context
    pickled once per map and unpickled once in each thread that served (never the object
    made here, so an opener's handle is never shared), each copy closed when the map ends;
    no thread left after the map."""
    monkeypatch.setattr(fns.Token, "pickled", 0)
    monkeypatch.setattr(fns.Token, "closed", 0)
    token = fns.Token(os.urandom(8).hex())
    before = {t.ident for t in threading.enumerate()}
    seen: list[int] = []
    with create("threads", 2) as executor:
        out = list(executor.map(fns.who_threads, token, list(range(40)), progress=seen.append))
        described = executor.describe()
    assert [row[0] for row in out] == list(range(40)) and seen == [1] * 40
    assert {row[1] for row in out} == {token.value} and fns.Token.pickled == 1
    held: dict[int, set[int]] = {}
    for row in out:
        held.setdefault(row[2], set()).add(row[3])
    assert all(len(ids) == 1 for ids in held.values())  # one copy per thread
    assert len({i for ids in held.values() for i in ids}) == len(held) == described["threads"]
    assert id(token) not in {row[3] for row in out}
    assert described == {"executor": "threads", "workers": 2, "batches": 40, "threads": 2}
    assert fns.Token.closed == 2  # each thread's copy closed when the map ended
    assert not [t for t in threading.enumerate() if t.ident not in before]


def test_a_thread_s_exception_carries_its_traceback_and_the_map_stops(
    one_per_batch: None,
) -> None:
    with create("threads", 2) as executor:
        with pytest.raises(ExecutorError, match="ValueError: seven") as raised:
            list(executor.map(fns.fail_on_seven, None, list(range(40))))
        assert "fail_on_seven" in str(raised.value)
        assert list(executor.map(fns.double, None, [1, 2])) == [2, 4]  # still usable
    with pytest.raises(ExecutorError, match="closed"):
        list(executor.map(fns.double, None, [1]))
    with pytest.raises(ExecutorError, match="scheduler"):
        create("threads", 2, "tcp://127.0.0.1:8786")


def test_threads_bound_the_batches_in_flight(one_per_batch: None) -> None:
    tasks = Counted(1000)
    with create("threads", 2) as executor:
        stream = executor.map(fns.double, None, tasks)
        assert next(stream) == 0
        assert tasks.read <= 2 * 2 + 1
        stream.close()  # type: ignore[attr-defined]
        assert list(executor.map(fns.double, None, [1, 2, 3])) == [2, 4, 6]


@pytest.mark.parametrize("name", PARALLEL)
def test_results_come_in_task_order_with_progress(
    name: str, monkeypatch: pytest.MonkeyPatch, small_batches: None
) -> None:
    seen: list[int] = []
    with start(name, monkeypatch) as executor:
        out = list(executor.map(fns.double, None, list(range(50)), progress=seen.append))
        again = list(executor.map(fns.double, None, list(range(50))))
        pids = served_pids(executor)
        batches = executor.describe()["batches"]
    assert out == again == [2 * i for i in range(50)]
    assert seen == [3] * 16 + [2]
    assert batches == 34
    assert pids and os.getpid() not in pids  # the workers served; this process did not


@pytest.mark.parametrize("name", PARALLEL)
def test_the_context_is_sent_once_and_nothing_is_inherited(
    name: str, monkeypatch: pytest.MonkeyPatch, small_batches: None
) -> None:
    """A context made here reaches every worker; a module global set here reaches none (a
    worker is a fresh interpreter, not a fork); each worker unpickles the context once."""
    monkeypatch.setattr(fns, "MARK", "set in the test process")
    monkeypatch.setattr(fns.Token, "pickled", 0)
    token = fns.Token(os.urandom(8).hex())
    with start(name, monkeypatch) as executor:
        out = list(executor.map(fns.who, token, list(range(60))))
        out += list(executor.map(fns.who, token, list(range(60))))
    assert [row[0] for row in out] == [*range(60), *range(60)]
    assert {row[1] for row in out} == {token.value}
    assert {row[4] for row in out} == {None}
    assert os.getpid() not in {row[2] for row in out}
    if name == "processes":
        # one context object per worker, across both maps of the same context; pickled once
        # here, for both maps and both workers. (Dask scatters once per map, but a worker may
        # hold a second copy fetched from a peer: Dask promises no single deserialization.)
        ids: dict[int, set[int]] = {}
        for row in out:
            ids.setdefault(row[2], set()).add(row[3])
        assert all(len(held) == 1 for held in ids.values()), ids
        assert fns.Token.pickled == 1


def test_a_new_context_reaches_the_workers() -> None:
    with create("processes", 2) as executor:
        first = {row[1] for row in executor.map(fns.who, fns.Token("one"), list(range(5)))}
        second = {row[1] for row in executor.map(fns.who, fns.Token("two"), list(range(5)))}
    assert (first, second) == ({"one"}, {"two"})


@pytest.mark.parametrize("name", PARALLEL)
def test_a_worker_exception_carries_its_traceback(
    name: str, monkeypatch: pytest.MonkeyPatch, one_per_batch: None
) -> None:
    with (
        start(name, monkeypatch) as executor,
        pytest.raises(ExecutorError, match="ValueError: seven") as raised,
    ):
        list(executor.map(fns.fail_on_seven, None, list(range(40))))
    assert "Traceback (most recent call last)" in str(raised.value)
    assert "fail_on_seven" in str(raised.value)


@pytest.mark.parametrize("name", PARALLEL)
def test_a_dead_worker_is_an_error_not_a_hang(
    name: str, monkeypatch: pytest.MonkeyPatch, one_per_batch: None
) -> None:
    with start(name, monkeypatch) as executor, pytest.raises(ExecutorError) as raised:
        list(executor.map(fns.die_on_seven, None, list(range(40))))
    if name == "processes":
        assert "exit code 3" in str(raised.value)
    else:  # KilledWorker, or the context it held lost with it: a cancelled task
        assert "a Dask task did not finish" in str(raised.value)


@pytest.mark.parametrize("name", PARALLEL)
def test_close_leaves_no_process_or_thread(
    name: str, monkeypatch: pytest.MonkeyPatch, small_batches: None
) -> None:
    threads = {t.ident for t in threading.enumerate()}
    executor = start(name, monkeypatch)
    with executor:
        pids = set(executor.map(fns.where, None, list(range(30))))
    assert len(pids) == 2 and not any(alive(pid) for pid in pids)
    import multiprocessing

    assert not multiprocessing.active_children()
    # Dask keeps one thread pool of its own per process (distributed's offload executor,
    # made at import): not this executor's, and not a worker
    left = [
        t
        for t in threading.enumerate()
        if t.ident not in threads and not t.name.startswith("Dask-Offload")
    ]
    assert not left, left
    with pytest.raises(ExecutorError):
        list(executor.map(fns.double, None, [1]))


def test_workers_are_told_to_stop_together_and_end_cleanly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """close() tells every worker to stop before it waits for any (they end side by side),
    and each ends by itself with code 0: neither killed nor left to time out."""
    executor = create("processes", 2)
    list(executor.map(fns.double, None, list(range(8))))
    pool = list(executor._pool)  # type: ignore[attr-defined]
    procs = [w.proc for w in pool]
    order: list[str] = []

    def noted(word: str, call: Callable[[bool], None]) -> Callable[[bool], None]:
        def wrapped(kill: bool) -> None:
            order.append(word)
            call(kill)

        return wrapped

    for worker in pool:
        monkeypatch.setattr(worker, "tell_stop", noted("tell", worker.tell_stop))
        monkeypatch.setattr(worker, "stop", noted("wait", worker.stop))
    executor.close()
    said = order
    # (stop() tells again, a no-op once told: only what came before the first wait counts)
    assert said[: said.index("wait")] == ["tell", "tell"] and said.count("wait") == 2
    assert [p.returncode for p in procs] == [0, 0]


def test_processes_after_an_error_stop_every_worker(one_per_batch: None) -> None:
    executor = create("processes", 2)
    with executor, pytest.raises(ExecutorError):
        list(executor.map(fns.fail_on_seven, None, list(range(40))))
    assert not any(alive(pid) for pid in executor.describe()["pids"])


class Counted:
    """A task sequence that records how far it was read."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.read = 0

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> int:
        raise NotImplementedError

    def __iter__(self) -> Iterator[int]:
        for i in range(self.count):
            self.read = i + 1
            yield i


@pytest.mark.parametrize("name", PARALLEL)
def test_batches_in_flight_are_bounded_and_a_stopped_map_leaves_it_usable(
    name: str, monkeypatch: pytest.MonkeyPatch, one_per_batch: None
) -> None:
    """While the caller holds the first result, at most two batches per worker were cut
    (one more when the window is full); a map the caller stops leaves the executor usable."""
    tasks = Counted(1000)
    with start(name, monkeypatch) as executor:
        stream = executor.map(fns.double, None, tasks)
        assert next(stream) == 0
        assert tasks.read <= 2 * 2 + 1
        stream.close()  # type: ignore[attr-defined]
        assert list(executor.map(fns.double, None, [1, 2, 3])) == [2, 4, 6]


def test_a_worker_holds_the_next_batch_while_it_works(one_per_batch: None) -> None:
    """A worker is sent its next batch before its results come back (it never idles while
    this process takes them and cuts the one after): with one worker and one task a batch,
    while it works on the first, the second batch already waits in its pipe; it does not,
    when its pipe may not hold a whole batch (room 0)."""
    import sys

    for room, queued in ((None, [True, True, True, False]), (0, [False] * 4)):
        with create("processes", 1) as executor:
            pool = executor._pool  # type: ignore[attr-defined]
            if sys.platform == "linux":
                assert pool[0].room >= 60_000  # a batch of 512 tasks is under 64 KiB
            if room is not None:
                pool[0].room = room
            assert list(executor.map(fns.waiting, None, list(range(4)))) == queued


def test_batches_larger_than_a_pipe_with_large_results_do_not_deadlock(
    small_batches: None,
) -> None:
    """Batches of 300 KB and results of 600 KB through workers whose pipes are taken to hold
    70 KB: a batch is queued behind another only if it fits whole, so none ever waits in a
    worker's pipe (were it queued, a worker writing its results while this process writes
    it a batch could wait on each other for ever), and every result comes back."""
    tasks = [f"{i:06d}" * 17_000 for i in range(12)]
    with create("processes", 2) as executor:
        for worker in executor._pool:  # type: ignore[attr-defined]
            worker.room = 70_000
        rows = list(executor.map(fns.echo_waiting, None, tasks))
    assert [row[0] for row in rows] == [t * 2 for t in tasks]
    assert not any(row[1] for row in rows)


def test_a_worker_imports_neither_the_cli_nor_typer_nor_rich() -> None:
    with create("processes", 1) as executor:
        [loaded] = list(executor.map(fns.modules, None, [0]))
    top = {name.split(".")[0] for name in loaded}
    assert not top & {"typer", "rich", "click", "pytest"}, sorted(top)
    assert "verifier.cli" not in loaded and "verifier.commands" not in loaded


def test_processes_take_no_scheduler() -> None:
    with pytest.raises(ExecutorError, match="dask"):
        create("processes", 2, "tcp://127.0.0.1:8786")


def test_dask_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "dask", None)  # an import of it raises ImportError
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ExecutorError, match=r'pip install "verify-evidence\[dask\]"'):
        create("dask", 2)


def test_batches_are_cut_by_count_and_weight_and_scale() -> None:
    from verifier.execute.interface import BATCH_ITEMS, BATCH_WEIGHT, batches

    assert [len(b) for b in batches(range(BATCH_ITEMS * 2 + 1))] == [BATCH_ITEMS] * 2 + [1]
    assert [len(b) for b in batches(range(BATCH_ITEMS * 4 + 1), None, 4)] == [BATCH_ITEMS * 4, 1]
    heavy = [BATCH_WEIGHT // 2] * 5
    assert [len(b) for b in batches(heavy, lambda w: w)] == [2, 2, 1]
    assert [len(b) for b in batches(heavy, lambda w: w, 2)] == [4, 1]


@dask_only
def test_dask_cuts_fewer_larger_batches(
    monkeypatch: pytest.MonkeyPatch, small_batches: None
) -> None:
    """A Dask task costs more than a pipe message: batches ``BATCH_SCALE`` times larger."""
    monkeypatch.setattr(verifier.execute.dask.DaskExecutor, "scale", 4)
    with start("dask", monkeypatch) as executor:
        assert list(executor.map(fns.double, None, range(50))) == [2 * n for n in range(50)]
        assert executor.describe()["batches"] == 5  # of 12, 12, 12, 12 and 2 tasks


def _scratch_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's own cluster keeps its scheduler's and workers' scratch space in ``tmp_path``
    (Dask's default, ``dask-scratch-space`` in the temporary folder, stayed there)."""
    import dask

    monkeypatch.setattr(dask.config, "config", dask.config.merge(dask.config.config, {}))
    dask.config.set({"temporary-directory": str(tmp_path)})


@dask_only
def test_dask_on_an_existing_scheduler_leaves_the_cluster_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--scheduler``: the executor connects to a cluster it did not start, runs there, and
    on close disconnects without stopping it."""
    dd = distributed()
    allow_loopback(monkeypatch)
    _scratch_in(tmp_path, monkeypatch)
    with dd.LocalCluster(  # (its scratch space in tmp_path, not the temporary folder)
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        local_directory=str(tmp_path),
    ) as cluster:
        address = cluster.scheduler_address
        with create("dask", 1, address) as executor:
            assert list(executor.map(fns.double, None, [1, 2])) == [2, 4]
            assert executor.describe()["scheduler"] == address
        with dd.Client(address, set_as_default=False) as client:
            assert len(client.scheduler_info()["workers"]) == 2


@dask_only
def test_dask_cannot_reach_a_scheduler_or_finds_no_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dd = distributed()
    allow_loopback(monkeypatch)
    _scratch_in(tmp_path, monkeypatch)
    import verifier.execute.dask

    monkeypatch.setattr(verifier.execute.dask, "CONNECT_TIMEOUT", "2s")
    with pytest.raises(ExecutorError, match="could not start or reach the Dask scheduler"):
        create("dask", 1, "tcp://127.0.0.1:9")
    with (
        dd.LocalCluster(
            n_workers=0, dashboard_address=None, local_directory=str(tmp_path)
        ) as cluster,
        pytest.raises(ExecutorError, match="could not start or reach the Dask scheduler"),
    ):
        create("dask", 1, cluster.scheduler_address)


@pytest.mark.slow  # a child pytest starting Dask clusters
@pytest.mark.skipif(IN_CHILD, reason="this is the child")
def test_the_cluster_cases_in_a_child_process() -> None:
    """Every Dask case of this module, in a child pytest (see the module's doc)."""
    import subprocess
    import sys

    from tests.conftest import REPO

    need_dask()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__]
    # in one process (each case starts its own cluster), every case whether slow or not: the
    # -n and -m of the suite's addopts replaced
    command += ["-n", "0", "-m", "", "-k", "dask"]
    done = subprocess.run(
        command,
        capture_output=True,
        env={**os.environ, CHILD: "1"},
        cwd=REPO,
        timeout=1200,
        check=False,
    )
    output = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0, output[-6000:]
    assert " passed" in output and " failed" not in output and " skipped" not in output, output


@pytest.mark.parametrize("size", [0, 10, 16384, 16385, 300_000])
def test_a_worker_s_pipe_end_speaks_the_parent_s_connection(size: int) -> None:
    """A worker's pipe ends (no multiprocessing imported there) and the parent's
    ``Connection`` read each other's messages, short, joined to their head or not, and a
    head past 2 GiB as ``Connection`` writes it."""
    import struct
    from multiprocessing.connection import Connection

    from verifier.execute import worker

    message = ("done", 3, 7, [b"x" * size, "caf\u00e9", None])
    down_r, down_w = os.pipe()
    up_r, up_w = os.pipe()
    parent_out, parent_in = Connection(down_w, readable=False), Connection(up_r, writable=False)
    inbox, outbox = worker._End(down_r), worker._End(up_w)
    try:
        with ThreadPoolExecutor(2) as pool:  # (a message may be larger than a pipe holds)
            sent = pool.submit(parent_out.send, message)
            assert inbox.recv() == message
            sent.result()
            sent = pool.submit(outbox.send, message)
            assert parent_in.recv() == message
            sent.result()
    finally:
        for end in (parent_out, parent_in):
            end.close()
        os.close(down_r)
        os.close(up_w)
    assert worker._head(size) == struct.pack("!i", size)
    assert worker._head(1 << 31) == struct.pack("!i", -1) + struct.pack("!Q", 1 << 31)
    long_r, long_w = os.pipe()
    data = pickle.dumps(message)
    os.write(long_w, struct.pack("!i", -1) + struct.pack("!Q", len(data)))

    def write_rest() -> None:
        os.write(long_w, data)
        os.close(long_w)

    with ThreadPoolExecutor(1) as pool:
        pool.submit(write_rest)
        assert worker._End(long_r).recv() == message
    with pytest.raises(EOFError):
        worker._End(long_r).recv()  # (the pipe ended between messages)
    os.close(long_r)
