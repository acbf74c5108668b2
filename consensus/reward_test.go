package consensus

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestBaseReward(t *testing.T) {
	cases := []struct {
		name      string
		generated uint64
		version   uint8
		want      uint64
	}{
		{"genesis", 0, 1, 17592186044415},                               // docs/test-vectors.md §5.1
		{"regtest block 1", 17592186044415, 16, 35184338534400},         // MRS regtest block
		{"v16 from zero", 0, 16, 35184372088831},                        // docs/test-vectors.md §5.1 penalty example's base
		{"monero unit test", 2756434948434199641, 1, 14963444829249},    // tests/unit_tests/block_reward.cpp
		{"v1 tail", MoneySupply - ((1 << 20) + 1), 1, 300000000000},     // same file, handles_max
		{"v1 tail at supply", MoneySupply, 1, 300000000000},             //
		{"v2 tail, miner data 2731375", 18186022843595960691, 16, 6e11}, // get_miner_data_2731375.json
		{"last block above tail", 18132171273709551615 - (1 << 19), 16, 600000000001},
		{"tail boundary", 18132171273709551615, 16, 600000000000},
		{"first tail block", 18132171273709551616, 16, 600000000000},
	}
	for _, c := range cases {
		if got := BaseReward(c.generated, c.version); got != c.want {
			t.Errorf("%s: BaseReward(%d, %d) = %d, want %d", c.name, c.generated, c.version, got, c.want)
		}
	}
}

// Mainnet blocks 1..3 (weights 383, 382 from docs/test-vectors.md §3; block 3's weight
// is irrelevant below the full reward zone), accumulating the supply.
func TestMainnetFirstRewards(t *testing.T) {
	generated := AddGeneratedCoins(0, 17592186044415) // genesis
	for i, want := range []uint64{17592169267200, 17592152490000, 17592135712815} {
		r, err := BlockReward(0, 383, generated, 1)
		if err != nil || r != want {
			t.Fatalf("height %d: reward %d, %v; want %d", i+1, r, err, want)
		}
		g, err := CheckMinerTxAmount(r, r, 0, 1)
		if err != nil || g != r {
			t.Fatalf("height %d: generated %d, %v", i+1, g, err)
		}
		generated = AddGeneratedCoins(generated, g)
	}
}

func TestBlockRewardPenalty(t *testing.T) {
	// docs/test-vectors.md §5.1: base 35184372088831, M = 300000, W = 400000.
	if r, err := BlockReward(300000, 400000, 0, 16); err != nil || r != 31274997412294 {
		t.Errorf("penalty example: %d, %v", r, err)
	}
	// monero block_reward.cpp edges, v1 (median raised to 20000).
	base := BaseReward(0, 1)
	check := func(median, weight, want uint64) {
		t.Helper()
		if r, err := BlockReward(median, weight, 0, 1); err != nil || r != want {
			t.Errorf("BlockReward(%d, %d) = %d, %v; want %d", median, weight, r, err, want)
		}
	}
	check(0, 0, base)
	check(0, FullRewardZoneV1, base)
	check(140000, 140000, base)
	check(140000, 280000, 0)
	if r, _ := BlockReward(0, FullRewardZoneV1+1, 0, 1); r >= base || r == 0 {
		t.Errorf("just above the zone: %d", r)
	}
	if r, _ := BlockReward(0, 2*FullRewardZoneV1-1, 0, 1); r == 0 || r >= base {
		t.Errorf("just below twice the zone: %d", r)
	}
	for _, c := range []struct {
		median, weight uint64
		version        uint8
		floor          uint64
	}{{0, 40001, 1, 20000}, {140000, 280001, 1, 140000}, {0, 120001, 2, 60000}, {250000, 600001, 16, 300000}} {
		_, err := BlockReward(c.median, c.weight, 0, c.version)
		var tb *BlockTooBigError
		if !errors.Is(err, ErrBlockTooBig) || !errors.As(err, &tb) || tb.Weight != c.weight || tb.Median != c.floor {
			t.Errorf("BlockReward(%d, %d, v%d): %v", c.median, c.weight, c.version, err)
		}
	}
}

// The two truncating divisions against math/big over random inputs.
func TestBlockRewardArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		median := FullRewardZoneV5 + rng.Uint64N(1<<28)
		weight := median + 1 + rng.Uint64N(median)
		generated := rng.Uint64()
		got, err := BlockReward(median, weight, generated, 16)
		if err != nil {
			t.Fatal(err)
		}
		base := new(big.Int).SetUint64(BaseReward(generated, 16))
		m := new(big.Int).SetUint64(median)
		f := new(big.Int).SetUint64((2*median - weight) * weight)
		want := base.Mul(base, f)
		want.Quo(want, m).Quo(want, m)
		if !want.IsUint64() || want.Uint64() != got {
			t.Fatalf("BlockReward(%d, %d, %d) = %d, want %s", median, weight, generated, got, want)
		}
	}
}

func TestCheckMinerTxAmount(t *testing.T) {
	cases := []struct {
		outputs, reward, fees uint64
		version               uint8
		generated             uint64
		err                   error
	}{
		{100, 90, 10, 1, 90, nil},
		{99, 90, 10, 1, 0, ErrMinerTxNotExact},
		{101, 90, 10, 1, 0, ErrMinerTxOverspend},
		{99, 90, 10, 2, 89, nil}, // v2..v12 may claim less; generated = outputs - fees
		{100, 90, 10, 12, 90, nil},
		{5, 90, 10, 12, 0, ErrMinerTxBelowFees},
		{101, 90, 10, 12, 0, ErrMinerTxOverspend},
		{99, 90, 10, 13, 0, ErrMinerTxNotExact},
		{615702960000, 6e11, 15702960000, 16, 6e11, nil}, // block 3195020: reward 615702960000 in RPC
	}
	for _, c := range cases {
		g, err := CheckMinerTxAmount(c.outputs, c.reward, c.fees, c.version)
		var me *MinerTxAmountError
		if g != c.generated || !errors.Is(err, c.err) || (c.err != nil && (!errors.As(err, &me) || me.Outputs != c.outputs)) {
			t.Errorf("CheckMinerTxAmount(%d, %d, %d, v%d) = %d, %v; want %d, %v", c.outputs, c.reward, c.fees, c.version, g, err, c.generated, c.err)
		}
	}
}

func TestAddGeneratedCoins(t *testing.T) {
	if g := AddGeneratedCoins(10, 5); g != 15 {
		t.Error(g)
	}
	if g := AddGeneratedCoins(MoneySupply-6e11, 6e11); g != MoneySupply {
		t.Errorf("reaching the supply: %d", g)
	}
	if g := AddGeneratedCoins(MoneySupply-5, 6e11); g != MoneySupply {
		t.Errorf("past the supply: %d", g)
	}
	if g := AddGeneratedCoins(MoneySupply-6e11-1, 6e11); g != MoneySupply-1 {
		t.Errorf("just below: %d", g)
	}
}
