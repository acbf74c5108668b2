package rpc

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/params"
)

// expensiveBatch is a batch of n calls for every header of the regtest
// chain (about 230 kB of answer each), ids 1..n.
func expensiveBatch(n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"get_block_headers_range","params":{"start_height":0,"end_height":299}}`, i+1)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// batchAnswers parses a batch answer into its elements: for each, its id
// and its error code (0 for a result).
func batchAnswers(t *testing.T, body []byte) (ids []uint64, codes []int64) {
	t.Helper()
	var arr []struct {
		ID     uint64          `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &arr); err != nil {
		t.Fatalf("batch answer does not parse: %v", err)
	}
	for _, e := range arr {
		ids = append(ids, e.ID)
		switch {
		case e.Error != nil:
			codes = append(codes, e.Error.Code)
		case e.Result != nil:
			codes = append(codes, 0)
		default:
			t.Fatalf("an element with neither result nor error: %.300s", body)
		}
	}
	return ids, codes
}

// TestBatchAnswerBounded: a 256-call batch of header ranges, about 60 MB
// of answers if each were made, is answered within maxBatchAnswer: the
// calls up to the bound get their results, each later one (with its id)
// the batch-too-large error, in order.
func TestBatchAnswerBounded(t *testing.T) {
	node := startNode(t, testutil.Path(t, "testdata", "regtest", "blockchain.raw"), nil)
	status, body := post(t, node.url, "/json_rpc", expensiveBatch(maxBatch))
	if status != 200 || len(body) > maxBatchAnswer {
		t.Fatalf("status %d, %d bytes of answer; want 200 and at most %d", status, len(body), maxBatchAnswer)
	}
	ids, codes := batchAnswers(t, body)
	if len(ids) != maxBatch {
		t.Fatalf("%d answers for %d calls", len(ids), maxBatch)
	}
	served := 0
	for i := range ids {
		if ids[i] != uint64(i+1) {
			t.Fatalf("answer %d has id %d", i, ids[i])
		}
		switch {
		case codes[i] == 0 && served == i:
			served++
		case codes[i] != int64(errBatchTooLarge.Code):
			t.Fatalf("answer %d: code %d after %d served; want results, then %d", i, codes[i], served, errBatchTooLarge.Code)
		}
	}
	if served == 0 || served == maxBatch {
		t.Fatalf("%d of %d calls served: the bound should cut the batch, not refuse it whole", served, maxBatch)
	}
	t.Logf("%d calls served in %d bytes, %d refused", served, len(body), maxBatch-served)
}

// TestBatchMemoryBudget: with a memory budget smaller than the batch's
// answers, the calls that fit are answered and the rest get monerod's busy
// error (-9), which wallets retry; the budget is never passed, and is all
// given back once the answer is written.
func TestBatchMemoryBudget(t *testing.T) {
	budget := membudget.New(1 << 20)
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, exportFile: testutil.Path(t, "testdata", "regtest", "blockchain.raw"),
		memory: membudget.NewAccount[netip.Addr](budget, 0)})
	_, body := post(t, node.url, "/json_rpc", expensiveBatch(20))
	ids, codes := batchAnswers(t, body)
	served := 0
	for i := range ids {
		switch {
		case codes[i] == 0 && served == i:
			served++
		case codes[i] != int64(errCoreBusy.Code):
			t.Fatalf("answer %d: code %d after %d served; want results, then %d", i, codes[i], served, errCoreBusy.Code)
		}
	}
	if served == 0 || served == 20 {
		t.Fatalf("%d of 20 calls served within a 1 MiB budget", served)
	}
	if st := budget.Stats(); st.Peak > 1<<20 || st.Refused == 0 {
		t.Fatalf("budget %+v: want a peak within 1 MiB and a refusal", st)
	}
	// The client has read the whole answer; the server gives the memory
	// back when it reads the connection again or closes it.
	deadline := time.Now().Add(30 * time.Second)
	for budget.Stats().Used != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("budget still holds %d bytes after the answer", budget.Stats().Used)
		}
		time.Sleep(time.Millisecond)
	}
}
