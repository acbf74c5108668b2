package p2p

import (
	"fmt"
	"testing"

	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/pruning"
)

// Full blocks are asked only of a peer whose seed keeps both ends of the
// span: stripe-1 peer on a 20,000-block chain holds 0-4,095 and the tip
// (14,500 on), not 4,096-32,767 below the tip.
func TestPeerHoldsSpan(t *testing.T) {
	s1 := pruning.SeedForStripe(1)
	const h = 20000
	for _, c := range []struct {
		seed     uint32
		first, n uint64
		want     bool
	}{
		{0, 5000, 100, true},       // unpruned peer
		{s1, 0, 100, true},         // its stripe
		{s1, 4000, 96, true},       // ends at 4,095
		{s1, 4000, 97, false},      // reaches 4,096
		{s1, 5000, 100, false},     // stripe 2
		{s1, h - 5500, 100, true},  // the tip
		{s1, h - 5501, 100, false}, // starts just below the tip
		{pruning.SeedForStripe(2), 4096, 100, true},
	} {
		if got := peerHoldsSpan(c.seed, h, c.first, c.n); got != c.want {
			t.Errorf("seed %#x span %d+%d: %v, want %v", c.seed, c.first, c.n, got, c.want)
		}
	}
}

// A peer announcing a pruning seed monerod's process_payload_sync_data
// refuses (log_stripes field not 3, or stripe above 8, after its masks) is
// dropped at the handshake; the valid ones, 0x180-0x187 and any with the
// same masked fields, are answered and remembered for the peer.
func TestPruningSeedInHandshake(t *testing.T) {
	tn := hostileNode(t)
	addr := tn.p2pAddr()
	for i, c := range []struct {
		seed uint32
		ok   bool
	}{
		{0x180, true}, {0x187, true},
		{0x580, true}, // bits above the log_stripes field are masked away, as monerod does
		{0x188, false}, {0x17f, false}, {0x200, false}, {7, false},
	} {
		p := dialRaw(t, addr)
		hs := goodHandshake(uint64(100 + i))
		hs.PayloadData.PruningSeed = c.seed
		p.sendPayload(levin.KindRequest, levin.CommandHandshake, hs)
		if !c.ok {
			p.expectClosed(fmt.Sprintf("a handshake with pruning seed %#x", c.seed))
			continue
		}
		if m := p.expectResponse(levin.CommandHandshake); m.ReturnCode != levin.ReturnSuccess {
			t.Fatalf("seed %#x: handshake answered with code %d", c.seed, m.ReturnCode)
		}
		p.nc.Close()
	}
}
