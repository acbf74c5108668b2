package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Bad anonymity flags stop gonerod at the start with a message that
// names the mistake; none falls back to clearnet.
func TestAnonymityFlagErrors(t *testing.T) {
	t.Parallel()
	bin := buildGonerod(t)
	data := t.TempDir()
	const onion = "zbjkbsxc5munw3qusl7j2hpcmikhqocdf4pqhnhtpzw5nt5jrmofptid.onion"
	const i2p = "uqj3aphckqtjsitz7kxx5flqpwjlq5ppr3chazfued7xucv3nheq.b32.i2p"
	badSum := onion[:10] + "a" + onion[11:]
	proxy := []string{"--tx-proxy", "tor,127.0.0.1:9050"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--tx-proxy", "tor"}, "no ip:port given"},
		{[]string{"--tx-proxy", ",127.0.0.1:9050"}, "no network type"},
		{[]string{"--tx-proxy", "tcp,127.0.0.1:9050"}, `unknown network "tcp"`},
		{[]string{"--tx-proxy", "tor,127.0.0.1"}, "want IP:port"},
		{[]string{"--tx-proxy", "tor,localhost:9050"}, "want IP:port"},
		{[]string{"--tx-proxy", "tor,127.0.0.1:9050,0"}, "invalid max connections"},
		{[]string{"--tx-proxy", "tor,127.0.0.1:9050,10,disable_noise,3"}, "too many ','"},
		{[]string{"--tx-proxy", "tor,alice:pw@127.0.0.1:9050"}, "need socks5://"},
		{[]string{"--tx-proxy", "tor,http://127.0.0.1:9050"}, "unknown scheme"},
		{append(slices.Clone(proxy), "--tx-proxy", "tor,127.0.0.1:9051"), "listed twice with tor"},
		{append([]string{"--add-peer", badSum + ":18083"}, proxy...), "bad checksum"},
		{append([]string{"--add-peer", "expyuzz4wqqyqhjn.onion:18083"}, proxy...), "v2 onion address"},
		{append([]string{"--add-priority-node", onion + ":"}, proxy...), "invalid port"},
		{append([]string{"--add-exclusive-node", i2p[1:]}, proxy...), "invalid I2P address"},
		{[]string{"--add-peer", onion + ":18083"}, "which has no --tx-proxy"},
		{append([]string{"--add-peer", i2p}, proxy...), "i2p zone, which has no --tx-proxy"},
		{[]string{"--anonymous-inbound", onion + ":18083,127.0.0.1:18085"}, "needs a --tx-proxy"},
		{append([]string{"--anonymous-inbound", "1.2.3.4:5,127.0.0.1:18085"}, proxy...), "not a Tor or I2P address"},
		{append([]string{"--anonymous-inbound", badSum + ",127.0.0.1:18085"}, proxy...), "bad checksum"},
		{append([]string{"--anonymous-inbound", onion + ",127.0.0.1"}, proxy...), "invalid ipv4:port"},
		{append([]string{"--anonymous-inbound", onion + ",127.0.0.1:18085,x"}, proxy...), "invalid max connections"},
		{[]string{"--proxy", "socks6://127.0.0.1:9050"}, "unknown scheme"},
		{[]string{"--proxy", "127.0.0.1"}, "want IP:port"},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, withZMQRPCPort(t, append([]string{"--regtest", "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", "0",
			"--rpc-bind-port", "0", "--data-dir", data}, c.args...))...)
		cmd.Env = append(os.Environ(), "RPC_PASSWORD=")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("gonerod %v: exit %v, output %q; want status 1 and %q", c.args, err, out, c.want)
		}
	}
}
