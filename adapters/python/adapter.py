# adapter.py — Python's standard-library uuid.uuid1() / uuid.uuid4() behind idbench's exec line
# protocol (docs/exec-protocol.md, "Adapters"): a request "N\n" on stdin is answered with N UUIDs, one a line,
# in one write and one flush; EOF on stdin exits 0.
#
# uuid1() is called as users call it, with no node and no clock_seq: on Debian's Python it
# goes through libuuid's uuid_generate_time_safe() (the MAC address as node; its is_safe says
# whether uuidd coordinated it). IDBENCH_NODE_ID is therefore not used: uuid1 takes no node id.
import sys
import uuid

MAX_REQUEST = 1_000_000  # external/program.hpp kMaxRequest
GENERATORS = {"uuid1": uuid.uuid1, "uuid4": uuid.uuid4}


def fail(message):
    print(f"idbench python adapter: {message}", file=sys.stderr)
    return 2


def serve(generate, requests, out):
    for line in requests:
        text = line.strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_REQUEST:
            return fail(f"bad request {line[:40]!r}: want a count 1..{MAX_REQUEST} and a newline")
        # One write per request: str(UUID) is the canonical lowercase 8-4-4-4-12 text.
        out.write("".join([f"{generate()}\n" for _ in range(int(text))]))
        out.flush()
    return 0


def main(argv):
    if len(argv) != 2 or argv[1] not in GENERATORS:
        return fail(f"unknown generator {' '.join(argv[1:])!r} (want uuid1 or uuid4)")
    try:
        return serve(GENERATORS[argv[1]], sys.stdin, sys.stdout)
    except BrokenPipeError:
        return 0  # idbench went away mid-answer: nothing left to answer


if __name__ == "__main__":
    sys.exit(main(sys.argv))
