# adapter.py — Python's standard-library uuid.uuid1() / uuid.uuid4() behind idbench's exec line
# protocol (docs/exec-protocol.md, "Adapters"): a request "N\n" on stdin is answered with N UUIDs, one a line,
# in one write and one flush; EOF on stdin exits 0.
#
# uuid1() is called as users call it, with no node and no clock_seq: on Debian's Python it
# goes through libuuid's uuid_generate_time_safe() (the MAC address as node; its is_safe says
# whether uuidd coordinated it). IDBENCH_NODE_ID is therefore not used: uuid1 takes no node id.
#
# With IDBENCH_SYSTEM_TIMES set (a file path), it writes there at EOF one line per answered
# request: the ns the generator calls took (time.monotonic_ns() around them), the generator's
# own cost without the pipe hop (docs/exec-protocol.md).
import os
import sys
import time
import uuid

MAX_REQUEST = 1_000_000  # external/program.hpp kMaxRequest
GENERATORS = {"uuid1": uuid.uuid1, "uuid4": uuid.uuid4}


def fail(message):
    print(f"idbench python adapter: {message}", file=sys.stderr)
    return 2


def serve(generate, requests, out, times):
    for line in requests:
        text = line.strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_REQUEST:
            return fail(f"bad request {line[:40]!r}: want a count 1..{MAX_REQUEST} and a newline")
        # One write per request: str(UUID) is the canonical lowercase 8-4-4-4-12 text.
        start = time.monotonic_ns()
        answer = "".join([f"{generate()}\n" for _ in range(int(text))])
        times.append(time.monotonic_ns() - start)
        out.write(answer)
        out.flush()
    return 0


def write_times(times):
    path = os.environ.get("IDBENCH_SYSTEM_TIMES")
    if path:
        with open(path, "w", encoding="ascii") as f:
            f.write("".join(f"{ns}\n" for ns in times))


def main(argv):
    if len(argv) != 2 or argv[1] not in GENERATORS:
        return fail(f"unknown generator {' '.join(argv[1:])!r} (want uuid1 or uuid4)")
    times = []
    try:
        status = serve(GENERATORS[argv[1]], sys.stdin, sys.stdout, times)
        write_times(times)
        return status
    except BrokenPipeError:
        return 0  # idbench went away mid-answer: nothing left to answer


if __name__ == "__main__":
    sys.exit(main(sys.argv))
