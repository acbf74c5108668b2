package rpc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/testutil"
)

// Any request body gets a well-formed answer — an epee JSON object (or an
// array of them for a batch), or monerod's empty 500 for a non-string
// method — and never a panic. Seeds: every captured request body.
func FuzzServeJSONRPC(f *testing.F) {
	files, _ := filepath.Glob(testutil.Path(f, "testdata", "regtest", "responses", "offline", "*.request"))
	for _, file := range files {
		if st, err := os.Stat(file); err == nil && st.Size() < 4096 {
			_, _, body := capturedRequest(f, file)
			f.Add(body, false)
		}
	}
	f.Add([]byte(`[{"method":"getblock","params":{"height":201}},{"method":"get_info"}]`), true)
	node := startNode(f, testutil.Path(f, "testdata", "regtest", "blockchain.raw"), nil)
	f.Fuzz(func(t *testing.T, body []byte, restricted bool) {
		resp := node.srv.serveJSONRPC(&httpd.Request{HTTPMethod: "POST", Path: "/json_rpc", Body: body, Restricted: restricted})
		if resp.Status == 500 {
			if len(resp.Body) != 0 {
				t.Fatalf("500 with a body: %q", resp.Body)
			}
			return
		}
		if resp.Status != 0 && resp.Status != 200 {
			t.Fatalf("status %d", resp.Status)
		}
		answer := resp.Body
		if len(answer) > 0 && answer[0] == '[' {
			answer = append(append([]byte(`{"batch":`), answer...), '}')
		}
		if _, err := epeejson.Parse(answer); err != nil {
			t.Fatalf("answer is not epee JSON: %v\n%q", err, resp.Body)
		}
	})
}
