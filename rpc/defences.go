package rpc

import (
	"strings"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/rpctypes"
)

// busyAnswer is what a request gets when its address group is over its
// serving budget and found no metered slot in time (httpd's request
// meter, docs/public-node.md): monerod's answer while it cannot serve
// (CHECK_CORE_READY in core_rpc_server.cpp): status "BUSY" on the plain
// and binary endpoints, JSON-RPC error -9 "Core is busy" on /json_rpc,
// with HTTP 200. Wallets take it as a failed call and retry later.
func (s *Server) busyAnswer(req *httpd.Request) httpd.Response {
	switch {
	case req.Path == "/json_rpc":
		id, hasID := epeejson.Value{}, false
		if v, err := epeejson.Parse(req.Body); err == nil {
			id, hasID = v.Get("id")
		}
		w := epeejson.NewWriter(make([]byte, 0, 128))
		writeError(w, errCoreBusy, id, hasID)
		return jsonResponse(w)
	case strings.HasSuffix(req.Path, ".bin"):
		return statusOnlyBin(statusBusy)
	default:
		return writePlain(func(w *epeejson.Writer) { rpctypes.WriteStatusOnly(w, statusBusy) })
	}
}

// GuardStats sums what the defences of every RPC listener did (metrics).
func (s *Server) GuardStats() httpd.GuardStats {
	var st httpd.GuardStats
	for _, l := range s.listeners {
		st = st.Add(l.GuardStats())
	}
	return st
}
