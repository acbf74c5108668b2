package zmqrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/params"
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
