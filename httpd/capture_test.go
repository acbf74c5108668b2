package httpd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/testutil"
)

// The transport-level captures of monerod v0.18.0.0 (responses/offline) are
// replayed byte for byte over raw TCP against a Server whose "/json_rpc"
// answers a fixed JSON body. For each case the status codes, the set of
// header names, whether bodies are empty, and whether the server closed
// the connection must match monerod's, except for the documented
// differences in captureDifferences.

// captureStems selects the HTTP-layer cases (the rest are JSON-RPC cases).
func captureStems(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.request"))
	if err != nil {
		t.Fatal(err)
	}
	var stems []string
	for _, f := range files {
		stem := strings.TrimSuffix(filepath.Base(f), ".request")
		for _, p := range []string{"path_", "http_", "origin_header", "connection_", "content_type_",
			"content_length_", "chunked_body", "pipelined_two", "body_1", "body_5MB", "uri_too_long", "header_too_long"} {
			if strings.HasPrefix(stem, p) {
				stems = append(stems, stem)
				break
			}
		}
	}
	if len(stems) < 30 {
		t.Fatalf("only %d HTTP-layer captures found in %s", len(stems), dir)
	}
	return stems
}

// respShape is what is compared of one response.
type respShape struct {
	Status    int
	Headers   []string // canonical names, sorted
	BodyEmpty bool
}

// captureOutcome is what a connection saw: its responses, then whether the
// server closed it.
type captureOutcome struct {
	Responses []respShape
	Closed    bool
}

var (
	epeeHeaders          = []string{"Accept-Ranges", "Content-Length", "Content-Type", "Last-Modified", "Server"}
	epeeHeadersWithClose = []string{"Accept-Ranges", "Connection", "Content-Length", "Content-Type", "Last-Modified", "Server"}
)

// captureDifferences are the deliberate differences from monerod (see the
// package comment): what we answer instead.
var captureDifferences = map[string]captureOutcome{
	// monerod closes without a response; we say 413 first.
	"body_1048576_bytes": {Responses: []respShape{{413, epeeHeadersWithClose, false}}, Closed: true},
	"body_5MB":           {Responses: []respShape{{413, epeeHeadersWithClose, false}}, Closed: true},
	// Chunked bodies are decoded; both close the connection afterwards
	// (the request also has a Content-Length), we say so.
	"chunked_body": {Responses: []respShape{{200, epeeHeadersWithClose, false}}, Closed: true},
	// Both pipelined requests are answered at once.
	"pipelined_two": {Responses: []respShape{{200, epeeHeaders, false}, {200, epeeHeaders, false}}, Closed: false},
}

// monerodOutcome reads monerod's answer from the capture files.
func monerodOutcome(t *testing.T, dir, stem, method string, closed map[string]bool) captureOutcome {
	t.Helper()
	raw := readFile(t, filepath.Join(dir, stem+".response.http"))
	out := captureOutcome{Closed: closed[stem]}
	br := bufio.NewReader(bytes.NewReader(raw))
	for {
		if _, err := br.Peek(1); err == io.EOF {
			break
		}
		names, err := peekHeaderNames(br)
		if err != nil {
			t.Fatalf("%s: monerod's response head: %v", stem, err)
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("%s: parsing monerod's response: %v", stem, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s: reading monerod's body: %v", stem, err)
		}
		out.Responses = append(out.Responses, respShape{resp.StatusCode, names, len(body) == 0})
	}
	return out
}

// peekHeaderNames returns the canonical names of the header lines of the
// response waiting in br, without consuming it (http.ReadResponse hides
// "Connection: close" in Response.Close).
func peekHeaderNames(br *bufio.Reader) ([]string, error) {
	var head []byte
	for {
		b, err := br.Peek(br.Buffered())
		if err != nil {
			return nil, err
		}
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
			head = b[:i]
			break
		}
		if _, err := br.Peek(len(b) + 1); err != nil {
			return nil, err
		}
	}
	lines := strings.Split(string(head), "\r\n")[1:] // skip the status line
	names := make([]string, 0, len(lines))
	for _, l := range lines {
		name, _, _ := strings.Cut(l, ":")
		names = append(names, textproto.CanonicalMIMEHeaderKey(name))
	}
	sort.Strings(names)
	return names, nil
}

// closedByMonerod reads index.json's connection_closed_by_server flags.
func closedByMonerod(t *testing.T, dir string) map[string]bool {
	t.Helper()
	var index struct {
		Cases []struct {
			Name     string `json:"name"`
			ClosedBy bool   `json:"connection_closed_by_server"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "index.json")), &index); err != nil {
		t.Fatal(err)
	}
	m := make(map[string]bool, len(index.Cases))
	for _, c := range index.Cases {
		m[c.Name] = c.ClosedBy
	}
	return m
}

// captureRequest returns the exact request bytes of a case. Huge requests
// are stored abbreviated ("...[abbreviated: T bytes total, body B bytes]");
// they are rebuilt to exactly T bytes: a cut header section is completed,
// a cut URI or header value is extended with its repeated character, and
// the body is a JSON-RPC request padded to B bytes.
func captureRequest(t *testing.T, dir, stem string) []byte {
	t.Helper()
	raw := readFile(t, filepath.Join(dir, stem+".request"))
	i := bytes.Index(raw, []byte("...[abbreviated: "))
	if i < 0 {
		return raw
	}
	var total, bodyLen int
	if _, err := fmt.Sscanf(string(raw[i:]), "...[abbreviated: %d bytes total, body %d bytes]", &total, &bodyLen); err != nil {
		t.Fatalf("%s: %v", stem, err)
	}
	prefix := raw[:i]
	body := paddedJSONRPC(bodyLen)
	var req []byte
	if bytes.HasSuffix(prefix, []byte("\r\n\r\n")) {
		req = append(append(req, prefix...), body...)
	} else {
		fill := prefix[len(prefix)-1]
		tail := fmt.Sprintf("\r\nContent-Length: %d\r\n\r\n", bodyLen)
		if !bytes.Contains(prefix, []byte("\r\n")) { // cut inside the request line
			tail = fmt.Sprintf(" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", bodyLen)
		}
		pad := total - len(prefix) - len(tail) - len(body)
		req = append(req, prefix...)
		req = append(req, bytes.Repeat([]byte{fill}, pad)...)
		req = append(req, tail...)
		req = append(req, body...)
	}
	if len(req) != total {
		t.Fatalf("%s: rebuilt %d bytes, capture says %d", stem, len(req), total)
	}
	return req
}

// paddedJSONRPC is a get_block_count request of exactly n bytes (n >= 53).
func paddedJSONRPC(n int) []byte {
	const short = `{"jsonrpc":"2.0","id":"0","method":"get_block_count"}`
	if n == len(short) {
		return []byte(short)
	}
	head := `{"jsonrpc":"2.0","id":"0","method":"get_block_count","pad":"`
	return []byte(head + strings.Repeat("x", n-len(head)-2) + `"}`)
}

// requestMethod is the verb of a request's first line.
func requestMethod(req []byte) string {
	m, _, _ := strings.Cut(string(req), " ")
	return m
}

func TestMonerodTransportCaptures(t *testing.T) {
	dir := testutil.Path(t, "testdata", "regtest", "responses", "offline")
	closed := closedByMonerod(t, dir)
	var bodyLens sync.Map // body lengths the route has seen
	routes := testRoutes(nil)
	inner := routes["/json_rpc"]
	routes["/json_rpc"] = func(req *Request) Response {
		bodyLens.Store(len(req.Body), true)
		return inner(req)
	}
	// Subtests run in parallel: lift the per-IP limit (all come from 127.0.0.1).
	s := startServer(t, Config{MaxConnectionsPerPrivateIP: -1}, routes)

	for _, stem := range captureStems(t, dir) {
		t.Run(stem, func(t *testing.T) {
			t.Parallel()
			req := captureRequest(t, dir, stem)
			method := requestMethod(req)
			want, differs := captureDifferences[stem]
			if !differs {
				want = monerodOutcome(t, dir, stem, method, closed)
			}

			c := newRawClient(t, s)
			// Write concurrently: for the oversized requests the server
			// answers (and hangs up) before the client has sent everything.
			wrote := make(chan error, 1)
			go func() {
				c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
				_, err := c.conn.Write(req)
				wrote <- err
			}()

			var got captureOutcome
			for range want.Responses {
				c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
				names, err := peekHeaderNames(c.br)
				if err != nil {
					t.Fatalf("reading response %d: %v", len(got.Responses)+1, err)
				}
				resp, body, err := readResponse(c.conn, c.br, method, 10*time.Second)
				if err != nil {
					t.Fatalf("reading response %d: %v", len(got.Responses)+1, err)
				}
				got.Responses = append(got.Responses, respShape{resp.StatusCode, names, len(body) == 0})
				checkEpeeHeaders(t, resp, body, method)
			}
			wait := 300 * time.Millisecond // long enough to see an open connection stay open
			if want.Closed {
				wait = 5 * time.Second
			}
			got.Closed = closedByServer(t, c.conn, c.br, wait)
			if !equalOutcome(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if !want.Closed {
				if err := <-wrote; err != nil {
					t.Errorf("writing request: %v", err)
				}
			}
			switch stem {
			case "body_1000000_bytes", "body_1048400_bytes":
				// the route saw the whole body
				if n := len(req) - bytes.Index(req, []byte("\r\n\r\n")) - 4; !mapHas(&bodyLens, n) {
					t.Errorf("route never saw the whole %d-byte body", n)
				}
			}
		})
	}
}

func mapHas(m *sync.Map, key any) bool {
	_, ok := m.Load(key)
	return ok
}

func equalOutcome(a, b captureOutcome) bool {
	return a.Closed == b.Closed && slices.EqualFunc(a.Responses, b.Responses, func(x, y respShape) bool {
		return x.Status == y.Status && x.BodyEmpty == y.BodyEmpty && slices.Equal(x.Headers, y.Headers)
	})
}

// checkEpeeHeaders checks the values of epee's headers on our responses.
func checkEpeeHeaders(t *testing.T, resp *http.Response, body []byte, method string) {
	t.Helper()
	if got := resp.Header.Get("Server"); got != "Epee-based" {
		t.Errorf("Server = %q", got)
	}
	if got := resp.Header.Get("Accept-Ranges"); got != "bytes" {
		t.Errorf("Accept-Ranges = %q", got)
	}
	if lm, err := http.ParseTime(resp.Header.Get("Last-Modified")); err != nil || time.Since(lm) > time.Minute || time.Until(lm) > time.Minute {
		t.Errorf("Last-Modified = %q (%v)", resp.Header.Get("Last-Modified"), err)
	}
	if _, ok := resp.Header["Date"]; ok {
		t.Error("Date header present")
	}
	cl := resp.Header.Get("Content-Length")
	if method == http.MethodHead {
		if cl != fmt.Sprint(len(fixedJSON)) || len(body) != 0 {
			t.Errorf("HEAD: Content-Length %s, %d body bytes; want %d, 0", cl, len(body), len(fixedJSON))
		}
	} else if cl != fmt.Sprint(len(body)) {
		t.Errorf("Content-Length %s for a %d-byte body", cl, len(body))
	}
	switch {
	case method == http.MethodOptions:
		if _, ok := resp.Header["Content-Type"]; ok {
			t.Error("OPTIONS answer has a Content-Type")
		}
	case resp.StatusCode == 404:
		if got := resp.Header.Get("Content-Type"); got != "text/plain" || len(body) != 0 {
			t.Errorf("404: Content-Type %q, body %q", got, body)
		}
	}
}

// TestCaptureDifferencesStillDiffer guards the differences table: every
// entry must name a capture and really differ from monerod's answer.
func TestCaptureDifferencesStillDiffer(t *testing.T) {
	dir := testutil.Path(t, "testdata", "regtest", "responses", "offline")
	closed := closedByMonerod(t, dir)
	for stem, ours := range captureDifferences {
		if _, err := os.Stat(filepath.Join(dir, stem+".request")); err != nil {
			t.Errorf("%s: %v", stem, err)
			continue
		}
		method := requestMethod(captureRequest(t, dir, stem))
		if equalOutcome(ours, monerodOutcome(t, dir, stem, method, closed)) {
			t.Errorf("%s: listed as a difference but matches monerod", stem)
		}
	}
}
