package p2p

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/gonero/gonero/internal/monerodlab"
)

// /set_limit and /get_limit answer as monerod's, step by step (a positive
// value sets, 0 leaves, -1 restores the default, another negative value
// is refused after the download limit was applied), and each answer is
// what the node's limiters now apply.
func TestSetLimitLiveMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	tn := limitedNode(t, Config{})
	m := lab.StartMonerod(t, "")
	type limits struct {
		Up     int64  `json:"limit_up"`
		Down   int64  `json:"limit_down"`
		Status string `json:"status"`
	}
	decode := func(who string, body []byte) limits {
		t.Helper()
		var l limits
		if err := json.Unmarshal(body, &l); err != nil {
			t.Fatalf("%s: %v: %s", who, err, body)
		}
		return l
	}
	ours := func(path, body string) []byte {
		t.Helper()
		resp, err := http.Post(tn.url+path, "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	for _, body := range []string{`{}`, `{"limit_up":100,"limit_down":200}`, `{"limit_up":0,"limit_down":0}`,
		`{"limit_up":-1}`, `{"limit_down":-1,"limit_up":300}`, `{"limit_down":50,"limit_up":-2}`, `{"limit_down":-3}`} {
		theirs, err := m.Post("/set_limit", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		w, g := decode("monerod", theirs), decode("gonero", ours("/set_limit", body))
		if w != g {
			t.Errorf("set_limit %s: gonero %+v, monerod %+v", body, g, w)
		}
		theirs, err = m.Post("/get_limit", []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		w, g = decode("monerod", theirs), decode("gonero", ours("/get_limit", `{}`))
		if w != g {
			t.Errorf("get_limit after %s: gonero %+v, monerod %+v", body, g, w)
		}
		if up, down := tn.node.RateLimits(); up != g.Up || down != g.Down {
			t.Errorf("after %s get_limit says up %d down %d, the limiters apply up %d down %d", body, g.Up, g.Down, up, down)
		}
	}
}
