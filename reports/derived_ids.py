"""derived_ids.py — worker ids derived from the environment, against a lease: the probability
that two live processes of a fleet share one, computed exactly and simulated.

A Snowflake-family ID is unique only while no two live processes hold the same node id. Fleets
rarely coordinate that id; they derive it from what the process finds around it:

  ip     the low bits of the pod's private IPv4. Sonyflake's default machine id is exactly the
         low 16 bits (v2/sonyflake.go, lower16BitPrivateIP: bytes 2 and 3 of the first private,
         non-loopback IPv4 of the host's interfaces). Its maintainer's answer to "will that be
         unique in Kubernetes?" is to configure the pod CIDR so that it is (sony/sonyflake#63);
         zitadel traced duplicate IDs in production to a non-unique Sonyflake machine id
         (zitadel/zitadel#9075). Ports to a narrower field mask the address to the field's
         width; Sonyflake v2 itself refuses a default id that does not fit (#82).
  mac    the low bits of a MAC address. dotnetcore/CAP's default worker id is the low 10 bits
         of the fastest non-virtual up NIC's MAC (Util.GenerateWorkerIdBaseOnMac: the low 2 bits
         of byte 4 and byte 5); CAP#1322 saw duplicate keys across 10+ pods on several nodes.
         A pod's veth gets a kernel-random MAC, so the low bits are uniform: the birthday
         problem. Where the MAC embeds the IPv4 (Docker's bridge 02:42 + IP, CNI's hwaddr helper
         prefix + IP) its low bits are the IP's: the `ip` row.
  pid    the process id, which is 1 in every container (rs/xid#17). xid's answer XORs the pid
         with the CRC of /proc/self/cpuset; in a container with its own cgroup namespace (the
         default under cgroup v2) that file reads "/" in every container (as in the one this
         was written in), so the XOR is with one constant and all still get the same value.
  lease  the lowest free id claimed in etcd (create-if-absent under a lease, as `idbench worker-ids` does):
         distinct by construction while the fleet fits in 2^w; the next claim is refused, not
         duplicated. Its cost is in id_claims.py.

Address plans (`PLANS`), N pods spread round-robin over M = ceil(N / pods_per_node) nodes:
  k8s-/16        Kubernetes with a /16 cluster range and a /24 per node (kube-controller-manager's
                 default --node-cidr-mask-size for IPv4), host-local IPAM: after pod churn the
                 live pods of a node sit anywhere in .2-.254 (uniform, distinct);
  k8s-/16-fresh  the same on fresh nodes: host-local handed out .2, .3, ... in order;
  k8s-/14        a /14 cluster range (GKE's default), a /24 per node: up to 1,024 nodes;
  vpc-/16        a flat VPC: pod addresses anywhere in one /16 (AWS's VPC CNI gives pods VPC
                 addresses); the 5 addresses AWS reserves per subnet are ignored (< 0.1 %);
  flat-/12       a flat 172.16.0.0/12.

`exact()` is the closed form where one exists (None otherwise); `simulate()` draws the
addresses and ids trial by trial from a seeded numpy Generator and counts trials with a shared
id. The two must agree: `clopper_pearson()` gives the simulation's interval.

Thread safety: pure functions; `simulate` uses only the Generator it is given.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln
from scipy.stats import beta

HOSTS_PER_NODE = 253  # .2-.254 of a node's /24: .0 network, .1 the bridge (gateway), .255 broadcast
HOST_FIRST = 2


@dataclass(frozen=True)
class Plan:
    name: str
    summary: str
    kind: str  # "node-cidr" (a /24 per node) or "flat" (one block for every pod)
    base: int  # the block's first address, as an integer
    prefix: int  # the cluster range's (or the flat block's) prefix length
    allocation: str = "random"  # node-cidr only: "random" (after churn) or "sequential" (fresh)

    def max_nodes(self) -> int:
        return 2 ** (24 - self.prefix) if self.kind == "node-cidr" else 0

    def size(self) -> int:
        return 2 ** (32 - self.prefix)


def ipv4(text: str) -> int:
    a, b, c, d = (int(x) for x in text.split("."))
    return (a << 24) | (b << 16) | (c << 8) | d


PLANS = [
    Plan("k8s-/16", "Kubernetes: cluster range 10.244.0.0/16, a /24 per node (the "
         "kube-controller-manager default), pods anywhere in .2-.254 after churn",
         "node-cidr", ipv4("10.244.0.0"), 16),
    Plan("k8s-/16-fresh", "the same on fresh nodes: host-local gave .2, .3, ... in order",
         "node-cidr", ipv4("10.244.0.0"), 16, "sequential"),
    Plan("k8s-/14", "Kubernetes: cluster range 10.0.0.0/14 (GKE's default), a /24 per node",
         "node-cidr", ipv4("10.0.0.0"), 14),
    Plan("vpc-/16", "flat VPC: pod addresses anywhere in 10.0.0.0/16 (AWS VPC CNI)",
         "flat", ipv4("10.0.0.0"), 16),
    Plan("flat-/12", "flat network: pod addresses anywhere in 172.16.0.0/12",
         "flat", ipv4("172.16.0.0"), 12),
]


@dataclass(frozen=True)
class Derivation:
    name: str
    summary: str
    source: str  # where the derivation is found, and where it broke
    per_plan: bool  # True: the id depends on the address plan


DERIVATIONS = [
    Derivation("ip", "low bits of the pod's private IPv4 (Sonyflake's default at 16 bits)",
               "sony/sonyflake#63, zitadel/zitadel#9075", True),
    Derivation("mac", "low bits of the pod's MAC, kernel-random on a veth (CAP: low 10 bits)",
               "dotnetcore/CAP#1322", False),
    Derivation("pid", "low bits of the process id: 1 in every container", "rs/xid#17", False),
    Derivation("lease", "lowest free id claimed in etcd under a lease", "idbench worker-ids (coord/)", False),
]


def derivation(name: str) -> Derivation:
    return next(d for d in DERIVATIONS if d.name == name)


def placement(n: int, pods_per_node: int) -> list[int]:
    """Pods per node when n pods are spread round-robin over ceil(n / pods_per_node) nodes."""
    m = max(1, -(-n // pods_per_node))
    return [n // m + (1 if j < n % m else 0) for j in range(m)]


def applicable(plan: Plan | None, n: int, pods_per_node: int) -> bool:
    """Whether the plan has room for n pods at this density."""
    if plan is None:
        return True
    if plan.kind == "flat":
        return n <= plan.size()
    return len(placement(n, pods_per_node)) <= plan.max_nodes() and pods_per_node <= HOSTS_PER_NODE


# ---------------------------------------------------------------------------------------------
# Exact probabilities


def _log_choose(n: float, k: float) -> float:
    return float(gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1))


def birthday(n: int, k: int) -> float:
    """P(at least two of n uniform draws from k values are equal), exactly."""
    if n > k:
        return 1.0
    if n < 2:
        return 0.0
    return _p(float(gammaln(k + 1) - gammaln(k - n + 1)) - n * math.log(k))


def _sequential_ids(plan: Plan, sizes: list[int]) -> np.ndarray:
    return np.concatenate([plan.base + (j << 8) + HOST_FIRST + np.arange(s, dtype=np.int64)
                           for j, s in enumerate(sizes)])


def _exact_node_cidr(plan: Plan, bits: int, sizes: list[int]) -> float | None:
    n = sum(sizes)
    if plan.allocation == "sequential":  # deterministic: the ids are known
        ids = _sequential_ids(plan, sizes) & ((1 << bits) - 1)
        return 1.0 if len(np.unique(ids)) < n else 0.0
    if bits < 8:  # ids repeat inside one node's /24: no closed form here, only pigeonhole
        return 1.0 if n > 2 ** bits else None
    # A node's address is base + (j << 8) + host, so its low `bits` bits are the host and
    # (bits - 8) bits of the node number: nodes whose numbers agree there form a class sharing
    # one space of 253 host ids. Each node's hosts are a uniform subset, independent across
    # nodes, so a class is collision-free iff its nodes' subsets are disjoint:
    # prod_k C(H - S_k, n_k) / C(H, n_k), S_k the hosts taken by the class's earlier nodes.
    classes: dict[int, list[int]] = {}
    for j, s in enumerate(sizes):
        key = ((plan.base >> 8) + j) % (2 ** (bits - 8)) if bits - 8 < 24 else j
        classes.setdefault(key, []).append(s)
    log_none = 0.0
    for members in classes.values():
        taken = 0
        for s in members:
            if taken + s > HOSTS_PER_NODE:
                return 1.0
            log_none += (_log_choose(HOSTS_PER_NODE - taken, s)
                         - _log_choose(HOSTS_PER_NODE, s))
            taken += s
    return _p(log_none)


def _p(log_none: float) -> float:
    """P(some collision) from log P(none), clamped to [0, 1] (no -0.0 from rounding)."""
    return max(0.0, -math.expm1(min(0.0, log_none)))


def _exact_flat(plan: Plan, bits: int, n: int) -> float:
    size = plan.size()
    if 2 ** bits >= size:  # the aligned block's low bits are the whole address: all distinct
        return 0.0
    k = 2 ** bits
    if n > k:
        return 1.0
    if n < 2:
        return 0.0
    # Every id value has m = size / k addresses. Collision-free choices of n distinct addresses:
    # n distinct values, one of m addresses each: C(k, n) m^n out of C(size, n).
    m = size // k
    return _p(_log_choose(k, n) + n * math.log(m) - _log_choose(size, n))


def exact(deriv: str, plan: Plan | None, bits: int, n: int, pods_per_node: int) -> float | None:
    """P(two of n live processes share a worker id of `bits` bits), or None without a closed
    form. The lease never duplicates: past 2^bits it refuses the claim (probability 0)."""
    if deriv == "lease":
        return 0.0
    if deriv == "pid":
        return 1.0 if n >= 2 else 0.0
    if deriv == "mac":
        return birthday(n, 2 ** bits)
    if plan is None:
        raise ValueError("the ip derivation needs an address plan")
    if plan.kind == "flat":
        return _exact_flat(plan, bits, n)
    return _exact_node_cidr(plan, bits, placement(n, pods_per_node))


# ---------------------------------------------------------------------------------------------
# Simulation

_CELLS_PER_CHUNK = 4_000_000  # random numbers drawn at once: bounds memory to ~16 MB of float32


def _node_cidr_addresses(plan: Plan, sizes: list[int], trials: int,
                         rng: np.random.Generator) -> np.ndarray:
    """(trials, n) addresses: per node a uniform subset of its 253 hosts (or .2, .3, ...)."""
    n, m = sum(sizes), len(sizes)
    if plan.allocation == "sequential":
        return np.broadcast_to(_sequential_ids(plan, sizes), (trials, n))
    widest = max(sizes)
    keep = np.arange(widest)[None, :] < np.asarray(sizes)[:, None]  # (m, widest)
    node_base = plan.base + (np.arange(m, dtype=np.int64) << 8)
    out = []
    chunk = max(1, _CELLS_PER_CHUNK // (m * HOSTS_PER_NODE))
    for start in range(0, trials, chunk):
        c = min(chunk, trials - start)
        keys = rng.random((c, m, HOSTS_PER_NODE), dtype=np.float32)
        # The `widest` smallest keys of each row pick a uniform subset of the hosts.
        hosts = np.argpartition(keys, widest - 1, axis=2)[:, :, :widest] + HOST_FIRST
        addresses = node_base[None, :, None] + hosts
        out.append(addresses[:, keep])
    return np.concatenate(out)


def _flat_addresses(plan: Plan, n: int, trials: int, rng: np.random.Generator) -> np.ndarray:
    return np.stack([plan.base + rng.choice(plan.size(), n, replace=False, shuffle=False)
                     for _ in range(trials)]).astype(np.int64)


def trials_for(deriv: str, plan: Plan | None, n: int, trials: int, pods_per_node: int,
               budget: int = 20_000_000) -> int:
    """`trials`, or fewer (never below 100) where one trial draws more than budget / trials
    random numbers: n ids cost n, a /24 per node costs 253 draws per node, a flat draw above
    1/50 of its block the whole block (numpy's Generator.choice without replacement)."""
    cost = n
    if deriv == "ip" and plan is not None and plan.kind == "flat" and n * 50 > plan.size():
        cost = plan.size()
    elif deriv == "ip" and plan is not None and plan.kind == "node-cidr" \
            and plan.allocation == "random":
        cost = len(placement(n, pods_per_node)) * HOSTS_PER_NODE
    return max(100, min(trials, budget // max(1, cost)))


def draw(deriv: str, plan: Plan | None, n: int, trials: int, pods_per_node: int,
         rng: np.random.Generator) -> np.ndarray:
    """(trials, n) raw values the ids are the low bits of: addresses, MACs, pids, lease ids."""
    if deriv == "ip":
        if plan is None:
            raise ValueError("the ip derivation needs an address plan")
        if plan.kind == "flat":
            return _flat_addresses(plan, n, trials, rng)
        return _node_cidr_addresses(plan, placement(n, pods_per_node), trials, rng)
    if deriv == "mac":  # the low 32 bits of a random MAC are uniform
        return rng.integers(0, 2 ** 32, size=(trials, n), dtype=np.int64)
    if deriv == "pid":
        return np.ones((trials, n), dtype=np.int64)
    if deriv == "lease":
        return np.broadcast_to(np.arange(n, dtype=np.int64), (trials, n))
    raise ValueError(f"unknown derivation {deriv!r}")


def shared(values: np.ndarray, bits: int) -> np.ndarray:
    """Per trial (row): whether two of its processes hold the same `bits`-bit id. A lease row
    holds at most 2^bits ids; the processes past that were refused, so they hold none."""
    # The narrowest unsigned type that holds the ids: numpy sorts 16-bit integers by radix
    # ("stable"), and 32-bit ones in half the memory of int64; the result is the same.
    narrow = np.uint16 if bits <= 16 else np.uint32 if bits <= 32 else np.int64
    ids = np.sort((values & ((1 << bits) - 1)).astype(narrow), axis=1, kind="stable")
    return (ids[:, 1:] == ids[:, :-1]).any(axis=1)


def lease_ids(values: np.ndarray, bits: int) -> np.ndarray:
    """The lease's claims: the processes past 2^bits are refused, not given a duplicate."""
    return values[:, : 2 ** bits]


def simulate(deriv: str, plan: Plan | None, n: int, bits_list: list[int], trials: int,
             pods_per_node: int, rng: np.random.Generator) -> dict[int, int]:
    """Trials (out of `trials`) in which two live processes share an id, per width."""
    values = draw(deriv, plan, n, trials, pods_per_node, rng)
    hits = {}
    for bits in bits_list:
        v = lease_ids(values, bits) if deriv == "lease" else values
        if v.shape[1] > 2 ** bits:  # pigeonhole: more holders than ids, every trial collides
            hits[bits] = trials
        else:
            hits[bits] = int(shared(v, bits).sum()) if v.shape[1] >= 2 else 0
    return hits


def clopper_pearson(hits: int, trials: int, confidence: float = 0.999) -> tuple[float, float]:
    """The exact binomial interval for hits/trials."""
    a = 1 - confidence
    lo = 0.0 if hits == 0 else float(beta.ppf(a / 2, hits, trials - hits + 1))
    hi = 1.0 if hits == trials else float(beta.ppf(1 - a / 2, hits + 1, trials - hits))
    return lo, hi


def crossing(deriv: str, plan: Plan | None, bits: int, target: float, pods_per_node: int,
             limit: int) -> int | None:
    """The smallest n <= limit with exact P(collision) >= target, or None. P grows with n (a
    fleet's draws contain a smaller fleet's), so a doubling search then bisection finds it."""
    def p(n: int) -> float | None:
        return exact(deriv, plan, bits, n, pods_per_node) if applicable(
            plan, n, pods_per_node) else None

    hi = 2
    while hi <= limit and (p(hi) is not None and p(hi) < target):
        hi *= 2
    hi = min(hi, limit)
    top = p(hi)
    if top is None or top < target:
        return None
    lo = hi // 2 if hi > 2 else 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        pm = p(mid)
        if pm is None:
            return None
        lo, hi = (lo, mid) if pm >= target else (mid, hi)
    return hi
