package consensus

import (
	"encoding/csv"
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/internal/u128"
)

// readCSV reads a testdata/mainnet/context file: a header line, then
// rows of decimal numbers whose first column is the height. It returns the
// first height and the remaining columns as big integers, one slice per
// column, checking that the heights are consecutive.
func readCSV(t testing.TB, name string) (first uint64, cols [][]*big.Int) {
	t.Helper()
	f, err := os.Open(testutil.Path(t, "testdata", "mainnet", "context", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows = rows[1:]
	cols = make([][]*big.Int, len(rows[0])-1)
	for i, row := range rows {
		h, err := strconv.ParseUint(row[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = h
		} else if h != first+uint64(i) {
			t.Fatalf("%s: row %d has height %d, want %d", name, i, h, first+uint64(i))
		}
		for c := range cols {
			v, ok := new(big.Int).SetString(row[c+1], 10)
			if !ok {
				t.Fatalf("%s: bad number %q", name, row[c+1])
			}
			cols[c] = append(cols[c], v)
		}
	}
	return first, cols
}

func uint64s(t testing.TB, col []*big.Int) []uint64 {
	out := make([]uint64, len(col))
	for i, v := range col {
		if !v.IsUint64() {
			t.Fatalf("value %s does not fit 64 bits", v)
		}
		out[i] = v.Uint64()
	}
	return out
}

func u128s(t testing.TB, col []*big.Int) []u128.U128 {
	out := make([]u128.U128, len(col))
	for i, v := range col {
		var ok bool
		if out[i], ok = u128.FromBig(v); !ok {
			t.Fatalf("value %s does not fit 128 bits", v)
		}
	}
	return out
}

func mustU128(s string) u128.U128 {
	b, ok := new(big.Int).SetString(s, 0)
	if !ok {
		panic(s)
	}
	v, ok := u128.FromBig(b)
	if !ok {
		panic(s)
	}
	return v
}
