package chain

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// lockedBuffer is a log sink the signature workers may write concurrently.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A signature verifier that panics on one transaction of a block (on the
// signature workers) refuses that block, with the transaction's refusal
// RuleVerifierPanic, logs the stack once, and leaves the chain running:
// the pool's check refuses the transaction the same way, and once the
// verifier behaves the block is added.
func TestSignaturePanicRefusesTheBlock(t *testing.T) {
	rd, err := chainexport.Open(testutil.Path(t, "testdata", "regtest", "blockchain.raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []*chainexport.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	const h = 201
	if len(recs) <= h || len(recs[h].Txs) < 2 {
		t.Fatalf("regtest block %d has no two transactions", h)
	}
	target := recs[h].Txs[1].ID()
	var panicking atomic.Bool
	panicking.Store(true)
	var logs lockedBuffer
	c := regtestAt(t, Config{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		verifySignatures: func(tx *cryptonote.Transaction, rings [][]consensus.RingOutput) error {
			if panicking.Load() && tx.ID() == target {
				panic("injected signature panic")
			}
			return consensus.VerifyTxSignatures(tx, rings)
		},
	})
	for _, rec := range recs[1:h] {
		if _, err := c.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil {
			t.Fatal(err)
		}
	}
	rec := recs[h]
	_, err = c.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs)
	var be *BlockError
	if !errors.As(err, &be) || be.Rule != RuleTransactions || be.Height != h ||
		consensus.RuleOf(err) != consensus.RuleVerifierPanic || consensus.PanicOf(err) == nil {
		t.Fatalf("block %d: %v, want it refused for its transaction's verifier panic", h, err)
	}
	if !strings.Contains(err.Error(), target.String()) {
		t.Errorf("the refusal %q does not name transaction %s", err, target)
	}
	if c.Height() != h {
		t.Fatalf("height %d after the refusal, want %d", c.Height(), h)
	}
	if n := strings.Count(logs.String(), "a verifier panicked"); n != 1 || !strings.Contains(logs.String(), "injected signature panic") {
		t.Fatalf("the panic was logged %d times, want once with its value:\n%s", n, logs.String())
	}

	// The pool's check goes through the same workers.
	_, _, err = c.CheckPoolTx(rec.Txs[1], target, rec.TxBlobs[1], false, func(cryptonote.Key) bool { return false })
	if consensus.RuleOf(err) != consensus.RuleVerifierPanic || consensus.FlagsOf(err) != consensus.FlagInvalidInput {
		t.Fatalf("pool check: %v, want the verifier panic as an invalid input", err)
	}

	panicking.Store(false)
	if _, err := c.AddBlock(rec.Block, rec.BlockBlob, rec.Txs, rec.TxBlobs); err != nil || c.Height() != h+1 {
		t.Fatalf("block %d with a sound verifier: %v (height %d)", h, err, c.Height())
	}
}
