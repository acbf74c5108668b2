package rpc

import (
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/params"
)

// versionResult is get_version's answer (COMMAND_RPC_GET_VERSION of
// monerod 0.18.5.3): members in the order monerod prints them (sorted).
type versionResult struct {
	currentHeight uint64
	targetHeight  uint64            // omitted when 0 (KV_SERIALIZE_OPT)
	hardForks     []params.HardFork // hf_entry {hf_version, height}; omitted when empty
}

func (r *versionResult) write(w *epeejson.Writer) {
	w.BeginObject()
	if r.currentHeight != 0 {
		w.KeyUint("current_height", r.currentHeight)
	}
	if len(r.hardForks) > 0 {
		w.Key("hard_forks")
		w.BeginArray()
		for _, f := range r.hardForks {
			w.BeginObject()
			w.KeyUint("height", f.Height)
			w.KeyUint("hf_version", uint64(f.Version))
			w.EndObject()
		}
		w.EndArray()
	}
	w.KeyBool("release", false)
	w.KeyString("status", statusOK)
	if r.targetHeight != 0 {
		w.KeyUint("target_height", r.targetHeight)
	}
	writeUntrusted(w)
	w.KeyUint("version", coreRPCVersion)
	w.EndObject()
}
