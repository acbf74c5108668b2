package rpc

import (
	"strings"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/portable"
)

// TestBusyAnswer: the answer of a metered request that found no slot is
// monerod's busy answer in each endpoint's own format.
func TestBusyAnswer(t *testing.T) {
	s := &Server{}
	resp := s.busyAnswer(&httpd.Request{Path: "/json_rpc", Body: []byte(`{"jsonrpc":"2.0","id":"7","method":"get_info"}`)})
	v, err := epeejson.Parse(resp.Body)
	if err != nil || resp.Status != 0 {
		t.Fatalf("json_rpc: status %d, %q: %v", resp.Status, resp.Body, err)
	}
	code, _ := v.Get("error")
	c, _ := code.Get("code")
	msg, _ := code.Get("message")
	id, _ := v.Get("id")
	if c.Int != -9 || msg.Str != "Core is busy" || id.Str != "7" {
		t.Fatalf("json_rpc busy answer %s", resp.Body)
	}
	// an unparsable body: id 0, as monerod's errors without an id
	if resp := s.busyAnswer(&httpd.Request{Path: "/json_rpc", Body: []byte("{")}); !strings.Contains(string(resp.Body), `"id": 0`) {
		t.Fatalf("json_rpc busy answer to garbage %s", resp.Body)
	}

	resp = s.busyAnswer(&httpd.Request{Path: "/getblocks.bin"})
	sec, err := portable.Decode(resp.Body)
	if err != nil || resp.ContentType != "application/octet-stream" {
		t.Fatalf("getblocks.bin busy answer: %v", err)
	}
	if st, err := sec.GetString("status"); err != nil || st != "BUSY" {
		t.Fatalf("getblocks.bin busy status %q %v", st, err)
	}

	resp = s.busyAnswer(&httpd.Request{Path: "/get_transactions"})
	v, err = epeejson.Parse(resp.Body)
	st, _ := v.Get("status")
	if err != nil || st.Str != "BUSY" {
		t.Fatalf("get_transactions busy answer %s", resp.Body)
	}
}

// FuzzBusyAnswer: any body gets a busy answer, never a panic.
func FuzzBusyAnswer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":[1,{"a":2}],"method":"x"}`))
	f.Add([]byte(`[{"id":1}]`))
	s := &Server{}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := s.busyAnswer(&httpd.Request{Path: "/json_rpc", Body: body})
		if _, err := epeejson.Parse(resp.Body); err != nil {
			t.Fatalf("busy answer does not parse: %v: %s", err, resp.Body)
		}
	})
}
