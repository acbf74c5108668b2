package p2p

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gonero/gonero/rpc"
)

// The RPC layer reaches the node through these small interfaces; p2p
// cannot state it itself without importing rpc.
var (
	_ rpc.Peers     = (*Node)(nil)
	_ rpc.SyncQueue = (*Node)(nil)
)

// TestNoRPCDependency keeps p2p below the RPC: it shares the peer values
// through peerinfo, so neither rpc nor the HTTP server (and fasthttp, epee
// JSON, the miner with them) may be among its dependencies.
func TestNoRPCDependency(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/gonero/gonero/rpc",
		"github.com/gonero/gonero/httpd",
		"github.com/gonero/gonero/epeejson",
		"github.com/gonero/gonero/miner",
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "fasthttp") {
			t.Errorf("p2p depends on %s", dep)
		}
		for _, f := range forbidden {
			if dep == f {
				t.Errorf("p2p depends on %s", dep)
			}
		}
	}
}
