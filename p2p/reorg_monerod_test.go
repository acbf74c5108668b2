package p2p

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
)

// bobAddress is the regtest wallet "bob" of testdata/regtest: the
// second branch's miner, so that the branches' blocks differ.
const bobAddress = "46s2fAbLma7FktkJWc2wijKHsdFMZV32qgnFDxFJezT4ZZPYXZJwT2jj4vM1yENnxRGNDCvSTihk5dYj5sts3RkUVCq7RtY"

// mineOffline mines n blocks on an offline monerod started on a copy of
// nodeDir (offline monerod counts itself synchronized, so it mines), then
// restarts it online on the result. It returns the running monerod and
// the mined block ids.
func mineOffline(t *testing.T, lab *monerodlab.Lab, nodeDir string, n int, address string) (*monerodlab.Monerod, []string) {
	t.Helper()
	m := lab.StartMonerod(t, nodeDir)
	var gen struct {
		Blocks []string `json:"blocks"`
	}
	if err := m.Call("generateblocks", map[string]any{"amount_of_blocks": n, "wallet_address": address}, &gen); err != nil {
		t.Fatal(err)
	}
	m.Stop()
	return lab.StartMonerod(t, m.DataDir, "--online"), gen.Blocks
}

// Two monerods mine competing branches; gonero follows the lighter one,
// then meets the heavier one and switches to it, keeping the losing
// blocks as alternatives; through gonero the lighter monerod meets the
// heavier chain too. Afterwards gonero answers for every block of both
// branches exactly as that monerod does (orphan_status true for the
// losers).
func TestReorgBetweenTwoMonerods(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	a, aBlocks := mineOffline(t, lab, fresh.NodeDir, 3, monerodlab.AliceAddress)
	b, bBlocks := mineOffline(t, lab, fresh.NodeDir, 5, bobAddress)
	addrA, addrB := "127.0.0.1:"+strconv.Itoa(a.P2PPort), "127.0.0.1:"+strconv.Itoa(b.P2PPort)

	cfg := Config{ExclusiveNodes: []string{addrA}, ConnectInterval: 100 * time.Millisecond, TimedSyncInterval: time.Second}
	tn := startTestNode(t, fresh.RawFile, cfg)
	base := tn.chain.Height()
	eventually(t, 30*time.Second, "gonero to follow branch A", func() bool { return tn.chain.Top().Hash.String() == aBlocks[2] })

	cfg.ExclusiveNodes = []string{addrA, addrB}
	tn.startP2P(cfg)
	start := time.Now()
	eventually(t, 30*time.Second, "gonero to switch to branch B", func() bool { return tn.chain.Top().Hash.String() == bBlocks[4] })
	t.Logf("switched to the heavier branch %v after meeting it", time.Since(start))
	if h := tn.chain.Height(); h != base+5 {
		t.Fatalf("height %d after the switch, want %d", h, base+5)
	}
	eventually(t, 60*time.Second, "monerod A to reach branch B through gonero", func() bool { return monerodGetInfo(t, a).TopHash == bBlocks[4] })

	for _, id := range append(append([]string(nil), aBlocks...), bBlocks...) {
		for _, method := range []string{"getblockheaderbyhash", "getblock"} {
			params := fmt.Sprintf(`{"hash":%q}`, id)
			ours := result(t, call(t, tn.url, method, params))
			theirs := result(t, call(t, mURL(a), method, params))
			if g, w := canonical(ours), canonical(theirs); g != w {
				t.Fatalf("%s %s\n gonero: %s\nmonerod: %s", method, params, g, w)
			}
		}
	}
	for _, id := range aBlocks {
		hdr, _ := result(t, call(t, tn.url, "getblockheaderbyhash", fmt.Sprintf(`{"hash":%q}`, id))).Get("block_header")
		if !boolField(t, hdr, "orphan_status") {
			t.Fatalf("losing block %s is not reported as an orphan", id)
		}
	}
	ours := uintField(t, result(t, call(t, tn.url, "get_info", `{}`)), "alt_blocks_count")
	theirs := uintField(t, result(t, call(t, mURL(a), "get_info", `{}`)), "alt_blocks_count")
	if ours != 3 || theirs != 3 {
		t.Fatalf("alt_blocks_count: gonero %d, monerod A %d; want 3", ours, theirs)
	}
	sameChain(t, tn, b, base-1)
}
