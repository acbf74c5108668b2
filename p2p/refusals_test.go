package p2p

import "testing"

// A refusal is counted by its code under the label of the same position
// in ConnectionRefusalReasons, and logged with admitIncoming's words; an
// admission is not counted.
func TestRefusalCountedByCode(t *testing.T) {
	n := &Node{}
	for _, c := range []struct {
		why   refusal
		label string
		text  string
	}{
		{refusedBanned, "banned", "banned"},
		{refusedInPeers, "in_peers", "--in-peers reached"},
		{refusedPerHost, "per_host", "--max-connections-per-ip reached"},
		{refusedOther, "other", "refused"},
		{refusedOther + 3, "other", "refused"},
	} {
		before := n.RefusedConnections()
		n.refusals.refuse(c.why)
		n.refusals.refuse(admitted)
		after := n.RefusedConnections()
		for _, l := range ConnectionRefusalReasons {
			want := before[l]
			if l == c.label {
				want++
			}
			if after[l] != want {
				t.Errorf("refusal %d: %s counted %d, want %d", c.why, l, after[l], want)
			}
		}
		if c.why.String() != c.text {
			t.Errorf("refusal %d reads %q, want %q", c.why, c.why, c.text)
		}
	}
}
