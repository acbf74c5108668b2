package epeejson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// Tests against monerod v0.18.0.0's real answers in
// testdata/regtest/{responses,golden} (see its README).

func regtestPath(t testing.TB, elem ...string) string {
	return testutil.Path(t, append([]string{"testdata", "regtest"}, elem...)...)
}

func glob(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	sort.Strings(files)
	return files
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// capturedBody is one exact response body monerod sent.
type capturedBody struct {
	name string
	body []byte
}

// capturedBodies returns every body in responses/*/*.body, golden/*.body and
// the "body" fields of golden/*.jsonl.
func capturedBodies(t testing.TB) []capturedBody {
	t.Helper()
	var out []capturedBody
	files := append(glob(t, regtestPath(t, "responses", "*", "*.body")), glob(t, regtestPath(t, "golden", "*.body"))...)
	for _, f := range files {
		out = append(out, capturedBody{name: relName(t, f), body: readFile(t, f)})
	}
	for _, f := range glob(t, regtestPath(t, "golden", "*.jsonl")) {
		sc := bufio.NewScanner(bytes.NewReader(readFile(t, f)))
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			var line struct {
				Body *string `json:"body"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Body == nil {
				t.Fatalf("%s:%d: no body field (%v)", f, n, err)
			}
			// The bodies here are ASCII (checked below): encoding/json gives
			// back monerod's exact bytes.
			out = append(out, capturedBody{name: relName(t, f) + ":" + strconv.Itoa(n), body: []byte(*line.Body)})
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func relName(t testing.TB, path string) string {
	rel, err := filepath.Rel(regtestPath(t), path)
	if err != nil {
		return path
	}
	return rel
}

// capturedRequest is one request file: the HTTP request bytes monerod got.
type capturedRequest struct {
	stem        string // e.g. "offline/id_float_pi"
	method      string // HTTP verb
	path        string
	abbreviated bool   // the stored file elides the (huge) body
	incomplete  bool   // fewer body bytes than Content-Length
	body        []byte // the body as monerod's HTTP layer delivered it to the handler
	response    []byte // the .body file (nil when there is none)
}

// readRequest reads <stem>.request and <stem>.body. The body handed to the
// JSON parser follows monerod's HTTP framing (README behaviours 8, 9): no
// Content-Length or Transfer-Encoding: chunked → empty body; otherwise the
// first Content-Length bytes (pipelined_two and content_length_too_small
// carry more bytes than that).
func readRequest(t testing.TB, reqFile string) capturedRequest {
	t.Helper()
	raw := readFile(t, reqFile)
	stem := strings.TrimSuffix(filepath.ToSlash(relName(t, reqFile)), ".request")
	r := capturedRequest{stem: strings.TrimPrefix(stem, "responses/")}
	if b, err := os.ReadFile(strings.TrimSuffix(reqFile, ".request") + ".body"); err == nil {
		r.response = b
	}
	if bytes.Contains(raw, []byte("...[abbreviated: ")) {
		r.abbreviated = true
		return r
	}
	head, body, found := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !found {
		t.Fatalf("%s: no end of headers", reqFile)
	}
	lines := strings.Split(string(head), "\r\n")
	parts := strings.Fields(lines[0])
	if len(parts) != 3 {
		t.Fatalf("%s: bad request line %q", reqFile, lines[0])
	}
	r.method, r.path = parts[0], parts[1]
	contentLength := -1
	chunked := false
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "content-length":
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: bad Content-Length %q", reqFile, v)
			}
			contentLength = n
		case "transfer-encoding":
			chunked = strings.EqualFold(v, "chunked")
		}
	}
	switch {
	case chunked || contentLength < 0:
		r.body = nil
	case contentLength <= len(body):
		r.body = body[:contentLength]
	default:
		r.incomplete = true // monerod waits for the rest (content_length_too_large)
	}
	return r
}

// rpcErrorCode returns error.code of a parsed JSON-RPC answer, or 0.
func rpcErrorCode(t testing.TB, resp Value) int64 {
	t.Helper()
	e, ok := resp.Get("error")
	if !ok {
		return 0
	}
	c, ok := e.Get("code")
	if !ok || c.Kind != KindInt {
		t.Fatalf("error without a negative code: %+v", e)
	}
	return c.Int
}

func writeValue(v Value) []byte {
	w := NewWriter(nil)
	w.Value(v)
	return w.Bytes()
}

// TestRoundTripCapturedBodies parses every body monerod sent and re-emits it
// with Writer.Value: the bytes must be identical. This checks formatting
// (CRLF, indentation, ": ", commas), sorting, escaping (\/ and raw UTF-8 and
// raw 0x01 in offline/id_string_escapes and offline/getblock_hash_escapes —
// epee's parser takes raw control bytes inside strings verbatim, so those
// bodies parse), arrays of scalars and of objects, uint64 max, and doubles
// (offline/id_float*: 1.5, 0.1, 3.14159, 1e+300).
//
// Two kinds of body are handled specially, on purpose:
//   - Empty .body files are answers without a body (404, HEAD, OPTIONS, the
//     HTTP 500 for a non-string method); the test checks that the captured
//     HTTP response says so.
//   - offline/id_neg_zero.body has "id": -0, the double -0.0 printed by monerod.
//     Read back by epee's parser the literal -0 has no '.', 'e' or 'E', so it
//     is an int64 0 and prints as 0: monerod itself would not reproduce its own
//     bytes there. The test requires exactly that one difference; that the
//     double -0.0 is echoed as -0 is checked from the request in TestIDEcho.
func TestRoundTripCapturedBodies(t *testing.T) {
	bodies := capturedBodies(t)
	empty, exact := 0, 0
	for _, c := range bodies {
		if len(c.body) == 0 {
			empty++
			resp := readFile(t, regtestPath(t, strings.TrimSuffix(c.name, ".body")+".response.http"))
			reqHead := readFile(t, regtestPath(t, strings.TrimSuffix(c.name, ".body")+".request"))
			if !bytes.Contains(resp, []byte("\r\nContent-Length: 0\r\n")) && !bytes.HasPrefix(reqHead, []byte("HEAD ")) {
				t.Errorf("%s: empty body but the response is not body-less:\n%s", c.name, resp)
			}
			continue
		}
		if strings.HasPrefix(c.name, "golden/") && strings.Contains(c.name, ".jsonl:") {
			for _, b := range c.body {
				if b >= 0x80 {
					t.Fatalf("%s: non-ASCII body in a .jsonl file: encoding/json may not give back the exact bytes", c.name)
				}
			}
		}
		v, err := Parse(c.body)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := writeValue(v)
		want := c.body
		if c.name == filepath.Join("responses", "offline", "id_neg_zero.body") {
			id, _ := v.Get("id")
			if id.Kind != KindInt || id.Int != 0 {
				t.Errorf("%s: id parsed as %+v, want int64 0", c.name, id)
			}
			want = bytes.Replace(want, []byte("\"id\": -0,\r\n"), []byte("\"id\": 0,\r\n"), 1)
			if bytes.Equal(want, c.body) {
				t.Fatalf("%s: no \"id\": -0 line", c.name)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: re-emitted body differs\n%s", c.name, firstDiff(got, want))
			continue
		}
		exact++
	}
	if empty != 10 {
		t.Errorf("%d empty bodies, the captures have 10", empty)
	}
	t.Logf("%d bodies re-emitted byte for byte, %d body-less answers", exact, empty)
}

func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-80, 0)
	return "at byte " + strconv.Itoa(i) + ":\n got: " + strconv.Quote(string(got[lo:min(i+80, len(got))])) +
		"\nwant: " + strconv.Quote(string(want[lo:min(i+80, len(want))]))
}

// parsedRequests returns the captures (all sets) whose body reached monerod's
// JSON parser, and checks that the others are only the expected offline ones.
func parsedRequests(t testing.TB) []capturedRequest {
	t.Helper()
	var out []capturedRequest
	skipped := map[string]string{}
	for _, f := range glob(t, regtestPath(t, "responses", "*", "*.request")) {
		r := readRequest(t, f)
		switch {
		case r.abbreviated:
			skipped[r.stem] = "body not stored"
		case r.response == nil || r.incomplete:
			skipped[r.stem] = "no answer"
		case r.path != "/json_rpc" && r.path != "/get_info":
			skipped[r.stem] = "404: no parser ran"
		case r.method == "OPTIONS":
			skipped[r.stem] = "OPTIONS: answered by the HTTP layer"
		default:
			out = append(out, r)
		}
	}
	want := map[string]string{
		// 1 MB bodies: the files hold only a note; the two served ones are plain get_info calls.
		"offline/body_1000000_bytes": "body not stored", "offline/body_1048400_bytes": "body not stored",
		"offline/body_1048576_bytes": "body not stored", "offline/body_5MB": "body not stored",
		"offline/header_too_long": "body not stored", "offline/uri_too_long": "body not stored",
		"offline/content_length_too_large": "no answer",
		"offline/path_query_string":        "404: no parser ran", "offline/path_root_get": "404: no parser ran",
		"offline/path_trailing_slash": "404: no parser ran", "offline/path_unknown": "404: no parser ran",
		"offline/path_uppercase":           "404: no parser ran",
		"offline/http_options_json_rpc":    "OPTIONS: answered by the HTTP layer",
		"offline/http_options_with_origin": "OPTIONS: answered by the HTTP layer",
	}
	for stem, why := range skipped {
		if want[stem] != why {
			t.Errorf("%s unexpectedly not checked (%s)", stem, why)
		}
	}
	for stem := range want {
		if _, ok := skipped[stem]; !ok {
			t.Errorf("%s: expected to be skipped (%s) but is checked", stem, want[stem])
		}
	}
	return out
}

// TestCapturedRequestsParse parses the body of every request monerod's
// JSON-RPC parser saw and requires success exactly when monerod did not answer
// -32700 Parse error: malformed_*, body_json_*, batch_* (arrays), id_int_1e20
// and getblockheaderbyheight_uint64_overflow (integers beyond 2^64-1) fail;
// malformed_truncated (no final }), malformed_trailing_garbage,
// content_length_too_small ({"jsonrpc"), id_numeric_parse_error (cut after
// "method":), empty bodies, duplicate_keys, unicode_escape_in_method, the
// double 1e300 … parse. It also checks what the parsed envelope holds where the
// answer depends on it.
func TestCapturedRequestsParse(t *testing.T) {
	requests := parsedRequests(t)
	var fails, parses int
	for _, r := range requests {
		v, err := Parse(r.body)
		if len(r.response) == 0 {
			// HEAD executes the call (Content-Length 992); method_number got
			// HTTP 500 from the dispatcher, after a successful parse.
			if err != nil {
				t.Errorf("%s: %v", r.stem, err)
			}
			if r.stem == "offline/method_number" {
				if m, ok := v.Get("method"); !ok || m.Kind != KindUint || m.Uint != 5 {
					t.Errorf("%s: method = %+v, want the number 5", r.stem, m)
				}
			}
			parses++
			continue
		}
		resp, rerr := Parse(r.response)
		if rerr != nil {
			t.Fatalf("%s: response: %v", r.stem, rerr)
		}
		code := rpcErrorCode(t, resp)
		if code == -32700 {
			fails++
			var se *SyntaxError
			if err == nil {
				t.Errorf("%s: monerod answered Parse error, Parse accepted %q", r.stem, r.body)
			} else if !asSyntaxError(err, &se) {
				t.Errorf("%s: error %T is not *SyntaxError", r.stem, err)
			}
			continue
		}
		parses++
		if err != nil {
			t.Errorf("%s: monerod parsed %q (answer code %d), Parse: %v", r.stem, r.body, code, err)
			continue
		}
		if r.path != "/json_rpc" {
			continue
		}
		m, hasMethod := v.Get("method")
		if code == -32600 {
			if hasMethod {
				t.Errorf("%s: -32600 Invalid Request, but method = %+v", r.stem, m)
			}
			continue
		}
		if !hasMethod || m.Kind != KindString {
			t.Errorf("%s: method = %+v, want a string", r.stem, m)
		}
	}
	if fails != 9 {
		t.Errorf("%d bodies failed to parse, the captures have 9 Parse errors", fails)
	}
	t.Logf("%d bodies parsed, %d rejected as monerod did", parses, fails)

	// Values behind specific answers.
	get := func(stem string) Value {
		for _, r := range requests {
			if r.stem == stem {
				v, err := Parse(r.body)
				if err != nil {
					t.Fatalf("%s: %v", stem, err)
				}
				return v
			}
		}
		t.Fatalf("no capture %s", stem)
		return Value{}
	}
	if m, _ := get("offline/unicode_escape_in_method").Get("method"); m.Str != "get_info" {
		t.Errorf("unicode_escape_in_method: method %q, want get_info (answered as get_info)", m.Str)
	}
	if m, _ := get("offline/malformed_truncated").Get("method"); m.Str != "get_info" {
		t.Errorf("malformed_truncated: method %q, want get_info", m.Str)
	}
	params, _ := get("offline/duplicate_keys").Get("params")
	if h, _ := params.Get("height"); h.Uint != 2 {
		t.Errorf("duplicate_keys: height %+v, want 2 (monerod answered block 2)", h)
	}
	if m, ok := get("offline/method_null").Get("method"); ok {
		t.Errorf("method_null: method %+v, want absent (null is dropped; -32600)", m)
	}
	if id, _ := get("offline/id_float_huge").Get("id"); id.Kind != KindDouble || id.Double != 1e300 {
		t.Errorf("id_float_huge: id %+v, want the double 1e300", id)
	}
}

// TestIDEcho checks the id monerod echoed in every JSON-RPC answer:
// the id parsed from the request, re-emitted with Writer.Value inside the
// otherwise unchanged answer, must give the answer's exact bytes (strings with
// escapes, -5, 18446744073709551615, true, {"a":1}, [1,2], 1.5, 0.1, 1e3 →
// 1000, 1e300 → 1e+300, -0.0 → -0, 3.141592653589793238 → 3.14159). Which id
// monerod uses is the envelope's rule (docs/rpc-semantics.md §3.2), restated here
// only to pick the expected value: 0 after a parse error, a missing method or
// a non-string jsonrpc; the request id, or "" when absent, for -32601; else
// the request id, or 0 when absent.
func TestIDEcho(t *testing.T) {
	checked := 0
	for _, r := range parsedRequests(t) {
		if r.path != "/json_rpc" || len(r.response) == 0 {
			continue
		}
		resp, err := Parse(r.response)
		if err != nil {
			t.Fatalf("%s: response: %v", r.stem, err)
		}
		code := rpcErrorCode(t, resp)
		req, perr := Parse(r.body)
		id, hasID := req.Get("id")
		_, hasMethod := req.Get("method")
		jsonrpc, hasJSONRPC := req.Get("jsonrpc")
		var want Value
		switch {
		case perr != nil || !hasMethod || (hasJSONRPC && jsonrpc.Kind != KindString):
			want = Value{Kind: KindUint}
		case code == -32601 && !hasID:
			want = Value{Kind: KindString}
		case hasID:
			want = id
		default:
			want = Value{Kind: KindUint}
		}
		echoed := Value{Kind: KindObject}
		for _, m := range resp.Obj {
			if m.Name == "id" {
				m.Value = want
			}
			echoed.Obj = append(echoed.Obj, m)
		}
		if got := writeValue(echoed); !bytes.Equal(got, r.response) {
			t.Errorf("%s: id %+v does not reproduce the answer\n%s", r.stem, want, firstDiff(got, r.response))
		}
		checked++
	}
	t.Logf("%d answers reproduced with the id taken from the request", checked)
}

func asSyntaxError(err error, target **SyntaxError) bool {
	se, ok := err.(*SyntaxError)
	if ok {
		*target = se
	}
	return ok
}

// TestGoldenRequests parses the 900 requests of golden/*.jsonl: the id they
// carry, written into monerod's answer, reproduces it, and the height or hash
// the converters read is the block monerod answered with.
func TestGoldenRequests(t *testing.T) {
	n := 0
	for _, f := range glob(t, regtestPath(t, "golden", "*.jsonl")) {
		sc := bufio.NewScanner(bytes.NewReader(readFile(t, f)))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var line struct {
				Height  uint64 `json:"height"`
				Request string `json:"request"`
				Body    string `json:"body"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			req, err := Parse([]byte(line.Request))
			if err != nil {
				t.Fatalf("%s height %d: %v", f, line.Height, err)
			}
			resp, err := Parse([]byte(line.Body))
			if err != nil {
				t.Fatal(err)
			}
			id, _ := req.Get("id")
			echoed := Value{Kind: KindObject}
			for _, m := range resp.Obj {
				if m.Name == "id" {
					m.Value = id
				}
				echoed.Obj = append(echoed.Obj, m)
			}
			if got := writeValue(echoed); string(got) != line.Body {
				t.Errorf("%s height %d: id echo differs\n%s", f, line.Height, firstDiff(got, []byte(line.Body)))
			}
			params, _ := req.Get("params")
			result, _ := resp.Get("result")
			header, _ := result.Get("block_header")
			if h, ok := params.Get("height"); ok {
				height, err := h.AsUint64()
				if want, _ := header.Get("height"); err != nil || height != want.Uint || height != line.Height {
					t.Errorf("%s: height %d (%v), answer for %d", f, height, err, want.Uint)
				}
			}
			if h, ok := params.Get("hash"); ok {
				hash, err := h.AsString()
				if want, _ := header.Get("hash"); err != nil || hash != want.Str {
					t.Errorf("%s: hash %q (%v), answer for %q", f, hash, err, want.Str)
				}
			}
			n++
		}
	}
	if n != 900 {
		t.Errorf("%d golden requests, want 900", n)
	}
}
