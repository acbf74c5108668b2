package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

// importStore imports an export file into a fresh regtest store, as
// gonerod import does, and returns the store's path (closed).
func importStore(t *testing.T, file string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gonero.db")
	db, err := chaindb.Open(path, chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(db, chain.Config{Network: params.Regtest, FixedDifficulty: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Import(context.Background(), c, file, 0, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// The floor counted from a store equals the floor counted from the export
// file the store was imported from: every part (blobs, the index items,
// the pruned blobs), on the real regtest chain and, when one is given
// (GONERO_FRESH_CHAIN, a monerodlab buildchain directory), a fresh one. The
// pruned floor is compared where it drops nothing (the chain's own height:
// all 300 blocks lie in the pruning tip), and as a stripe that does not
// keep heights 0-4,095 counts them below the tip of a longer chain.
func TestFloorOfStoreEqualsExport(t *testing.T) {
	files := []string{testutil.Path(t, "testdata", "regtest", "blockchain.raw")}
	if d := os.Getenv("GONERO_FRESH_CHAIN"); d != "" {
		files = append(files, filepath.Join(d, "blockchain.raw"))
	}
	for _, file := range files {
		store := importStore(t, file)
		for _, tc := range []struct {
			stripe      uint32
			chainHeight uint64
			pruned      bool // whether the v2 txs are pruned away
		}{{1, 0, false}, {2, 0, false}, {1, 10_000_000, false}, {2, 10_000_000, true}} {
			want, err := floorOfExport(file, tc.stripe, tc.chainHeight)
			if err != nil {
				t.Fatal(err)
			}
			got, err := floorOfStore(store, params.Regtest.String(), tc.stripe, tc.chainHeight)
			if err != nil {
				t.Fatal(err)
			}
			if got.parts != want.parts || got.chainHeight != want.chainHeight || got.seed != want.seed {
				t.Errorf("%s stripe %d height %d: store %+v, export %+v", file, tc.stripe, tc.chainHeight, got.parts, want.parts)
			}
			// The chain has real RingCT txs, so the comparison covers
			// every part, and pruning drops something exactly when asked.
			if want.txs <= want.blocks || want.inputs == 0 || want.outputs == 0 {
				t.Fatalf("%s: %d blocks, %d txs, %d inputs, %d outputs: no transfers to count", file, want.blocks, want.txs, want.inputs, want.outputs)
			}
			if pruned := want.prunedAway > 0 && want.prunedTxBlobs < want.txBlobs; pruned != tc.pruned {
				t.Errorf("%s stripe %d height %d: %d txs pruned (%d of %d tx bytes kept), want pruned %v", file, tc.stripe,
					tc.chainHeight, want.prunedAway, want.prunedTxBlobs, want.txBlobs, tc.pruned)
			}
		}
	}
}

// A pruned store no longer holds whole blobs: its floor is refused, not
// under-counted.
func TestFloorOfPrunedStoreRefused(t *testing.T) {
	store := importStore(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	db, err := chaindb.Open(store, chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Prune(chaindb.PruneAll, 2); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := floorOfStore(store, params.Regtest.String(), 1, 0); err == nil {
		t.Fatal("the floor of a pruned store was counted")
	}
}
