package rpc

import (
	"bytes"
	"fmt"
	"time"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
)

// maxBatch bounds a batch request (JSON-RPC 2.0 arrays, which monerod does
// not accept) so that one request cannot ask for unbounded work.
const maxBatch = 256

// serveJSONRPC answers POST /json_rpc as monerod's epee dispatcher does
// (docs/rpc-semantics.md §3.1), plus JSON-RPC 2.0 batches.
func (s *Server) serveJSONRPC(req *httpd.Request) httpd.Response {
	if s.timers == nil {
		resp, _ := s.answerJSONRPC(req)
		return resp
	}
	began := time.Now()
	resp, observe := s.answerJSONRPC(req)
	if observe != nil { // nil: a batch, whose requests were observed one by one
		observe(time.Since(began))
	}
	return resp
}

// answerJSONRPC answers a /json_rpc request; observe is the duration
// observer of its method (nil when not instrumented, or for a batch).
func (s *Server) answerJSONRPC(req *httpd.Request) (resp httpd.Response, observe func(time.Duration)) {
	version := s.answerVersion()
	if kept, ok := s.answers.getKept(version, routeJSONRPC, req); ok { // see fastpath.go
		return httpd.Response{ContentType: "application/json", Body: kept.answer}, kept.observe
	}
	w := epeejson.NewWriter(make([]byte, 0, 2048))
	body := bytes.TrimLeft(req.Body, " \t\r\n")
	if len(body) > 0 && body[0] == '[' {
		return s.serveBatch(body, req.Restricted, w), nil
	}
	v, err := epeejson.Parse(req.Body)
	if s.timers != nil {
		observe = s.timers.other
		if err == nil {
			observe = s.timers.method(v)
		}
	}
	if err != nil {
		writeError(w, errParse, epeejson.Value{}, false)
		return jsonResponse(w), observe
	}
	if !s.dispatch(v, req.Restricted, w) {
		// A non-string method: monerod's dispatcher throws, which its HTTP
		// layer turns into an empty 500 and a closed connection.
		return httpd.Response{Status: 500, ContentType: "application/json", Close: true}, observe
	}
	s.answers.putJSONRPC(version, s.answerVersion(), req, v, w.Bytes(), observe)
	return jsonResponse(w), observe
}

func jsonResponse(w *epeejson.Writer) httpd.Response {
	return httpd.Response{ContentType: "application/json", Body: w.Bytes()}
}

// serveBatch answers a JSON array of requests with an array of answers, in
// order. It is an extension: monerod answers any array with -32700.
func (s *Server) serveBatch(body []byte, restricted bool, w *epeejson.Writer) httpd.Response {
	wrapped := make([]byte, 0, len(body)+12)
	wrapped = append(append(append(wrapped, `{"batch":`...), body...), '}')
	v, err := epeejson.Parse(wrapped)
	batch, ok := v.Get("batch")
	if err != nil || !ok || batch.Kind != epeejson.KindArray {
		writeError(w, errParse, epeejson.Value{}, false)
		return jsonResponse(w)
	}
	switch {
	case len(batch.Arr) == 0:
		writeError(w, errInvalidRequest, epeejson.Value{}, false)
		return jsonResponse(w)
	case len(batch.Arr) > maxBatch:
		writeError(w, &Error{Code: -32600, Message: fmt.Sprintf("Invalid Request: a batch may hold at most %d requests, this one holds %d", maxBatch, len(batch.Arr))}, epeejson.Value{}, false)
		return jsonResponse(w)
	}
	w.BeginArray()
	for _, elem := range batch.Arr {
		var began time.Time
		if s.timers != nil {
			began = time.Now()
		}
		if elem.Kind != epeejson.KindObject || !s.dispatch(elem, restricted, w) {
			writeError(w, errInvalidRequest, epeejson.Value{}, false)
		}
		if s.timers != nil {
			// Each request of a batch counts as one of its method.
			s.timers.method(elem)(time.Since(began))
		}
	}
	w.EndArray()
	return jsonResponse(w)
}

// dispatch runs one request object and writes its answer. It returns false
// (writing nothing) only for a non-string method, which monerod cannot answer.
func (s *Server) dispatch(req epeejson.Value, restricted bool, w *epeejson.Writer) bool {
	mv, ok := req.Get("method")
	if !ok {
		writeError(w, errInvalidRequest, epeejson.Value{}, false)
		return true
	}
	if mv.Kind != epeejson.KindString {
		return false
	}
	id, hasID := req.Get("id")
	m := endpoints.methods[mv.Str]
	if !m.allowed(restricted) {
		// The id is echoed as given; without one monerod's default for this
		// error is the empty string.
		if !hasID {
			id, hasID = epeejson.Value{Kind: epeejson.KindString}, true
		}
		writeError(w, errMethodNotFound, id, hasID)
		return true
	}
	// epee loads jsonrpc before id: a non-string jsonrpc fails with the id
	// not yet read.
	if jv, ok := req.Get("jsonrpc"); ok && jv.Kind != epeejson.KindString {
		writeError(w, errInvalidParams, epeejson.Value{}, false)
		return true
	}
	pv, ok := req.Get("params")
	c := &call{server: s, restricted: restricted, params: newParams(pv, ok)}
	if !m.noClient {
		// The RPC-payment client signature: unused without payments, but
		// monerod still refuses one of the wrong type.
		if _, e := c.params.String("client"); e != nil {
			writeError(w, e, id, hasID)
			return true
		}
	}
	began := time.Now()
	res, rpcErr := m.method(c)
	if rpcErr != errInvalidParams {
		// monerod tracks a call its handler ran (rpc_access_tracking);
		// params that did not load never reach it.
		s.track(mv.Str, began)
	}
	if rpcErr != nil {
		writeError(w, rpcErr, id, hasID)
		return true
	}
	w.BeginObject()
	w.Key("id")
	writeID(w, id, hasID)
	w.KeyString("jsonrpc", "2.0")
	w.Key("result")
	res(w)
	w.EndObject()
	return true
}

func writeID(w *epeejson.Writer, id epeejson.Value, has bool) {
	if has {
		w.Value(id)
	} else {
		w.Uint(0)
	}
}

func writeError(w *epeejson.Writer, e *Error, id epeejson.Value, hasID bool) {
	w.BeginObject()
	w.Key("error")
	w.BeginObject()
	w.Key("code")
	w.Int(e.Code)
	w.KeyString("message", e.Message)
	w.EndObject()
	w.Key("id")
	writeID(w, id, hasID)
	w.KeyString("jsonrpc", "2.0")
	w.EndObject()
}
