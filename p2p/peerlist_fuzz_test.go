package p2p

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzStateFile feeds arbitrary bytes to the peer state file loader: it
// refuses them or loads lists within their limits holding only addresses
// they keep, anchors included, and what it loaded survives a save and a
// load unchanged.
func FuzzStateFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"white":[{"address":"1.1.1.1:18080","id":7,"last_seen":1800000000}],"grey":[{"address":"8.8.8.8:18080","id":8,"last_seen":1}]}`))
	f.Add([]byte(`{"version":1,"white":[],"grey":[],"anchors":[{"address":"1.1.1.1:18080","id":3,"first_seen":5},{"address":"[2606:4700::1111]:18080","id":4,"first_seen":-1}]}`))
	f.Add([]byte(`{"version":1,"anchors":[{"address":"127.0.0.1:18080","id":1,"first_seen":5}]}`))
	f.Add([]byte(`{"version":1,"anchors":5}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "p2pstate.json")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p := newPeerList(file)
		if err := p.load(); err != nil {
			return
		}
		w, g := p.sizes()
		anchors := p.anchorList()
		if w > whiteLimit || g > greyLimit || len(anchors) > anchorLimit {
			t.Fatalf("%d white, %d grey, %d anchors loaded", w, g, len(anchors))
		}
		for _, a := range anchors {
			if !p.accepts(a.Address) {
				t.Fatalf("anchor %s loaded, which the list does not keep", a.Address)
			}
		}
		if err := p.save(); err != nil {
			t.Fatal(err)
		}
		q := newPeerList(file)
		if err := q.load(); err != nil {
			t.Fatalf("reloading a saved file: %v", err)
		}
		if w2, g2 := q.sizes(); w2 != w || g2 != g || !slices.EqualFunc(q.anchorList(), anchors, sameAnchor) {
			t.Fatalf("after a save: %d white, %d grey, anchors %+v; before: %d, %d, %+v", w2, g2, q.anchorList(), w, g, anchors)
		}
	})
}
