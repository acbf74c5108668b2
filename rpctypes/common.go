package rpctypes

import "github.com/gonero/gonero/epeejson"

// StatusOK is CORE_RPC_STATUS_OK.
const StatusOK = "OK"

// The members of rpc_access_response_base every answer carries: credits
// (0: RPC payments are not supported), top_hash (empty, for the same
// reason) and untrusted (false: this node answers for itself, it is no
// bootstrap daemon's proxy).

// WriteCredits writes credits.
func WriteCredits(w *epeejson.Writer) { w.KeyUint("credits", 0) }

// WriteStatusTail writes status and top_hash, which sort together.
func WriteStatusTail(w *epeejson.Writer, status string) {
	w.KeyString("status", status)
	w.KeyString("top_hash", "")
}

// WriteUntrusted writes untrusted.
func WriteUntrusted(w *epeejson.Writer) { w.KeyBool("untrusted", false) }
