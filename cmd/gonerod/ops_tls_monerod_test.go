package main

import (
	"crypto/tls"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/daemonctl"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/monerodlab"
)

// The operator commands against daemons that serve RPC over TLS alone
// (--rpc-ssl enabled): monerod's client against monerod and gonerod's
// against gonerod, with each of the client's --rpc-ssl settings. Both
// daemons serve one certificate the test makes, so that one fingerprint
// and one CA file name both.
func TestOperatorCommandsOverTLS(t *testing.T) {
	p, tc := startTLSPair(t)
	certFile, fingerprint, otherFile, otherFingerprint := tc.certFile, tc.fingerprint, tc.otherFile, tc.otherFingerprint

	// autodetect (the default): TLS, the self-signed certificate only
	// warned of.
	if out := p.same("print_height"); !strings.Contains(out, "1") {
		t.Errorf("autodetect: %q", out)
	}
	// Refused, each as monerod's client says it: plain HTTP to a TLS-only
	// daemon; enabled, which checks the certificate against the system's
	// CAs, which do not know it; another certificate's fingerprint; another
	// CA, in either mode (a CA file requires TLS).
	for _, args := range [][]string{
		{"--rpc-ssl", "disabled"},
		{"--rpc-ssl", "enabled"},
		{"--rpc-ssl-allowed-fingerprints", otherFingerprint},
		{"--rpc-ssl-ca-certificates", otherFile},
		{"--rpc-ssl", "autodetect", "--rpc-ssl-ca-certificates", otherFile},
	} {
		if out := p.same(append(args, "print_height")...); out == "1\n" || out == "" {
			t.Errorf("%v: %q; want a failure", args, out)
		} else {
			t.Logf("%v: %q", args, out)
		}
	}
	if out := p.same("--rpc-ssl", "enabled", "--rpc-ssl-allow-any-cert", "print_height"); out != "1\n" {
		t.Errorf("enabled, any certificate: %q", out)
	}
	if out := p.same("--rpc-ssl-allowed-fingerprints", fingerprint, "print_height"); out != "1\n" {
		t.Errorf("the daemon's fingerprint: %q", out)
	}
	// Flags monerod's client refuses before it connects.
	for _, args := range [][]string{{"--rpc-ssl", "bogus"}, {"--rpc-ssl-allowed-fingerprints", "00:11"}} {
		if out := p.same(append(args, "print_height")...); !strings.HasPrefix(out, "LOG E ") {
			t.Errorf("%v: %q; want monerod's error line", args, out)
		}
	}
	if out := p.same("--rpc-ssl-ca-certificates", certFile, "print_height"); out != "1\n" {
		t.Errorf("the daemon's certificate as the CA: %q", out)
	}
}

// tlsPair is what startTLSPair made: the certificate both daemons serve,
// another one, and an RPC client of each daemon.
type tlsPair struct {
	certFile, fingerprint, otherFile, otherFingerprint string
	monerod, gonerod                                   *daemonctl.HTTPClient
}

// startTLSPair starts monerod and gonerod on empty regtest chains, both
// with --rpc-ssl enabled and one certificate it makes, and returns the pair
// of clients (monerod's against monerod, gonerod's against gonerod).
func startTLSPair(t *testing.T) (*opsPair, *tlsPair) {
	t.Helper()
	monerodlab.Require(t)
	bin := buildGonerod(t)
	dir := t.TempDir()
	certPEM, keyPEM, err := httpd.GenerateCertificate()
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "rpc.crt"), filepath.Join(dir, "rpc.key")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certPEM)
	fingerprint := httpd.Fingerprint(block.Bytes)
	otherPEM, _, err := httpd.GenerateCertificate()
	if err != nil {
		t.Fatal(err)
	}
	otherBlock, _ := pem.Decode(otherPEM)
	otherFile := filepath.Join(dir, "other.crt")
	if err := os.WriteFile(otherFile, otherPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	tlsFlags := []string{"--rpc-ssl", "enabled", "--rpc-ssl-certificate", certFile, "--rpc-ssl-private-key", keyFile}

	// monerod is started here, as a child of the test (which Require has
	// checked runs inside the loopback-only namespace), and polled over TLS.
	mport, mdata := freePort(t), t.TempDir()
	mcmd := exec.Command("monerod", append([]string{"--regtest", "--offline", "--no-igd", "--no-zmq", "--disable-dns-checkpoints",
		"--check-updates", "disabled", "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(freePort(t)),
		"--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", strconv.Itoa(mport), "--non-interactive", "--data-dir", mdata,
		"--fixed-difficulty", "1"}, tlsFlags...)...)
	if err := mcmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mcmd.Process.Kill(); _ = mcmd.Wait() })
	gport := freePort(t)
	launchGonerod(t, &gonerod{rpcPort: gport}, bin, append([]string{"--regtest", "--fixed-difficulty", "1", "--data-dir", t.TempDir(), "--offline",
		"--rpc-bind-port", strconv.Itoa(gport)}, tlsFlags...))
	for _, port := range []int{mport, gport} {
		c := &daemonctl.HTTPClient{Host: "127.0.0.1", Port: strconv.Itoa(port), Timeout: 10 * time.Second,
			TLS: &tls.Config{InsecureSkipVerify: true}}
		waitFor(t, 120*time.Second, "RPC over TLS on port "+strconv.Itoa(port), func() bool {
			var h struct {
				Status string `json:"status"`
			}
			return c.Path("/get_height", struct{}{}, &h) == nil && h.Status == "OK"
		})
	}
	tc := &tlsPair{certFile: certFile, fingerprint: fingerprint, otherFile: otherFile, otherFingerprint: httpd.Fingerprint(otherBlock.Bytes)}
	tc.monerod = &daemonctl.HTTPClient{Host: "127.0.0.1", Port: strconv.Itoa(mport), Timeout: 30 * time.Second, TLS: &tls.Config{InsecureSkipVerify: true}}
	tc.gonerod = &daemonctl.HTTPClient{Host: "127.0.0.1", Port: strconv.Itoa(gport), Timeout: 30 * time.Second, TLS: &tls.Config{InsecureSkipVerify: true}}
	return &opsPair{t: t, bin: bin, monerodData: t.TempDir(), mPort: mport, gPort: gport}, tc
}

// `ban @<file>`: monerod's client and gonerod's read the same file (a
// comment, blank lines, an IPv4 subnet written unmasked, hosts with and
// without a port, IPv6, a line that is neither) and leave the same bans,
// with the same output; a missing file is named alike. (The daemons serve
// TLS: startTLSPair's, reached in autodetect.)
func TestOperatorBanFileMatchesMonerod(t *testing.T) {
	p, tc := startTLSPair(t)
	list := filepath.Join(t.TempDir(), "bans.txt")
	content := "# hosts seen scanning\n\n10.1.2.3/24   # a subnet, unmasked\n  203.0.113.5:18080\n198.51.100.7\n" +
		"[2001:db8::1]:18080\n2001:db8::2\nnot-an-ip\n10.9.8.7/33\n"
	if err := os.WriteFile(list, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := p.same("ban", "@"+list, "3600"); !strings.Contains(out, "Invalid IP address or IPv4 subnet: not-an-ip") {
		t.Errorf("ban @file: %q", out)
	}
	hosts := func(c *daemonctl.HTTPClient) string {
		var r struct {
			Bans []struct {
				Host    string `json:"host"`
				Seconds uint32 `json:"seconds"`
			} `json:"bans"`
		}
		if err := c.Method("get_bans", struct{}{}, &r); err != nil {
			t.Fatal(err)
		}
		var hs []string
		for _, b := range r.Bans {
			if b.Seconds == 0 || b.Seconds > 3600 {
				t.Errorf("%s banned for %d s, want at most 3600", b.Host, b.Seconds)
			}
			hs = append(hs, b.Host)
		}
		sort.Strings(hs)
		return strings.Join(hs, ",")
	}
	ours, theirs := hosts(tc.gonerod), hosts(tc.monerod)
	if ours != theirs || ours == "" {
		t.Errorf("after ban @file: gonerod bans %s, monerod %s", ours, theirs)
	}
	t.Logf("banned: %s", ours)
	p.same("ban", "@"+filepath.Join(t.TempDir(), "missing.txt"))
	p.same("ban", "@"+t.TempDir()) // a directory: nothing read, nothing said
}
