package importer

import (
	"context"
	"testing"

	"github.com/gonero/gonero/internal/monerodlab"
)

// A chain built for this run is imported, and every stored header equals
// the one monerod serves for the same chain.
func TestFreshChainImportMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	c, db := openChain(t, t.TempDir(), 1)
	defer db.Close()
	if _, err := Import(context.Background(), c, fresh.RawFile, 0, nil); err != nil {
		t.Fatal(err)
	}
	m := lab.StartMonerod(t, fresh.NodeDir)
	want := map[uint64]header{}
	for h := uint64(0); h < c.Height(); h++ {
		var r struct {
			BlockHeader header `json:"block_header"`
		}
		if err := m.Call("getblockheaderbyheight", map[string]any{"height": h}, &r); err != nil {
			t.Fatal(err)
		}
		want[h] = r.BlockHeader
	}
	var info struct {
		Height  uint64 `json:"height"`
		TxCount uint64 `json:"tx_count"`
	}
	if err := m.Call("get_info", nil, &info); err != nil {
		t.Fatal(err)
	}
	if info.Height != c.Height() {
		t.Fatalf("monerod height %d, gonero %d", info.Height, c.Height())
	}
	CompareHeaders(t, db, want)
	t.Logf("%d headers equal monerod's", len(want))
}
