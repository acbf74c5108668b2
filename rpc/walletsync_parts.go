package rpc

import (
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpctypes"
)

func binResponse(w *portable.Writer) httpd.Response {
	return httpd.Response{ContentType: "application/octet-stream", Body: w.Bytes()}
}

// defaultSharedPartsOver is the answer size past which the block entries
// of a .bin answer are sent as they are kept (shared with the block cache
// and with every other answer holding them) instead of copied into one
// buffer: a flood asking for the whole chain again and again otherwise
// holds one copy of it per answer being written. Smaller answers stay in
// one buffer, which the answer cache (maxCachedAnswer) can keep. New sets
// Server.sharedPartsOver to it.
const defaultSharedPartsOver = maxCachedAnswer

// binParts builds a .bin answer whose large pieces are shared, not copied:
// w is written as usual, and Shared puts a piece after what w holds.
type binParts struct {
	w     *portable.Writer
	share bool // false: Shared copies into w (one buffer, as rpctypes.BinAnswer)
	parts [][]byte
	mark  int // where the bytes of w not yet in parts start
}

// newBinParts starts an answer of n root entries: sizeHint is what w
// alone will hold, total the whole answer's size,
// sharedOver is the Server's sharedPartsOver.
func newBinParts(n, sizeHint, total, sharedOver int) *binParts {
	if total <= sharedOver {
		return &binParts{w: rpctypes.BinAnswer(n, total)}
	}
	return &binParts{w: rpctypes.BinAnswer(n, sizeHint), share: true}
}

// Shared appends b, which is never changed (a cached block entry).
func (b *binParts) Shared(p []byte) {
	if !b.share {
		b.w.Raw(p)
		return
	}
	// A slice of w's buffer stays valid: w only ever appends after it,
	// into the same array or a new one.
	buf := b.w.Bytes()
	b.parts = append(b.parts, buf[b.mark:], p)
	b.mark = len(buf)
}

func (b *binParts) response() httpd.Response {
	if !b.share {
		return binResponse(b.w)
	}
	return httpd.Response{ContentType: "application/octet-stream", Parts: append(b.parts, b.w.Bytes()[b.mark:])}
}

// statusOnlyBin is the answer of a request that failed before producing
// anything: credits, status, top_hash, untrusted.
func statusOnlyBin(status string) httpd.Response {
	return httpd.Response{ContentType: "application/octet-stream", Body: rpctypes.StatusOnlyBin(status)}
}

func binBody(b []byte) httpd.Response {
	return httpd.Response{ContentType: "application/octet-stream", Body: b}
}

func jsonBody(b []byte) httpd.Response {
	return httpd.Response{ContentType: "application/json", Body: b}
}
