"""cosycore.threads: the wait policy, thread counts and the run-ahead hand-over between two threads."""

from __future__ import annotations

import threading
import time

import pytest
import torch

from cosycore.threads import (
    GOVERNOR_ENV,
    PASSIVE,
    THREADS_ENV,
    WAIT_POLICY_ENV,
    CoreGovernor,
    FirstAudioGate,
    choose_wait_policy,
    default_threads,
    governor_enabled,
    prefer_passive_wait,
    read_cpu_times,
    run_ahead,
    stage_threads,
    usable_cores,
)


def test_passive_wait_is_set_unless_the_user_chose() -> None:
    env: dict[str, str] = {}
    assert prefer_passive_wait(env) is True and env[WAIT_POLICY_ENV] == PASSIVE
    env = {WAIT_POLICY_ENV: "ACTIVE"}
    assert prefer_passive_wait(env) is False and env[WAIT_POLICY_ENV] == "ACTIVE"
    env = {"GOMP_SPINCOUNT": "2000"}  # the user's spin-then-sleep count: no policy is added beside it
    assert prefer_passive_wait(env) is False and env == {"GOMP_SPINCOUNT": "2000"}


def test_thread_counts() -> None:
    assert default_threads({}) == usable_cores() >= 1
    assert default_threads({THREADS_ENV: "3"}) == 3
    assert default_threads({THREADS_ENV: "zero"}) == usable_cores()
    assert default_threads({THREADS_ENV: "-2"}) == usable_cores()
    assert stage_threads(2, overlap=True) == 1 and stage_threads(2, overlap=False) == 2
    assert stage_threads(1, overlap=True) == 1 and stage_threads(8, overlap=True) == 4
    with pytest.raises(ValueError):
        stage_threads(0, overlap=False)


def test_items_arrive_in_order_from_another_thread() -> None:
    names: list[str] = []

    def make():
        for i in range(100):
            names.append(threading.current_thread().name)
            yield i

    assert list(run_ahead(make, capacity=3, name="producer-x")) == list(range(100))
    assert set(names) == {"producer-x"}


def test_the_producer_runs_at_most_capacity_items_ahead() -> None:
    made: list[int] = []
    consumed = threading.Event()

    def make():
        for i in range(50):
            made.append(i)
            yield i

    it = run_ahead(make, capacity=4)
    assert next(it) == 0
    # Without a consumer the producer stops once the queue is full: 4 waiting + 1 blocked in put.
    for _ in range(200):
        if len(made) >= 6:
            break
        consumed.wait(0.01)
    assert len(made) <= 6
    assert list(it) == list(range(1, 50))


def test_a_producer_error_comes_after_its_items() -> None:
    def make():
        yield 1
        yield 2
        raise KeyError("boom")

    it = run_ahead(make, capacity=8)
    assert next(it) == 1 and next(it) == 2
    with pytest.raises(KeyError, match="boom"):
        next(it)


def test_closing_early_stops_the_producer_and_closes_its_iterator() -> None:
    closed_on: list[str] = []
    produced: list[int] = []

    def make():
        try:
            for i in range(10_000):
                produced.append(i)
                yield i
        finally:
            closed_on.append(threading.current_thread().name)

    it = run_ahead(make, capacity=2, name="lm-like")
    assert [next(it) for _ in range(3)] == [0, 1, 2]
    it.close()  # returns only after the producer has finished
    assert closed_on == ["lm-like"]
    assert len(produced) < 10_000
    assert not any(t.name == "lm-like" for t in threading.enumerate())


def test_the_context_wraps_the_producer() -> None:
    entered: list[str] = []

    class Ctx:
        def __enter__(self):
            entered.append(threading.current_thread().name)

        def __exit__(self, *exc):
            entered.append("left")

    assert list(run_ahead(lambda: iter([1, 2]), context=Ctx, name="ctx-thread")) == [1, 2]
    assert entered == ["ctx-thread", "left"]


def test_the_wait_policy_is_governed_where_the_machine_is_visible() -> None:
    visible = read_cpu_times() is not None
    env: dict[str, str] = {}
    assert choose_wait_policy(env) == ("governed" if visible else "passive")
    assert (WAIT_POLICY_ENV in env) is (not visible)  # governed: OpenMP's own spin-then-sleep wait stays
    assert governor_enabled(env) is visible
    env = {GOVERNOR_ENV: "0"}  # turned off: the passive wait, and no governor
    assert choose_wait_policy(env) == "passive" and env[WAIT_POLICY_ENV] == PASSIVE and not governor_enabled(env)
    env = {WAIT_POLICY_ENV: "ACTIVE"}  # the user's choice is left alone
    assert choose_wait_policy(env) == "user" and env == {WAIT_POLICY_ENV: "ACTIVE"}
    assert not governor_enabled({WAIT_POLICY_ENV: "passive"})


class _FakeMachine:
    """CPU times of a 2-core machine: ``others`` cores held by other programs, ``own`` by this one."""

    def __init__(self) -> None:
        self.now = 0.0
        self.busy = 0.0
        self.own_total = 0.0
        self.others = 0.0
        self.own = 2.0

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.busy += (self.others + self.own) * seconds
        self.own_total += self.own * seconds

    def sample(self) -> tuple[float, float]:
        return self.busy, self.own_total


def test_the_governor_gives_torch_the_cores_other_programs_leave() -> None:
    m = _FakeMachine()
    applied: list[int] = []
    gov = CoreGovernor(2, cores=2, interval=0.3, sample=m.sample, clock=lambda: m.now, apply=applied.append)
    m.advance(0.1)
    assert gov.tick() == 2 and applied == []  # within the interval: not measured again
    m.advance(0.3)
    assert gov.tick() == 2 and applied == []  # quiet: both cores
    m.others, m.own = 0.7, 1.3  # a competitor takes a share of a core from two spinning threads
    m.advance(0.4)
    assert gov.tick() == 1 and applied == [1] and abs(gov.others - 0.7) < 1e-9
    m.others, m.own = 1.0, 1.0
    m.advance(0.4)
    assert gov.tick() == 1 and applied == [1]  # stays on one thread while the competitor runs
    m.others = 0.2  # it went away (a little background work is left)
    m.advance(0.4)
    assert gov.tick() == 2 and applied == [1, 2] and gov.changes == 2
    assert list(gov.follow(iter("ab"))) == ["a", "b"]
    with pytest.raises(ValueError):
        CoreGovernor(0, sample=m.sample)


def test_the_governor_keeps_its_threads_without_readings() -> None:
    applied: list[int] = []
    clock = iter(range(100))
    gov = CoreGovernor(2, cores=2, interval=0.3, sample=lambda: None, clock=lambda: float(next(clock)),
                       apply=applied.append)
    assert [gov.tick() for _ in range(3)] == [2, 2, 2] and applied == []


def test_first_audio_gate_keeps_the_producer_in_lockstep_until_open() -> None:
    """Before open() the producer decodes a token only when the consumer asks for one; after open()
    it runs freely; close() releases a producer that waits for its turn (no hang at a cancel)."""
    n = torch.get_num_threads()  # open() sets the caller's thread count: keep this process's
    gate = FirstAudioGate(lead_threads=n, stage_threads=n)
    decoded: list[int] = []
    released = threading.Event()

    def producer() -> None:
        for i in range(6):
            gate.before_decode()
            decoded.append(i)
            if i == 1:
                released.set()

    worker = threading.Thread(target=producer, daemon=True)
    worker.start()
    time.sleep(0.05)
    assert decoded == []  # nobody asked yet
    gate.want_token()
    gate.want_token()
    assert released.wait(2.0)
    time.sleep(0.05)
    assert decoded == [0, 1]  # exactly the two tokens asked for
    gate.open()
    worker.join(2.0)
    assert not worker.is_alive() and decoded == list(range(6))

    stuck = FirstAudioGate(lead_threads=n, stage_threads=n)
    waiter = threading.Thread(target=stuck.before_decode, daemon=True)
    waiter.start()
    stuck.close()
    waiter.join(2.0)
    assert not waiter.is_alive()
