package monerodlab

import (
	"net"
	"strconv"
	"testing"
)

// FreePort never hands out a port twice, and only ports below the kernel's
// ephemeral range, where neither a listen on port 0 nor an outgoing
// connection can take it before the node it was meant for binds it.
func TestFreePortDistinctBelowEphemeral(t *testing.T) {
	low := ephemeralLow()
	seen := map[int]bool{}
	for range 300 {
		p := FreePort(t)
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if low-freePortFloor >= 1000 && (p < freePortFloor || p >= low) {
			t.Fatalf("port %d outside [%d, %d)", p, freePortFloor, low)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		l.Close()
	}
}
