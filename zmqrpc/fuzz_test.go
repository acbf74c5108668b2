package zmqrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/zmqpub"
)

// noChain is a chain whose store always fails: the fuzz targets the
// parsing, and every method must still answer.
type noChain struct{}

func (noChain) Height() uint64                  { return 1 }
func (noChain) Network() params.Network         { return params.Regtest }
func (noChain) NextBlockFacts() chain.NextBlock { return chain.NextBlock{Height: 1} }
func (noChain) View(func(r *chaindb.Reader) error) error {
	return errors.New("no store")
}

// FuzzRequest feeds any message body to the request handler: it must not
// panic, and must answer one JSON object with the envelope monerod writes
// (encoding/json is stricter about UTF-8 than rapidjson, so answers that
// echo invalid UTF-8 are not parsed).
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}}`,
		`{"jsonrpc":"2.0","id":"a\u0001","method":"get_block_headers_by_height","params":{"heights":[0,1]}}`,
		`{"jsonrpc":"2.0","id":1.5e3,"method":"key_images_spent","params":{"key_images":["00"]}}`,
		`{"jsonrpc":"2.0","id":null,"method":"get_tx_global_output_indices","params":{"tx_hash":12}}`,
		`[[[[{"a":"\ud800\udc00"}]]]]`, `{"a":1e999}`, "{\x00}", `-0`, `{"jsonrpc":1,"id":[],"method":"x","params":1}`,
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, msg []byte, restricted bool) {
		s, err := New(Config{Restricted: restricted}, Backend{Chain: noChain{}})
		if err != nil {
			t.Fatal(err)
		}
		out := s.handle(msg)
		if !bytes.HasPrefix(out, []byte(`{"jsonrpc":"2.0","id":`)) {
			t.Fatalf("answer %q", out)
		}
		if json.Valid(msg) && !json.Valid(out) {
			t.Fatalf("invalid JSON answer %q to %q", out, msg)
		}
	})
}

// FuzzNumber checks the id echo against a valid number's grammar: what
// validates must echo as a JSON number.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1e2", "1.25", "18446744073709551616", "-9223372036854775809", "1e-400", "123.456e-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		if !validate(b) || raw(b[skipSpace(b, 0):]).kind() != kindNumber {
			return
		}
		out := echo(nil, raw(bytes.TrimSpace(b)))
		if !json.Valid(out) {
			t.Fatalf("%q echoed as %q", s, out)
		}
	})
}

// txSeeds are the mainnet transactions of testdata/mainnet/tx (v1 and
// every RingCT type there).
func txSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(testutil.Path(tb, "testdata", "mainnet", "tx") + "/*.bin")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no transactions in testdata/mainnet/tx: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzSendRawTxJSON feeds send_raw_tx's transaction parser two ways. As a
// transaction blob: one the codec accepts, written as monerod's JSON (the
// form get_transactions serves), must read back into the same blob, as
// monerod's fromJsonValue and tx_to_blob give it. As JSON text: any
// document must be read, or refused with one of monerod's json errors,
// without panicking, and a transaction read must serialise.
func FuzzSendRawTxJSON(f *testing.F) {
	for _, b := range txSeeds(f) {
		f.Add(b)
		f.Add(zmqpub.AppendTxJSON(nil, mustParseTx(f, b), false))
	}
	for _, s := range []string{`{"version":1,"unlock_time":0,"inputs":[{"gen":{"height":1}},{"x":1}],"outputs":[],"extra":"","ringct":{"type":0}}`,
		`{"version":2,"unlock_time":0,"inputs":[{"to_key":{"amount":0,"key_offsets":[],"key_image":"00"}}],"outputs":[{"amount":1,"amount":2}],"extra":"0","ringct":{"type":256}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if tx, err := cryptonote.ParseTransaction(b); err == nil {
			j := zmqpub.AppendTxJSON(nil, tx, false)
			jt, err := parseJSONTx(raw(j))
			if err != nil {
				t.Fatalf("the JSON of an accepted transaction is refused: %v\n%s", err, j)
			}
			if got := jt.blob(); !bytes.Equal(got, b) {
				t.Fatalf("the JSON of a transaction reads back as another blob\n%x\nwant\n%x", got, b)
			}
		}
		if !validate(b) {
			return
		}
		v := raw(b[skipSpace(b, 0):])
		jt, err := parseJSONTx(v)
		if err != nil {
			var je jsonError
			if !errors.As(err, &je) {
				t.Fatalf("a refusal that is not a json error: %v", err)
			}
			return
		}
		_ = jt.blob()
	})
}

func mustParseTx(tb testing.TB, b []byte) *cryptonote.Transaction {
	tb.Helper()
	tx, err := cryptonote.ParseTransaction(b)
	if err != nil {
		tb.Fatal(err)
	}
	return tx
}
