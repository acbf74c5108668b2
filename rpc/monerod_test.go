package rpc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/internal/monerodlab"
)

// A chain built for this run is served by gonero and by monerod; both are
// asked the same questions — every method and alias, at every height, by
// hash and by height, plus error cases — and must answer alike.
func TestAgainstMonerodFreshChain(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	node := startNode(t, fresh.RawFile, nil)
	m := lab.StartMonerod(t, fresh.NodeDir)

	asked := 0
	ask := func(body string, drop ...string) {
		t.Helper()
		theirs, err := m.Post("/json_rpc", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		_, ours := post(t, node.url, "/json_rpc", []byte(body))
		if g, w := canonical(t, ours, drop...), canonical(t, theirs, drop...); g != w {
			t.Fatalf("%s\n gonero: %s\nmonerod: %s", body, clip(g), clip(w))
		}
		asked++
	}
	height := node.chain.Height()
	var hashes []string
	err := node.chain.Store().View(func(r *chaindb.Reader) error {
		for h := uint64(0); h < height; h++ {
			meta, err := r.MetaByHeight(h)
			if err != nil {
				return err
			}
			hashes = append(hashes, meta.Hash.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	req := func(id int, method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	}
	for h := uint64(0); h < height; h++ {
		for _, method := range []string{"getblock", "get_block"} {
			ask(req(int(h), method, fmt.Sprintf(`{"height":%d}`, h)))
			ask(req(int(h), method, fmt.Sprintf(`{"hash":%q}`, hashes[h])))
		}
		for _, method := range []string{"getblockheaderbyheight", "get_block_header_by_height"} {
			ask(req(int(h), method, fmt.Sprintf(`{"height":%d}`, h)))
		}
		for _, method := range []string{"getblockheaderbyhash", "get_block_header_by_hash"} {
			ask(req(int(h), method, fmt.Sprintf(`{"hash":%q}`, hashes[h])))
		}
	}
	all := `["` + strings.Join(hashes, `","`) + `"]`
	ask(req(1, "getblockheaderbyhash", `{"hashes":`+all+`}`))
	ask(req(1, "get_block_header_by_hash", fmt.Sprintf(`{"hash":%q,"hashes":%s}`, hashes[7], all)))
	for _, method := range []string{"getlastblockheader", "get_last_block_header"} {
		ask(req(1, method, `{}`))
	}
	// The RandomX proof-of-work hash, from two seeds' worth of heights.
	for _, h := range []uint64{1, 201, height - 1} {
		ask(req(1, "getblock", fmt.Sprintf(`{"height":%d,"fill_pow_hash":true}`, h)))
		ask(req(1, "getblockheaderbyhash", fmt.Sprintf(`{"hash":%q,"fill_pow_hash":true}`, hashes[h])))
	}
	ask(req(1, "getlastblockheader", `{"fill_pow_hash":true}`))
	// Errors.
	for _, p := range []string{fmt.Sprintf(`{"height":%d}`, height), `{"height":18446744073709551615}`, `{"hash":"xyz"}`,
		`{"hash":"` + strings.Repeat("a", 64) + `"}`, `{"height":-1}`, `{"height":"12"}`, `{"height":1.5}`} {
		ask(req(3, "getblock", p))
		ask(req(3, "getblockheaderbyheight", p))
		ask(req(3, "getblockheaderbyhash", p))
	}
	ask(req(4, "getblockheaderbyhash", `{"hashes":["`+hashes[1]+`","zz"]}`))
	ask(req(5, "no_such_method", `{}`))
	ask(req(6, "get_connections", `{}`))
	ask(`{"jsonrpc":"2.0","id":[1,2],"method":"getblock","params":[5]}`)

	// get_info: the chain figures equal, and every member monerod has, we have.
	theirs, err := m.Post("/json_rpc", []byte(req(9, "get_info", `{}`)))
	if err != nil {
		t.Fatal(err)
	}
	_, ours := post(t, node.url, "/json_rpc", []byte(req(9, "get_info", `{}`)))
	tv, _ := epeejson.Parse(theirs)
	ov, _ := epeejson.Parse(ours)
	tr, _ := tv.Get("result")
	or, _ := ov.Get("result")
	for _, member := range tr.Obj {
		mine, ok := or.Get(member.Name)
		if !ok {
			t.Errorf("get_info: gonero lacks %q", member.Name)
			continue
		}
		switch member.Name {
		case "start_time", "free_space", "database_size", "version", "rpc_connections_count":
			continue // the node's own figures (connections: see TestRPCConnectionsCount)
		}
		a, b := epeejson.NewWriter(nil), epeejson.NewWriter(nil)
		a.Value(mine)
		b.Value(member.Value)
		if string(a.Bytes()) != string(b.Bytes()) {
			t.Errorf("get_info %s: gonero %s, monerod %s", member.Name, a.Bytes(), b.Bytes())
		}
	}
	t.Logf("%d questions asked; gonero and monerod agree on all", asked)
}
