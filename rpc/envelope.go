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

// maxBatchAnswer bounds the bytes of one batch's answers. Counting calls
// bounds nothing: a 27 kB batch of 256 expensive calls made about 80 MB of
// answers (issue 33). The calls are answered in order until their answers
// pass this bound; the call that passes it and every later one get
// errBatchTooLarge instead (their answers are dropped as soon as they are
// made, never held together). 4 MiB holds a batch of any cheap calls
// (get_info is ~1.3 kB: 256 of them ~330 kB) and a few large ones; larger
// answers are asked one by one, where --rpc-response-soft-limit and the
// memory budget bound them.
const maxBatchAnswer = 4 << 20

// errBatchTooLarge answers the calls of a batch past maxBatchAnswer. A
// JSON-RPC 2.0 server error (-32000 to -32099 are the implementation's).
var errBatchTooLarge = &Error{Code: -32001, Message: fmt.Sprintf(
	"Server error: the answers of this batch passed %d bytes; send this request and the ones after it again, alone or in smaller batches", maxBatchAnswer)}

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
		return s.serveBatch(body, req), nil
	}
	v, err := parseEnvelope(req.Body)
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
	if !s.dispatch(v, req.Restricted, &answerClaim{req: req}, w) {
		// A non-string method: monerod's dispatcher throws, which its HTTP
		// layer turns into an empty 500 and a closed connection.
		return httpd.Response{Status: 500, ContentType: "application/json", Close: true}, observe
	}
	s.answers.putJSONRPC(version, s.answerVersion(), req, v, w.Bytes(), observe)
	return jsonResponse(w), observe
}

// parseEnvelope parses a /json_rpc request: params one level deep, then
// whole if its method reads deeper (endpoint.deepParams). Both parses
// accept and refuse the same bodies, so answers are monerod's either way;
// a method that needs only params' scalars (get_info, getblock, ...) or a
// method not served pays nothing for arrays it never reads.
func parseEnvelope(body []byte) (epeejson.Value, error) {
	v, err := epeejson.ParseShallow(body, "params")
	if err != nil {
		return v, err
	}
	if mv, ok := v.Get("method"); ok && mv.Kind == epeejson.KindString {
		if m := endpoints.methods[mv.Str]; m != nil && m.deepParams {
			return epeejson.Parse(body)
		}
	}
	return v, nil
}

func jsonResponse(w *epeejson.Writer) httpd.Response {
	return httpd.Response{ContentType: "application/json", Body: w.Bytes()}
}

// serveBatch answers a JSON array of requests with an array of answers, in
// order. It is an extension: monerod answers any array with -32700.
//
// Each call costs what it would cost alone: its answer's bytes are claimed
// from the memory budget (httpd.Request.Reserve) and the request meter is
// charged between calls (httpd.Request.Checkpoint), so that a group over
// its serving budget waits between the calls of its batch as between its
// requests. A call whose answer would pass maxBatchAnswer gets
// errBatchTooLarge, and one the memory budget or the meter refuses gets
// monerod's busy error (-9 "Core is busy", which wallets retry); every call
// after it gets the same error without being run.
func (s *Server) serveBatch(body []byte, req *httpd.Request) httpd.Response {
	w := epeejson.NewWriter(make([]byte, 0, 256))
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
	// Each answer is written alone (at the top level, as epee writes an
	// array's elements) and appended with the array's separators, so
	// that one that does not fit is dropped before it joins the others.
	out := append(make([]byte, 0, 2048), '[')
	var stop *Error // set: the rest get this error without running
	for i, elem := range batch.Arr {
		w.Reset(w.Bytes())
		var began time.Time
		if s.timers != nil {
			began = time.Now()
		}
		switch {
		case elem.Kind != epeejson.KindObject:
			writeError(w, errInvalidRequest, epeejson.Value{}, false)
		case stop != nil:
			id, hasID := elem.Get("id")
			writeError(w, stop, id, hasID)
		default:
			// The call claims as it builds, within what is left of
			// the batch's bound.
			mem := &answerClaim{req: req, limit: max(1, maxBatchAnswer-len(out))}
			if !s.dispatch(elem, req.Restricted, mem, w) {
				w.Reset(w.Bytes())
				writeError(w, errInvalidRequest, epeejson.Value{}, false)
			}
			switch {
			case mem.overLimit:
				// Its answer would not fit the batch's bound: it
				// stopped before building it.
				stop = errBatchTooLarge
			case mem.refused:
				// The memory budget refused it as it built (it
				// answered busy): the rest are busy too.
				stop = errCoreBusy
			}
			if s.timers != nil {
				// Each request of a batch counts as one of its method.
				s.timers.method(elem)(time.Since(began))
			}
			n, reserved := len(w.Bytes()), mem.claimed
			switch {
			case stop != nil:
			case len(out)+n+2 > maxBatchAnswer:
				stop = errBatchTooLarge
			case !req.Reserve(n + 1 - reserved):
				// What the call claimed while it built its answer
				// (answerbudget.go) counts: only the rest is claimed.
				stop = errCoreBusy
			}
			if stop != nil {
				id, hasID := elem.Get("id")
				w.Reset(w.Bytes())
				writeError(w, stop, id, hasID)
			} else if i < len(batch.Arr)-1 && !req.Checkpoint(n) {
				// The meter found the group over its budget and no slot
				// came in time: the rest are busy, as lone requests
				// would be.
				stop = errCoreBusy
			}
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, w.Bytes()...)
	}
	out = append(out, ']')
	return httpd.Response{ContentType: "application/json", Body: out}
}

// dispatch runs one request object and writes its answer. It returns false
// (writing nothing) only for a non-string method, which monerod cannot
// answer. The call claims its answer's bytes through mem as it builds it
// (answerbudget.go); mem may be nil (no budget).
func (s *Server) dispatch(req epeejson.Value, restricted bool, mem *answerClaim, w *epeejson.Writer) bool {
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
	if mem == nil {
		mem = &answerClaim{}
	}
	c := &call{server: s, restricted: restricted, params: newParams(pv, ok), mem: mem}
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
