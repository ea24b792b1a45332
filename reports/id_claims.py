"""id_claims.py — what a claimed worker id costs over time: how restarts exhaust the id
space under each claim policy, what a lease costs in renewals, and what generation bits cost
in node space (on paper: closed forms, checked against ClaimTable below).

Claim policies, as fleets run them:
  never     an id per start, never given back: Leaf's ZooKeeper persistent-sequential nodes
            (one per ip:port, so a container that restarts on a new address takes a new one;
            Meituan-Dianping/Leaf#84, #26), Baidu's WORKER_NODE row per start, a Redis INCR
            per start (yitter/IdGenerator#84: 68 starts, past the default 63; #83). The space
            runs out after `space - n` restarts. (yitter's own Redis registrar is a lease: a key
            with a TTL renewed every TTL/3; #110 reports ids left after a stop.)
  clean     given back at a clean exit only (a shutdown hook deleting the node or key): every
            crash, SIGKILL, OOM kill or lost node leaks one id.
  lease     held under a lease with a TTL and given back when it expires (etcd, coord/): a
            crashed holder's id is free again at most one TTL later; nothing accumulates.

`ClaimTable` plays the coordinator (lowest free id first) so that a planted restart schedule
can be run against each policy; the closed forms below must agree with it.

Thread safety: ClaimTable is thread-compatible (one caller); the functions are pure.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

POLICIES = ("never", "clean", "lease")

# etcd's Go client renews a lease a third of the TTL after the last renewal (client/v3
# lease.go: nextKeepAlive = now + TTL/3), so each holder writes 3 / TTL renewals per second.
KEEPALIVES_PER_TTL = 3


@dataclass
class ClaimTable:
    """Ids 0..space-1 handed out lowest free first. Thread-compatible."""
    space: int
    policy: str
    ttl_s: float = 10.0
    _next: int = 0  # never: the next id never handed out
    _free: list[int] = field(default_factory=list)  # a heap of ids given back
    _expiring: list[tuple[float, int]] = field(default_factory=list)  # (free at, id)
    in_use: int = 0
    claims: int = 0

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown claim policy {self.policy!r} (one of {', '.join(POLICIES)})")

    def _expire(self, now: float) -> None:
        while self._expiring and self._expiring[0][0] <= now:
            heapq.heappush(self._free, heapq.heappop(self._expiring)[1])

    def claim(self, now: float) -> int | None:
        """An id for a starting process, or None when the space is exhausted (refused)."""
        self._expire(now)
        if self._free:
            got = heapq.heappop(self._free)
        elif self._next < self.space:
            got, self._next = self._next, self._next + 1
        else:
            return None
        self.in_use += 1
        self.claims += 1
        return got

    def exit(self, worker: int, now: float, clean: bool) -> None:
        """The holder of `worker` stops; `clean` says whether its shutdown hook ran."""
        self.in_use -= 1
        if self.policy == "never" or (self.policy == "clean" and not clean):
            return  # leaked for good
        if self.policy == "lease" and not clean:  # expires one TTL after its last renewal
            heapq.heappush(self._expiring, (now + self.ttl_s, worker))
            return
        heapq.heappush(self._free, worker)  # a clean exit deletes the key / revokes the lease


def run_restarts(n: int, space: int, policy: str, restarts: int, interval_s: float,
                 crash_every: int, ttl_s: float = 10.0) -> int | None:
    """Start n processes, then restart them round-robin, one every interval_s; every
    crash_every-th exit is a crash (1: all). Returns the number of the first restart whose
    claim is refused, or None if all `restarts` got an id."""
    table = ClaimTable(space, policy, ttl_s)
    held = [table.claim(0.0) for _ in range(n)]
    if any(h is None for h in held):
        return 0
    for k in range(1, restarts + 1):
        now = k * interval_s
        i = (k - 1) % n
        table.exit(held[i], now, clean=(k % crash_every != 0))
        got = table.claim(now)
        if got is None:
            return k
        held[i] = got
    return None


def restarts_until_exhausted(policy: str, n: int, space: int, crash_share: float) -> float:
    """Restarts (at any rate) after which the next claim is refused; inf if that never comes
    from accumulation (the lease: see lease_exhausting_rate_per_h)."""
    if policy == "never":
        return float(space - n)
    if policy == "clean":
        return float("inf") if crash_share <= 0 else (space - n) / crash_share
    return float("inf")


def restarts_per_hour_exhausting(policy: str, n: int, space: int, horizon_h: float,
                                 crash_share: float, ttl_s: float) -> float:
    """The fleet-wide restart rate (per hour) that runs the space out within horizon_h; for
    the lease, the rate at which ids held by crashed holders, each for up to one TTL, fill the
    space at any one moment (it does not depend on the horizon)."""
    if policy == "lease":
        return lease_exhausting_rate_per_h(n, space, crash_share, ttl_s)
    return restarts_until_exhausted(policy, n, space, crash_share) / horizon_h


def lease_exhausting_rate_per_h(n: int, space: int, crash_share: float, ttl_s: float) -> float:
    """Crashes per second times TTL is the expected number of ids held by dead processes:
    the space is full when that reaches space - n."""
    if crash_share <= 0:
        return float("inf")
    return (space - n) / (crash_share * ttl_s) * 3600.0


def renewals_per_s(n: int, ttl_s: float) -> float:
    """Keep-alive writes per second for a fleet of n leases (one every TTL/3 each)."""
    return n * KEEPALIVES_PER_TTL / ttl_s


def generation_cost(node_bits: int, gen_bits: int) -> dict:
    """What g generation bits taken from a node field of node_bits cost: the node ids left,
    and after how many claims of one id a zombie's generation equals its successor's again."""
    return {"gen_bits": gen_bits, "node_ids": 2 ** (node_bits - gen_bits),
            "claims_before_gen_repeats": 2 ** gen_bits}
