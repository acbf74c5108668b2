package node

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gonero/gonero/params"
)

// The node serves monerod's ZMQ RPC on its ZMQRPC address, from its own
// chain: a REQ client's get_height is the chain's height, and a restricted
// server refuses what monerod's --restricted-zmq-rpc refuses. (zmqrpc's
// own tests compare every method with monerod's.)
func TestZMQRPCServesTheChain(t *testing.T) {
	t.Parallel()
	for _, restricted := range []bool{false, true} {
		cfg := regtestConfig(t, t.TempDir())
		cfg.P2P.Offline = true
		cfg.ZMQRPC.Restricted = restricted
		n, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if n.ZMQRPCAddr() != nil {
			t.Fatalf("a node not started serves ZMQ RPC on %v", n.ZMQRPCAddr())
		}
		if err := n.Start(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		req := zmq4.NewReq(ctx)
		if err := req.Dial("tcp://" + n.ZMQRPCAddr().String()); err != nil {
			t.Fatal(err)
		}
		call := func(method string) map[string]any {
			t.Helper()
			if err := req.Send(zmq4.NewMsgString(`{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{}}`)); err != nil {
				t.Fatal(err)
			}
			m, err := req.Recv()
			if err != nil {
				t.Fatal(err)
			}
			var answer map[string]any
			if err := json.Unmarshal(m.Bytes(), &answer); err != nil {
				t.Fatalf("%s: %v in %q", method, err, m.Bytes())
			}
			return answer
		}
		got := call("get_height")
		result, _ := got["result"].(map[string]any)
		if h, _ := result["height"].(float64); uint64(h) != n.Chain().Height() {
			t.Errorf("restricted %v: get_height %v, the chain's height %d", restricted, got, n.Chain().Height())
		}
		// save_bc is on monerod's list of methods a restricted ZMQ RPC refuses.
		_, refused := call("save_bc")["error"]
		if refused != restricted {
			t.Errorf("restricted %v: save_bc refused %v", restricted, refused)
		}
		req.Close()
		cancel()
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// The ZMQ RPC server's default address is monerod's: 127.0.0.1 and the
// network's ZMQ_RPC_DEFAULT_PORT, mainnet's on regtest (monerod's
// --zmq-rpc-bind-port switches only for --testnet and --stagenet).
func TestZMQRPCDefaultAddr(t *testing.T) {
	t.Parallel()
	for net, want := range map[params.Network]string{params.Mainnet: "127.0.0.1:18082", params.Testnet: "127.0.0.1:28082",
		params.Stagenet: "127.0.0.1:38082", params.Regtest: "127.0.0.1:18082"} {
		cfg := DefaultConfig()
		cfg.Network = net
		if cfg.ZMQRPC.Disabled || cfg.zmqRPCAddr() != want {
			t.Errorf("%s: ZMQ RPC disabled %v on %s, want on %s", net, cfg.ZMQRPC.Disabled, cfg.zmqRPCAddr(), want)
		}
		cfg.ZMQRPC.BindIP, cfg.ZMQRPC.BindPort = "::1", 5
		if got := cfg.zmqRPCAddr(); got != "[::1]:5" {
			t.Errorf("%s: --zmq-rpc-bind-ip ::1 --zmq-rpc-bind-port 5 gives %s", net, got)
		}
	}
}

// The HTTP RPC's per-address flags (--rpc-max-connections-per-private-ip
// here) bound the ZMQ RPC's connections too: with a bound of 2, two
// loopback clients are served and a third from the same address is not.
func TestZMQRPCPerAddressBoundFromRPCFlags(t *testing.T) {
	t.Parallel()
	cfg := regtestConfig(t, t.TempDir())
	cfg.P2P.Offline = true
	cfg.RPC.MaxConnectionsPerPrivateIP = 2
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	heightOver := func(ctx context.Context) error {
		req := zmq4.NewReq(ctx)
		t.Cleanup(func() { req.Close() })
		if err := req.Dial("tcp://" + n.ZMQRPCAddr().String()); err != nil {
			return err
		}
		if err := req.Send(zmq4.NewMsgString(`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}}`)); err != nil {
			return err
		}
		_, err := req.Recv()
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 2 {
		if err := heightOver(ctx); err != nil {
			t.Fatalf("client %d of 2: %v", i+1, err)
		}
	}
	// The third is refused at accept; its REQ socket never gets an answer.
	ctx3, cancel3 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel3()
	if err := heightOver(ctx3); err == nil {
		t.Fatal("a third connection from 127.0.0.1 was answered past a bound of 2")
	}
}
