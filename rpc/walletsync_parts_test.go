package rpc

import (
	"bytes"
	"testing"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/portable"
)

// A large .bin answer sent as parts (its block entries shared with the
// block cache, not copied) is byte for byte the answer built in one
// buffer: /getblocks.bin of the whole chain and /getblocks_by_height.bin
// of every height.
func TestBlockAnswersAsSharedParts(t *testing.T) {
	node := startNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), nil)
	s := node.srv
	height := node.chain.Height()
	var heights []portable.Value
	for h := range height {
		heights = append(heights, portable.NewUint64(h))
	}
	requests := []struct {
		name  string
		serve func(*httpd.Request) httpd.Response
		body  []byte
	}{
		{"getblocks.bin", s.serveGetBlocks, epee(t, "block_ids", idsBlob(node.chain.HashAt(0)), "prune", portable.NewBool(false))},
		{"getblocks_by_height.bin", s.serveGetBlocksByHeight, epee(t, "heights", portable.Value{Type: portable.ArrayFlag | portable.TypeUint64, Array: heights})},
	}
	// daemon_time is the second the answer was made: zeroed in both.
	stamp := []byte("\x0bdaemon_time\x05")
	noTime := func(b []byte) []byte {
		if i := bytes.Index(b, stamp); i >= 0 {
			b = bytes.Clone(b)
			clear(b[i+len(stamp) : i+len(stamp)+8])
		}
		return b
	}
	for _, r := range requests {
		req := &httpd.Request{HTTPMethod: "POST", Path: "/" + r.name, Body: r.body}
		s.sharedPartsOver = 1 << 40
		s.answers = answerCache{}
		whole := r.serve(req)
		s.sharedPartsOver = 0
		s.answers = answerCache{}
		parted := r.serve(req)
		if whole.Parts != nil || parted.Body != nil || len(parted.Parts) < int(height) {
			t.Fatalf("%s: %d bytes and %d parts whole, %d bytes and %d parts shared", r.name, len(whole.Body), len(whole.Parts), len(parted.Body), len(parted.Parts))
		}
		joined := bytes.Join(parted.Parts, nil)
		if len(whole.Body) < 50_000 || !bytes.Equal(noTime(joined), noTime(whole.Body)) || parted.Len() != len(whole.Body) {
			t.Fatalf("%s: the answer in parts (%d bytes) differs from the one in one buffer (%d bytes)", r.name, len(joined), len(whole.Body))
		}
	}
}
