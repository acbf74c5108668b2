package zmqrpc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
)

// BenchmarkAgainstMonerod times the light-wallet sync calls over ZMQ on
// the run's regtest chain, gonero's server and monerod's, one after the
// other in the same run (go test -bench AgainstMonerod -run X, in the
// test namespace); the ratio is what issue 30 asks about.
func BenchmarkAgainstMonerod(b *testing.B) {
	lab := monerodlab.Require(b)
	fresh := lab.FreshChain(b)
	c, pool := openChain(b, fresh.RawFile, 0)
	m := lab.StartMonerod(b, fresh.NodeDir, fmt.Sprintf("--zmq-pub=tcp://127.0.0.1:%d", monerodlab.FreePort(b)))
	s, err := New(Config{Addr: "127.0.0.1:0"}, Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool)})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	gen := c.HashAt(0).String()
	reqs := map[string]string{
		"get_blocks_fast":         `{"jsonrpc":"2.0","id":1,"method":"get_blocks_fast","params":{"block_ids":["` + gen + `"],"start_height":0,"prune":true}}`,
		"get_output_distribution": `{"jsonrpc":"2.0","id":1,"method":"get_output_distribution","params":{"amounts":[0],"from_height":0,"to_height":0,"cumulative":true}}`,
	}
	for _, name := range []string{"get_blocks_fast", "get_output_distribution"} {
		for _, who := range []string{"monerod", "gonero"} {
			addr := s.Addr().String()
			if who == "monerod" {
				addr = fmt.Sprintf("127.0.0.1:%d", m.RPCPort+1000)
			}
			b.Run(name+"/"+who, func(b *testing.B) {
				cl := dial(b, addr)
				if a := cl.call(b, reqs[name]); !strings.Contains(a, `"result"`) {
					b.Fatalf("%s", clip(a))
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_ = cl.c.SetDeadline(time.Now().Add(60e9))
					cl.call(b, reqs[name])
				}
			})
		}
	}
}
