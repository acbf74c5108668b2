package cryptonote

import (
	"os"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

func benchBlob(b *testing.B, elem ...string) []byte {
	blob, err := os.ReadFile(testutil.Path(b, elem...))
	if err != nil {
		b.Fatal(err)
	}
	return blob
}

// Parse a modern block (mainnet 2751506, coinbase only) and compute its id.
func BenchmarkParseAndHashBlock(b *testing.B) {
	blob := benchBlob(b, "testdata", "mainnet", "block", "43bd1f2b6556dcafa413d8372974af59e4e8f37dbf74dc6b2a9b7212d0577428.bin")
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		blk, err := ParseBlock(blob)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := blk.ID(); err != nil {
			b.Fatal(err)
		}
	}
}

// Parse and hash the 16 KB, 513-transaction block 202612 (the special case).
func BenchmarkParseAndHashBlock202612(b *testing.B) {
	blob := benchBlob(b, "testdata", "mainnet", "block", "bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698.bin")
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		blk, err := ParseBlock(blob)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := blk.ID(); err != nil {
			b.Fatal(err)
		}
	}
}

// Parse a RingCT type 3 transaction (2 inputs, ring 11) and compute its id.
func BenchmarkParseAndHashTx(b *testing.B) {
	blob := benchBlob(b, "testdata", "mainnet", "tx", "84d48dc11ec91950f8b70a85af9db91fe0c8abef71ef5db08304f7344b99ea66.bin")
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		tx, err := ParseTransaction(blob)
		if err != nil {
			b.Fatal(err)
		}
		_ = tx.ID()
	}
}

func BenchmarkMonerodJSONBlock(b *testing.B) {
	blob := benchBlob(b, "testdata", "mainnet", "block", "43bd1f2b6556dcafa413d8372974af59e4e8f37dbf74dc6b2a9b7212d0577428.bin")
	blk, err := ParseBlock(blob)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = blk.MonerodJSON()
	}
}
