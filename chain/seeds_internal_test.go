package chain

import (
	"slices"
	"testing"
)

// The seeds prepared ahead around monerod's first two seed changes: the
// genesis block keys heights up to 2112 (SeedHashEpochBlocks +
// SeedHashEpochLag), block 2048 from 2113 on; it is prepared from height
// 2049, the first whose next seed height (rx_seedheights, height + 64)
// differs, while genesis still keys the blocks; block 4096 likewise from
// height 4097, and keys the blocks from 4161 on.
func TestSeedHeightsAhead(t *testing.T) {
	for _, c := range []struct {
		height uint64
		want   []uint64
	}{
		{1, []uint64{0}},
		{2048, []uint64{0}},
		{2049, []uint64{2048, 0}},
		{2112, []uint64{2048, 0}},
		{2113, []uint64{2048}},
		{4096, []uint64{2048}},
		{4097, []uint64{4096, 2048}},
		{4160, []uint64{4096, 2048}},
		{4161, []uint64{4096}},
	} {
		if got := seedHeightsAhead(c.height); !slices.Equal(got, c.want) {
			t.Errorf("height %d: %v, want %v", c.height, got, c.want)
		}
	}
}
