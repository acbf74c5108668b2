package rpctypes

import (
	"testing"

	"github.com/gonero/gonero/epeejson"
)

// A reader of an array or object that the shallow parse skipped panics
// (its method lacks deepParams) instead of answering as if it were empty;
// the same readers on the whole parse read the elements.
func TestSkippedParamsNotRead(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":"0","method":"m","params":{"txids":["a","b"],"amounts":[1,2],"bans":[{"host":"x"}],"aux_pow":[{"id":"x"}]}}`)
	bare := []byte(`{"jsonrpc":"2.0","id":"0","method":"m","params":["a","b"]}`)
	params := func(b []byte, shallow bool) Params {
		t.Helper()
		parse := epeejson.Parse
		if shallow {
			parse = func(b []byte) (epeejson.Value, error) { return epeejson.ParseShallow(b, "params") }
		}
		v, err := parse(b)
		if err != nil {
			t.Fatal(err)
		}
		pv, ok := v.Get("params")
		return NewParams(pv, ok)
	}
	readers := map[string]func(p Params){
		"Strings":    func(p Params) { _, _ = p.Strings("txids") },
		"Uint64List": func(p Params) { _, _ = p.Uint64List("amounts") },
		"Objects":    func(p Params) { _ = p.Objects("bans") },
		"ParseAuxPow": func(p Params) {
			_, _ = ParseAuxPow(p)
		},
	}
	for name, read := range readers {
		read(params(body, false)) // whole: reads
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s read a skipped member without panicking", name)
				}
			}()
			read(params(body, true))
		}()
	}
	if s, e := params(bare, false).BareStrings(); e != nil || len(s) != 2 {
		t.Fatalf("BareStrings on the whole parse: %v %v", s, e)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("BareStrings read skipped params without panicking")
			}
		}()
		_, _ = params(bare, true).BareStrings()
	}()
}
