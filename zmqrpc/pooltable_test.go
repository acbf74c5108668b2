package zmqrpc

import (
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/txpool"
)

// The pool is listed in monerod's table order, not the ids' byte order:
// an id whose first byte is larger but whose last word is smaller comes
// first (a fresh CI chain's pool showed the two orders apart).
func TestPoolListedInTableOrder(t *testing.T) {
	var a, b cryptonote.Hash
	a[0], a[31] = 0xff, 0x01 // bytes: after b; compare_hash32: before b
	b[0], b[31] = 0x00, 0x02
	entries := []*txpool.Entry{{ID: b}, {ID: a}}
	sortAsPoolTable(entries)
	if entries[0].ID != a || entries[1].ID != b {
		t.Fatalf("order %x, %x; want the id with the smaller last word first", entries[0].ID[:1], entries[1].ID[:1])
	}
}
