package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/node"
)

// TestTLSFlags: monerod's --rpc-ssl flags, their defaults, what they imply
// and the contradictions and bad input refused at start (never a silent
// fall-back to something else).
func TestTLSFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	config := func(args ...string) (*httpd.TLS, error) {
		t.Helper()
		o := &options{}
		if err := newRootCommandFor(o).ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		c, err := o.tls.serverTLS()
		if err != nil {
			return nil, err
		}
		return c.Load(filepath.Join(dir, "net"), log)
	}

	// The default: autodetect with a generated certificate, kept.
	def, err := config()
	if err != nil || def == nil || def.Mode != httpd.TLSAutodetect {
		t.Fatalf("default: %+v %v", def, err)
	}
	crt, key := filepath.Join(dir, "net", "rpc_ssl.crt"), filepath.Join(dir, "net", "rpc_ssl.key")
	first, err := os.ReadFile(crt)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o400 {
		t.Fatalf("key file: %v %v", st, err)
	}
	cert, err := httpd.LoadKeyPair(crt, key)
	if err != nil {
		t.Fatal(err)
	}
	fp := httpd.Fingerprint(cert.Certificate[0])
	if !strings.Contains(logged.String(), fp) {
		t.Errorf("the fingerprint %s is not in the log:\n%s", fp, logged.String())
	}
	if again, err := config("--rpc-ssl", "enabled"); err != nil || again.Mode != httpd.TLSEnabled {
		t.Fatalf("enabled: %+v %v", again, err)
	}
	if second, _ := os.ReadFile(crt); !bytes.Equal(first, second) {
		t.Error("the stored certificate was replaced on the second start")
	}
	if off, err := config("--rpc-ssl", "disabled"); err != nil || off != nil {
		t.Fatalf("disabled: %+v %v", off, err)
	}

	// Given files; fingerprints and a CA imply enabled.
	certFile, keyFile := filepath.Join(dir, "given.crt"), filepath.Join(dir, "given.key")
	cp, kp, _ := httpd.GenerateCertificate()
	os.WriteFile(certFile, cp, 0o600)
	os.WriteFile(keyFile, kp, 0o600)
	for _, args := range [][]string{
		{"--rpc-ssl-certificate", certFile, "--rpc-ssl-private-key", keyFile},
		{"--rpc-ssl-allowed-fingerprints", fp},
		{"--rpc-ssl-allowed-fingerprints", fp, "--rpc-ssl-allowed-fingerprints", strings.ToLower(strings.ReplaceAll(fp, ":", ""))},
		{"--rpc-ssl-ca-certificates", crt, "--rpc-ssl-allow-chained"},
		{"--rpc-ssl-ca-certificates", crt, "--rpc-ssl", "enabled"},
		{"--rpc-ssl-allow-any-cert"},
	} {
		c, err := config(args...)
		if err != nil || c == nil {
			t.Errorf("%v: %v", args, err)
			continue
		}
		verifying := args[0] != "--rpc-ssl-certificate" && args[0] != "--rpc-ssl-allow-any-cert"
		if verifying && c.Mode != httpd.TLSEnabled {
			t.Errorf("%v: mode %v, want enabled", args, c.Mode)
		}
		if verifying != (c.Config.ClientAuth != 0) {
			t.Errorf("%v: client auth %v", args, c.Config.ClientAuth)
		}
	}

	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("garbage"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rpc-ssl", "on"}, "invalid argument for --rpc-ssl"},
		{[]string{"--rpc-ssl-certificate", certFile}, "given together"},
		{[]string{"--rpc-ssl-private-key", keyFile}, "given together"},
		{[]string{"--rpc-ssl-certificate", certFile, "--rpc-ssl-private-key", key}, "does not match"},
		{[]string{"--rpc-ssl-certificate", filepath.Join(dir, "none.crt"), "--rpc-ssl-private-key", keyFile}, "no such file"},
		{[]string{"--rpc-ssl-ca-certificates", filepath.Join(dir, "none.pem")}, "no such file"},
		{[]string{"--rpc-ssl-ca-certificates", garbage}, "no PEM certificate"},
		{[]string{"--rpc-ssl-allowed-fingerprints", fp[:20]}, "32 bytes"},
		{[]string{"--rpc-ssl-allowed-fingerprints", "zz" + fp[2:]}, "not hexadecimal"},
		{[]string{"--rpc-ssl-allowed-fingerprints", fp, "--rpc-ssl", "autodetect"}, "contradicts"},
		{[]string{"--rpc-ssl-ca-certificates", crt, "--rpc-ssl", "disabled"}, "contradicts"},
		{[]string{"--rpc-ssl-allowed-fingerprints", fp, "--rpc-ssl-allow-any-cert"}, "contradicts"},
		{[]string{"--rpc-ssl-allow-chained"}, "needs --rpc-ssl-ca-certificates"},
		{[]string{"--rpc-ssl", "disabled", "--rpc-ssl-certificate", certFile, "--rpc-ssl-private-key", keyFile}, "nothing to apply to"},
	} {
		if _, err := config(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want an error saying %q", tc.args, err, tc.want)
		}
	}

	// Half a stored pair is refused, as monerod refuses it.
	half := filepath.Join(dir, "half")
	os.MkdirAll(half, 0o700)
	os.WriteFile(filepath.Join(half, "rpc_ssl.crt"), first, 0o600)
	if _, err := (&node.TLSConfig{}).Load(half, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil ||
		!strings.Contains(err.Error(), "must both exist") {
		t.Errorf("half a stored pair: %v", err)
	}
}
