package node

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/p2p"
)

// The rate-limit flags resolve as monerod's (--limit-rate-up, then
// --limit-rate-down, then --limit-rate for the directions not given their
// own value): for each combination, the limits gonero's P2P node starts
// with are those monerod's get_limit answers after starting with the same
// flags.
func TestRateLimitFlagsMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	cases := []struct {
		up, down, both int64
	}{
		{-1, -1, -1},
		{100, -1, -1},
		{-1, 300, 500},
		{100, -1, 500},
		{p2p.DefaultLimitRateUp, 700, 500}, // the up default given explicitly still yields to --limit-rate
		{64, 128, 1000},
	}
	for _, c := range cases {
		o := P2PConfig{LimitRateUp: c.up, LimitRateDown: c.down, LimitRate: c.both}
		up, down, err := o.rateLimits()
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		var extra []string
		add := func(flag string, v int64) {
			if v != -1 {
				extra = append(extra, flag, strconv.FormatInt(v, 10))
			}
		}
		add("--limit-rate-up", c.up)
		add("--limit-rate-down", c.down)
		add("--limit-rate", c.both)
		m := lab.StartMonerod(t, "", extra...)
		var lim struct {
			Up   int64 `json:"limit_up"`
			Down int64 `json:"limit_down"`
		}
		body, err := m.Post("/get_limit", []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(body, &lim); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if up != lim.Up || down != lim.Down {
			t.Errorf("flags %v: gonero up %d down %d; monerod up %d down %d", extra, up, down, lim.Up, lim.Down)
		}
		m.Stop()
	}
	// gonero refuses what monerod would divide by.
	for _, bad := range []P2PConfig{{LimitRateUp: 0, LimitRateDown: -1, LimitRate: -1}, {LimitRateUp: -1, LimitRateDown: -1, LimitRate: -7}} {
		if _, _, err := bad.rateLimits(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
