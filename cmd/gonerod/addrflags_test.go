package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The IPv6 and ban-list flags refuse what monerod refuses, and a ban list
// that does not parse stops the start naming file and line.
func TestAddrFlagErrors(t *testing.T) {
	t.Parallel()
	bin := buildGonerod(t)
	data := t.TempDir()
	bad := filepath.Join(data, "bans.txt")
	if err := os.WriteFile(bad, []byte("# fine\n1.2.3.4\nnot-an-ip\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ban-list", filepath.Join(data, "missing.txt")}, "can't find ban list file"},
		{[]string{"--ban-list", bad}, `ban list ` + bad + ` line 3: "not-an-ip"`},
		{[]string{"--p2p-use-ipv6", "--p2p-bind-ipv6-address", "1.2.3.4"}, "is not an IPv6 address"},
		{[]string{"--rpc-bind-ipv6-address", "2001:db8::1"}, "--confirm-external-bind"},
		{[]string{"--rpc-restricted-bind-ipv6-address", "nonsense"}, "is not an IP address"},
	} {
		cmd := exec.Command(bin, withZMQRPCPort(t, append([]string{"--regtest", "--offline", "--rpc-bind-port", "0", "--data-dir", data}, c.args...))...)
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("gonerod %v: exit %v, output %q; want status 1 and %q", c.args, err, out, c.want)
		}
	}
}
