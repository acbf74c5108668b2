package testutil

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"
)

// SameDaemonTime prepares two epee .bin answers for a byte comparison:
// daemon_time (RPC 3.13+, the answering node's clock) must be in both or in
// neither, each within a minute of this clock; then theirs' value is copied
// into ours, since two nodes asked a moment apart can differ by a second.
func SameDaemonTime(t testing.TB, ours, theirs []byte) {
	t.Helper()
	field := append([]byte{byte(len("daemon_time"))}, "daemon_time\x05"...) // name, then type uint64
	i, j := bytes.Index(ours, field), bytes.Index(theirs, field)
	if (i < 0) != (j < 0) {
		t.Errorf("daemon_time in our answer %v, in monerod's %v", i >= 0, j >= 0)
		return
	}
	if i < 0 || i+len(field)+8 > len(ours) || j+len(field)+8 > len(theirs) {
		return
	}
	a, b := ours[i+len(field):i+len(field)+8], theirs[j+len(field):j+len(field)+8]
	now := uint64(time.Now().Unix())
	for _, v := range []uint64{binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b)} {
		if v+60 < now || v > now+60 {
			t.Errorf("daemon_time %d, now %d", v, now)
		}
	}
	copy(a, b)
}
