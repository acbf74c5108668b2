package portable

import "testing"

// TestReaderReadsWriter: what a Writer writes, a Reader reads back piece
// by piece, and every truncation of it fails instead of reading past the
// end.
func TestReaderReadsWriter(t *testing.T) {
	w := NewWriter(nil)
	w.Header()
	w.Section(3)
	w.FieldString("client", "abc")
	w.FieldBool("get_txid", true)
	w.FieldUint64("n", 1<<40+7)
	blob := w.Bytes()

	read := func(b []byte) bool {
		r, ok := NewReader(b)
		if !ok {
			return false
		}
		if n, ok := r.Varint(); !ok || n != 3 {
			return false
		}
		for _, want := range []struct {
			name string
			t    Type
		}{{"client", TypeString}, {"get_txid", TypeBool}, {"n", TypeUint64}} {
			name, ok := r.Name()
			if !ok || string(name) != want.name {
				return false
			}
			if ty, ok := r.Type(); !ok || ty != want.t {
				return false
			}
			switch want.t {
			case TypeString:
				if s, ok := r.String(); !ok || string(s) != "abc" {
					return false
				}
			case TypeBool:
				if v, ok := r.Bool(); !ok || !v {
					return false
				}
			case TypeUint64:
				if v, ok := r.Uint64(); !ok || v != 1<<40+7 {
					return false
				}
			}
		}
		return r.Done()
	}
	if !read(blob) {
		t.Fatal("the Reader did not read back what the Writer wrote")
	}
	for n := 0; n < len(blob); n++ {
		if read(blob[:n]) {
			t.Fatalf("a blob cut at %d of %d bytes read as whole", n, len(blob))
		}
	}
	bad := append([]byte(nil), blob...)
	bad[len(bad)-12] = 2 // get_txid's bool byte (before the 11 bytes of "n"): neither 0 nor 1
	if read(bad) {
		t.Fatal("a bool byte of 2 was read")
	}
}
