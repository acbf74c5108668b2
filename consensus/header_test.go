package consensus

import (
	"errors"
	"testing"

	"github.com/gonero/gonero/params"
)

func TestCheckVersion(t *testing.T) {
	cases := []struct {
		net          params.Network
		height       uint64
		major, minor uint8
		err          error
	}{
		// Real headers (docs/test-vectors.md §3).
		{params.Mainnet, 0, 1, 0, nil}, // genesis: minor 0 votes for 1
		{params.Mainnet, 123, 1, 0, nil},
		{params.Mainnet, 912345, 1, 2, nil}, // voting for v2 early
		{params.Mainnet, 1545999, 6, 6, nil},
		{params.Mainnet, 1546000, 7, 7, nil},
		{params.Mainnet, 1731606, 9, 9, nil},
		{params.Mainnet, 2751506, 16, 16, nil},
		{params.Mainnet, 2751506, 16, 200, nil}, // votes above the newest version are fine
		// Broken ones.
		{params.Mainnet, 1546000, 6, 7, ErrWrongMajorVersion},
		{params.Mainnet, 1545999, 7, 7, ErrWrongMajorVersion},
		{params.Mainnet, 2751506, 16, 15, ErrVoteTooLow},
		{params.Mainnet, 2751506, 16, 0, ErrVoteTooLow},
		// monero-rs's regtest block 1 came from a node whose newest fork was 14;
		// a 0.18 regtest chain wants 16 there.
		{params.Regtest, 1, 14, 14, ErrWrongMajorVersion},
		{params.Regtest, 1, 16, 16, nil},
		{params.Regtest, 0, 1, 0, nil},
	}
	for _, c := range cases {
		expected := c.net.VersionAt(c.height)
		err := CheckVersion(c.major, c.minor, expected)
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s height %d, %d.%d: %v, want %v", c.net, c.height, c.major, c.minor, err, c.err)
			continue
		}
		var ve *VersionError
		if err != nil && (!errors.As(err, &ve) || ve.Major != c.major || ve.Minor != c.minor || ve.Expected != expected) {
			t.Errorf("%s height %d: error details %+v", c.net, c.height, ve)
		}
	}
}

func TestTimestampCheckRange(t *testing.T) {
	for _, c := range []struct{ h, first, end uint64 }{{0, 0, 0}, {1, 0, 1}, {60, 0, 60}, {61, 1, 61}, {3000000, 2999940, 3000000}} {
		if f, e := TimestampCheckRange(c.h); f != c.first || e != c.end {
			t.Errorf("TimestampCheckRange(%d) = [%d, %d), want [%d, %d)", c.h, f, e, c.first, c.end)
		}
	}
}

// Every real block of the difficulty series passes against the 60 before it,
// with local time equal to its own timestamp; then broken variants fail.
func TestCheckTimestampMainnet(t *testing.T) {
	first, cols := readCSV(t, "difficulty_3000000_3001999.csv")
	ts := uint64s(t, cols[1])
	for i := TimestampCheckWindow; i < len(ts); i++ {
		lo, hi := TimestampCheckRange(first + uint64(i))
		prev := ts[lo-first : hi-first]
		if err := CheckTimestamp(ts[i], prev, ts[i]); err != nil {
			t.Fatalf("height %d: %v", first+uint64(i), err)
		}
		median := Median(prev)
		err := CheckTimestamp(median-1, prev, ts[i])
		var te *TimestampError
		if !errors.Is(err, ErrTimestampTooOld) || !errors.As(err, &te) || te.Bound != median || te.Timestamp != median-1 {
			t.Fatalf("height %d: one second below the median %d: %v", first+uint64(i), median, err)
		}
		if err := CheckTimestamp(median, prev, ts[i]); err != nil {
			t.Fatalf("height %d: the median itself must pass: %v", first+uint64(i), err)
		}
	}
}

func TestCheckTimestamp(t *testing.T) {
	now := uint64(1_700_000_000)
	if err := CheckTimestamp(now+BlockFutureTimeLimit, nil, now); err != nil {
		t.Errorf("exactly 2 h ahead: %v", err)
	}
	err := CheckTimestamp(now+BlockFutureTimeLimit+1, nil, now)
	var te *TimestampError
	if !errors.Is(err, ErrTimestampTooNew) || !errors.As(err, &te) || te.Bound != now+BlockFutureTimeLimit {
		t.Errorf("2 h + 1 s ahead: %v", err)
	}
	// Fewer than 60 previous blocks: no median rule.
	prev := make([]uint64, 59)
	for i := range prev {
		prev[i] = now
	}
	if err := CheckTimestamp(0, prev, now); err != nil {
		t.Errorf("59 previous blocks: %v", err)
	}
	prev = append(prev, now)
	if err := CheckTimestamp(now-1, prev, now); !errors.Is(err, ErrTimestampTooOld) {
		t.Errorf("60 previous blocks: %v", err)
	}
	// Only the last 60 count: an old prefix does not lower the median.
	long := append(make([]uint64, 100), prev...)
	if err := CheckTimestamp(now-1, long, now); !errors.Is(err, ErrTimestampTooOld) {
		t.Errorf("160 previous blocks: %v", err)
	}
	// The future rule comes first.
	if err := CheckTimestamp(now+BlockFutureTimeLimit+1, prev, now); !errors.Is(err, ErrTimestampTooNew) {
		t.Errorf("future and fine median: %v", err)
	}
}
