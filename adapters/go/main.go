// main.go — Debian-packaged Go ID libraries behind idbench's exec line protocol
// (docs/exec-protocol.md, "The Go adapters"): a request "N\n" on stdin is answered with N IDs,
// one a line, in one write; EOF exits 0.
//
//	idbench-go-adapter google-uuid-v1|gofrs-uuid-v1|gofrs-uuid-v6|gofrs-uuid-v7|oklog-ulid|rs-xid|segmentio-ksuid
//
// Each generator is the library's own code, called as its documentation tells users to call
// it; the only code here turns its bytes into what idbench reads. idbench's IDs are 64 or 128
// bits, so every ID is printed as 128-bit UUID text, lowercase, in the library's byte order
// (so text order is the library's order):
//
//	google-uuid-v1   github.com/google/uuid NewUUID(): its 16 bytes.
//	gofrs-uuid-v1/6/7  github.com/gofrs/uuid NewV1(), NewV6(), NewV7() (v6, v7: draft 03): its 16 bytes.
//	oklog-ulid       github.com/oklog/ulid New(Now(), Monotonic(crypto/rand, 0)): its 16 bytes.
//	rs-xid           github.com/rs/xid New(): 96 bits, so its 12 bytes then 4 zero bytes. Nothing
//	                 is dropped; the top 32 bits are Unix seconds.
//	segmentio-ksuid  github.com/segmentio/ksuid NewRandom(): 160 bits do not fit, so its FIRST 16
//	                 bytes, as the Node adapter prints a KSUID: the 4-byte timestamp and 12 of its
//	                 16 random bytes. Order and time are kept; 32 random bits are dropped.
//
// None of these libraries takes a node id (the v1 ones take the first network interface's
// hardware address, xid a hash of /etc/machine-id and the pid), so IDBENCH_NODE_ID is not read.
// No summary line is printed on stderr: none of the libraries reports retries or failovers.
//
// With IDBENCH_SYSTEM_TIMES set (a file path), it writes there at EOF one line per answered
// request: the ns the library calls took (Go's monotonic clock, around them).
//
// Exit 2: bad usage or a bad request (one line on stderr). Exit 3: the library refused (an
// error it returned, such as ulid's monotonic overflow).
package main

import (
	"bufio"
	cryptorand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	gofrs "github.com/gofrs/uuid"
	google "github.com/google/uuid"
	"github.com/oklog/ulid"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
)

const maxRequest = 1000000 // external/program.hpp kMaxRequest

// A generator returns the next ID as 16 bytes, or the library's error.
type generator func() ([16]byte, error)

// The schemes by the name the command line uses; each entry makes one generator per process.
var schemes = map[string]func() generator{
	"google-uuid-v1": func() generator {
		return func() ([16]byte, error) { return google.NewUUID() }
	},
	"gofrs-uuid-v1": func() generator {
		return func() ([16]byte, error) { return gofrs.NewV1() }
	},
	"gofrs-uuid-v6": func() generator {
		return func() ([16]byte, error) { return gofrs.NewV6() }
	},
	"gofrs-uuid-v7": func() generator {
		return func() ([16]byte, error) { return gofrs.NewV7() }
	},
	// One MonotonicEntropy per process: it is not safe for concurrent use, and this loop is
	// its only caller. inc 0 is the library's default increment bound (math.MaxUint32).
	"oklog-ulid": func() generator {
		entropy := ulid.Monotonic(cryptorand.Reader, 0)
		return func() ([16]byte, error) { return ulid.New(ulid.Now(), entropy) }
	},
	"rs-xid": func() generator {
		return func() (out [16]byte, err error) {
			id := xid.New()
			copy(out[:], id[:]) // 12 bytes; the last 4 stay zero
			return out, nil
		}
	},
	"segmentio-ksuid": func() generator {
		return func() (out [16]byte, err error) {
			k, err := ksuid.NewRandom()
			copy(out[:], k[:16]) // the timestamp and the first 12 payload bytes
			return out, err
		}
	},
}

func names() string {
	list := make([]string, 0, len(schemes))
	for name := range schemes {
		list = append(list, name)
	}
	sort.Strings(list)
	return strings.Join(list, ", ")
}

func fail(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "idbench go adapter: "+format+"\n", args...)
	os.Exit(code)
}

// appendUUID appends the canonical 8-4-4-4-12 lowercase text of b and a newline.
func appendUUID(out []byte, b [16]byte) []byte {
	var text [36]byte
	hex.Encode(text[0:8], b[0:4])
	hex.Encode(text[9:13], b[4:6])
	hex.Encode(text[14:18], b[6:8])
	hex.Encode(text[19:23], b[8:10])
	hex.Encode(text[24:36], b[10:16])
	text[8], text[13], text[18], text[23] = '-', '-', '-', '-'
	return append(append(out, text[:]...), '\n')
}

// count parses one request line: 1..maxRequest decimal digits, an optional '\r'.
func count(line string) int {
	text := strings.TrimSuffix(line, "\r")
	n, err := strconv.Atoi(text)
	if len(text) == 0 || len(text) > 7 || strings.TrimLeft(text, "0123456789") != "" || err != nil ||
		n < 1 || n > maxRequest {
		if len(line) > 40 {
			line = line[:40]
		}
		fail(2, "bad request %q: want a count 1..%d and a newline", line, maxRequest)
	}
	return n
}

func serve(name string, generate generator, in *bufio.Reader, times *[]time.Duration) {
	var answer []byte
	for {
		line, err := in.ReadString('\n')
		if err != nil && err != io.EOF {
			fail(2, "reading stdin: %v", err)
		}
		if line == "" && err == io.EOF {
			return
		}
		n := count(strings.TrimSuffix(line, "\n"))
		answer = answer[:0]
		start := time.Now()
		for i := 0; i < n; i++ {
			id, genErr := generate()
			if genErr != nil {
				fail(3, "%s refused: %v", name, genErr)
			}
			answer = appendUUID(answer, id)
		}
		*times = append(*times, time.Since(start))
		// One write per request. idbench went away mid-answer: nothing left to answer.
		if _, werr := os.Stdout.Write(answer); werr != nil {
			if errors.Is(werr, syscall.EPIPE) {
				os.Exit(0)
			}
			fail(2, "writing stdout: %v", werr)
		}
		if err == io.EOF {
			return
		}
	}
}

func writeTimes(times []time.Duration) {
	path := os.Getenv("IDBENCH_SYSTEM_TIMES")
	if path == "" {
		return
	}
	var text strings.Builder
	for _, t := range times {
		fmt.Fprintf(&text, "%d\n", t.Nanoseconds())
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		fail(2, "IDBENCH_SYSTEM_TIMES: %v", err)
	}
}

func main() {
	var factory func() generator
	ok := false
	if len(os.Args) == 2 {
		factory, ok = schemes[os.Args[1]]
	}
	if !ok {
		fail(2, "unknown generator '%s' (want %s)", strings.Join(os.Args[1:], " "), names())
	}
	// A write to a closed pipe returns EPIPE instead of killing the process with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	var times []time.Duration
	serve(os.Args[1], factory(), bufio.NewReaderSize(os.Stdin, 4096), &times)
	writeTimes(times)
}
