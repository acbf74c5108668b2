package rpc

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/params"
)

// Every path and every JSON-RPC method, under every alias, is asked of a
// restricted monerod 0.18.5.3 and of gonero's restricted listener: both
// refuse the same ones (404, -32601), and those are the ones the registry
// declares refused and monerodRestrictedPaths/Methods list. Refusal comes
// before the request is read, so an empty request asks it; and as nothing
// refused is run, nothing changes on either node.
func TestRestrictedSetMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	m := lab.StartMonerod(t, "", "--restricted")
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1})
	monerodURL := fmt.Sprintf("http://127.0.0.1:%d", m.RPCPort)

	refusedBy := func(ours, theirs *[]string, name string, refused func(status int, body []byte) bool) func(path string, body []byte) {
		return func(path string, body []byte) {
			t.Helper()
			theirStatus, theirBody := post(t, monerodURL, path, body)
			ourStatus, ourBody := post(t, node.rurl, path, body)
			if refused(theirStatus, theirBody) {
				*theirs = append(*theirs, name)
			}
			if refused(ourStatus, ourBody) {
				*ours = append(*ours, name)
			}
		}
	}
	var ourPaths, theirPaths, ourMethods, theirMethods []string
	for _, p := range slices.Sorted(maps.Keys(endpoints.paths)) {
		refusedBy(&ourPaths, &theirPaths, p, func(status int, _ []byte) bool { return status == 404 })(p, []byte(`{}`))
	}
	methodNotFound := func(status int, body []byte) bool {
		var a struct {
			Error *struct{ Code int } `json:"error"`
		}
		if status != 200 || json.Unmarshal(body, &a) != nil {
			t.Fatalf("HTTP %d: %s", status, clip(string(body)))
		}
		return a.Error != nil && a.Error.Code == -32601
	}
	for _, n := range slices.Sorted(maps.Keys(endpoints.methods)) {
		refusedBy(&ourMethods, &theirMethods, n, methodNotFound)("/json_rpc", rpcBody(n, `{}`))
	}

	for _, c := range []struct {
		what               string
		ours, theirs, list []string
		declared           map[string]*endpoint
	}{
		{"paths", ourPaths, theirPaths, monerodRestrictedPaths, endpoints.paths},
		{"methods", ourMethods, theirMethods, monerodRestrictedMethods, endpoints.methods},
	} {
		list := slices.Sorted(slices.Values(c.list))
		if !slices.Equal(c.theirs, list) {
			t.Errorf("monerod refuses the %s\n %v\nmonerodRestricted%s lists\n %v", c.what, c.theirs, c.what, list)
		}
		if !slices.Equal(c.ours, c.theirs) {
			t.Errorf("refused %s:\n gonero  %v\n monerod %v", c.what, c.ours, c.theirs)
		}
		if d := refusedNames(c.declared); !slices.Equal(d, c.theirs) {
			t.Errorf("%s declared refused:\n gonero  %v\n monerod %v", c.what, d, c.theirs)
		}
	}
	t.Logf("%d paths and %d methods asked; both refuse %d paths and %d methods",
		len(endpoints.paths), len(endpoints.methods), len(theirPaths), len(theirMethods))
}
