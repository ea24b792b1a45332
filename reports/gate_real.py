"""gate_real.py — the regression gate's rule for the real systems under faults (real_chaos.json
from `idbench real-chaos`; its shape: reports/real_faults.py).

Correctness is exact, whatever the noise: every part of NEW (one real system through one
fault) that issued a duplicate fails the gate, with a line naming the fault and the system,
even when BASE had the same duplicates ("also in BASE"): a real system handing out one ID twice
is never a figure to tolerate, the same rule as a broken promise in chaos.json. A part whose
verdict failed for another reason (fault not applied, a client error) fails only when the same
part passed in BASE: that is new. A part the machine starved (its clients issued nothing before
the fault, after every retry) says nothing about the system: a note asking for another run,
never a regression. Parts BASE ran and NEW lacks are a note.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

from inputs import number
from real_faults import FILE, RealFaults  # noqa: F401 (FILE re-exported for compare.py)


MACHINE_STARVED = "machine starved"  # the verdict idbench real-chaos gives such a part


def _verdict(part: dict) -> dict:
    return part.get("verdict") if isinstance(part.get("verdict"), dict) else {}


def _duplicates(part: dict) -> float:
    figures = part.get("figures") if isinstance(part.get("figures"), dict) else {}
    n = number(figures.get("duplicates")) or 0
    if not n and str(_verdict(part).get("verdict", "")).upper() == "DUPLICATES":
        return 1  # the verdict says so even where the count is missing
    return n


def _index(rf: RealFaults) -> dict[tuple[str, str], dict]:
    return {(str(s.get("scenario")), str(p.get("system"))): p for s, p in rf.parts()}


def judge_real_faults(base: RealFaults | None, new: RealFaults) -> list[tuple[str, bool]]:
    """(sentence, is_regression) for every part worth a line."""
    out: list[tuple[str, bool]] = []
    before = _index(base) if base is not None and base.present else {}
    for (scenario, system), part in _index(new).items():
        b = before.get((scenario, system))
        v = _verdict(part)
        dups = _duplicates(part)
        if dups:
            also = ""
            if b is not None and _duplicates(b):
                also = " (also in BASE)"
            out.append((f"{scenario} · {system}: DUPLICATES — {int(dups)} duplicate "
                        f"ID{'s' if dups != 1 else ''} issued{also}: "
                        f"{v.get('evidence') or 'see real_chaos.json'}", True))
        elif v.get("verdict") == MACHINE_STARVED:
            out.append((f"{scenario} · {system}: not judged, the machine starved its clients; "
                        "run it again", False))
        elif v.get("passed") is False:
            newly = b is not None and _verdict(b).get("passed") is True
            out.append((f"{scenario} · {system}: {v.get('verdict', 'failed')}"
                        + (" (passed in BASE)" if newly else " (as in BASE)" if b else ""),
                        newly))
    lost = [k for k in before if k not in _index(new)]
    if lost:
        out.append((f"{len(lost)} real-system fault runs of BASE are not in NEW: not judged",
                    False))
    return out

