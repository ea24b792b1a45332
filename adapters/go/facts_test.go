// facts_test.go — pins what docs/exec-protocol.md ("The Go adapters") says the packaged
// libraries do when the clock goes back, where a library takes the time as an argument
// (oklog/ulid New, rs/xid NewWithTime, segmentio/ksuid NewRandomWithTime), and how the adapter
// maps each ID to 128 bits. google/uuid and gofrs/uuid read time.Now through an unexported
// variable, so their rule is cited from the source, not pinned here.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/oklog/ulid"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
)

// constantReader yields one byte value forever: a random source with a known outcome.
type constantReader byte

func (c constantReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func TestUlidMonotonicIncrementsWithinOneMillisecond(t *testing.T) {
	entropy := ulid.Monotonic(constantReader(7), 0)
	first := ulid.MustNew(1000, entropy)
	second := ulid.MustNew(1000, entropy)
	if first.Compare(second) >= 0 {
		t.Fatalf("same ms: %s then %s, want increasing", first, second)
	}
}

func TestUlidMonotonicLetsTheTimeGoBackWithFreshEntropy(t *testing.T) {
	entropy := ulid.Monotonic(constantReader(7), 0)
	later := ulid.MustNew(1000, entropy)
	ulid.MustNew(1000, entropy) // incremented: the entropy is no longer the reader's bytes
	earlier, err := ulid.New(999, entropy)
	if err != nil {
		t.Fatalf("a millisecond behind: error %v, want an ID", err)
	}
	if earlier.Time() != 999 || earlier.Compare(later) >= 0 {
		t.Fatalf("a millisecond behind: %s (time %d) after %s, want time 999, sorting below",
			earlier, earlier.Time(), later)
	}
	if !bytes.Equal(earlier.Entropy(), bytes.Repeat([]byte{7}, 10)) {
		t.Fatalf("a millisecond behind: entropy %x, want fresh bytes from the reader", earlier.Entropy())
	}
}

func TestUlidMonotonicOverflowIsAnErrorNotAWrap(t *testing.T) {
	entropy := ulid.Monotonic(constantReader(0xff), 1) // 80 one bits, then +1
	ulid.MustNew(1000, entropy)
	if _, err := ulid.New(1000, entropy); !errors.Is(err, ulid.ErrMonotonicOverflow) {
		t.Fatalf("entropy overflow: error %v, want ErrMonotonicOverflow", err)
	}
}

func TestXidWritesTheEarlierSecondAndKeepsCounting(t *testing.T) {
	now := time.Unix(1800000000, 0)
	before := xid.NewWithTime(now)
	after := xid.NewWithTime(now.Add(-5 * time.Second))
	if after.Time().Unix() != now.Unix()-5 || bytes.Compare(after[:], before[:]) >= 0 {
		t.Fatalf("5 s back: %s (%v) after %s, want the earlier second, sorting below", after,
			after.Time(), before)
	}
	if after.Counter() != (before.Counter()+1)&0xffffff {
		t.Fatalf("5 s back: counter %d after %d, want the next value", after.Counter(), before.Counter())
	}
}

func TestKsuidWritesTheEarlierSecond(t *testing.T) {
	now := time.Unix(1800000000, 0)
	k, err := ksuid.NewRandomWithTime(now.Add(-5 * time.Second))
	if err != nil || k.Time().Unix() != now.Unix()-5 {
		t.Fatalf("5 s back: %v, %v, want the earlier second", k.Time(), err)
	}
}

func TestXidKeepsAll96BitsThenZeros(t *testing.T) {
	id, err := schemes["rs-xid"]()()
	if err != nil || !bytes.Equal(id[12:], []byte{0, 0, 0, 0}) {
		t.Fatalf("rs-xid: %x, %v, want 12 bytes then 4 zero bytes", id, err)
	}
	if seconds := int64(binary.BigEndian.Uint32(id[:4])); time.Now().Unix()-seconds > 60 {
		t.Fatalf("rs-xid: top 32 bits %d, want the Unix seconds of now", seconds)
	}
}

func TestKsuidKeepsItsTimestamp(t *testing.T) {
	id, err := schemes["segmentio-ksuid"]()()
	seconds := int64(binary.BigEndian.Uint32(id[:4])) + 1400000000 // ksuid's epochStamp
	if err != nil || time.Now().Unix()-seconds > 60 || time.Now().Unix() < seconds {
		t.Fatalf("segmentio-ksuid: %x, %v, want the seconds of now since 1400000000", id, err)
	}
}

func TestUUIDTextIsCanonical(t *testing.T) {
	var b [16]byte
	for i := range b {
		b[i] = byte(i * 17)
	}
	const want = "00112233-4455-6677-8899-aabbccddeeff\n"
	if got := string(appendUUID(nil, b)); got != want {
		t.Fatalf("appendUUID: %q, want %q", got, want)
	}
}
