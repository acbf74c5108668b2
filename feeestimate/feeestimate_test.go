package feeestimate

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/params"
)

// The 2021 scaling's arithmetic on monerod's own cases
// (tests/unit_tests/scaling_2021.cpp, wallet_fee_cases_from_pdf: base
// reward 0.6 XMR, the short- and long-term medians).
func TestFees2021MonerodCases(t *testing.T) {
	for _, c := range []struct {
		mnw, mlw uint64
		want     []uint64
	}{
		{300000, 300000, []uint64{20000, 80000, 320000, 4000000}},
		{15000000, 300000, []uint64{20000, 80000, 320000, 1300000}},
		{1425000, 1425000, []uint64{890, 3600, 68000, 850000}},
		{1500000, 1500000, []uint64{800, 3200, 64000, 800000}},
		{75000000, 1500000, []uint64{800, 3200, 64000, 260000}},
	} {
		if got := fees2021(600000000000, c.mnw, c.mlw); !slices.Equal(got, c.want) {
			t.Errorf("Mnw %d, Mlw %d: %v, want %v", c.mnw, c.mlw, got, c.want)
		}
	}
	// round_money_up(x, 2) of the same file, on whole atomic units.
	for in, want := range map[uint64]uint64{27810: 28000, 0: 0, 50: 50, 12: 12, 999: 1000, 2000001: 2100000} {
		if got := roundMoneyUp(in); got != want {
			t.Errorf("roundMoneyUp(%d) = %d, want %d", in, got, want)
		}
	}
}

// The 2021 estimate's refusals carry monerod's texts (the ZMQ RPC answers
// them; TestGenesisOnlyAgainstMonerod in zmqrpc compares them), and a
// genesis-only chain is already at the next block's version.
func TestScaling2021Refusals(t *testing.T) {
	db, err := chaindb.Open(filepath.Join(t.TempDir(), "chain.db"), chaindb.Options{Network: params.Regtest.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := Version(params.Regtest, 1); v != params.Regtest.VersionAt(1) || v < 15 {
		t.Fatalf("a genesis-only regtest chain at version %d", v)
	}
	_ = db.View(func(r *chaindb.Reader) error {
		next := chain.NextBlock{Height: 1}
		if _, err := Scaling2021(r, params.Regtest, next, 1, MaxGrace+1); !errors.Is(err, ErrGraceInvalid) {
			t.Errorf("101 grace blocks: %v", err)
		}
		var he *HeightError
		if _, err := Scaling2021(r, params.Regtest, next, 1, MaxGrace); !errors.As(err, &he) || he.Error() != "Height 1 not in blockchain" {
			t.Errorf("100 grace blocks: %v", err)
		}
		return nil
	})
}
