package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/monerodlab"
)

// TLS on the RPC (docs/tls.md), checked with the reference wallet and
// against monerod 0.18.5.3 started with the same flags.

// pemCert is a test certificate and its key, written to files.
type pemCert struct {
	crt, key string // file paths
	x509     *x509.Certificate
	priv     *ecdsa.PrivateKey
	tls      tls.Certificate
}

func (c *pemCert) fingerprint() string { return httpd.Fingerprint(c.x509.Raw) }

// makeCert writes a certificate for usage signed by ca (nil: self-signed;
// isCA: a CA) to dir/name.crt and dir/name.key.
func makeCert(t *testing.T, dir, name string, isCA bool, usage x509.ExtKeyUsage, ca *pemCert) *pemCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.ExtKeyUsage, tmpl.IPAddresses = nil, nil
	}
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca.x509, ca.priv
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := x509.MarshalPKCS8PrivateKey(key)
	c := &pemCert{crt: filepath.Join(dir, name+".crt"), key: filepath.Join(dir, name+".key"), priv: key}
	c.x509, _ = x509.ParseCertificate(der)
	c.tls = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	if err := os.WriteFile(c.crt, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// tlsClient is an HTTPS client that takes any server certificate and
// presents cert (unless nil), one connection per request.
func tlsClient(cert *pemCert) *http.Client {
	tc := &tls.Config{InsecureSkipVerify: true}
	if cert != nil {
		tc.Certificates = []tls.Certificate{cert.tls}
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tc, DisableKeepAlives: true}}
}

var plainClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// served asks /get_height at url with c: "served" when the answer is
// monerod's OK, else what went wrong.
func served(c *http.Client, url string) string {
	resp, err := c.Post(url+"/get_height", "application/json", nil)
	if err != nil {
		return "refused"
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 200 && bytes.Contains(b, []byte(`"OK"`)) {
		return "served"
	}
	return "answered " + resp.Status
}

// startGonerodWith starts gonerod with args on data (a regtest chain or
// empty) and waits until probe reaches its RPC at scheme.
func startGonerodWith(t *testing.T, bin, data string, probe *http.Client, scheme string, extra ...string) *gonerod {
	t.Helper()
	g := &gonerod{rpcPort: freePort(t), p2pPort: freePort(t), client: probe}
	exited, _ := launchGonerod(t, g, bin, append([]string{"--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", data, "--log-level", "debug",
		"--rpc-bind-port", strconv.Itoa(g.rpcPort), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(g.p2pPort)}, extra...))
	url := scheme + "://127.0.0.1:" + strconv.Itoa(g.rpcPort)
	waitFor(t, 30*time.Second, "gonerod's RPC", func() bool {
		select {
		case <-exited:
			log, _ := os.ReadFile(g.logPath)
			t.Fatalf("gonerod exited:\n%s", log)
		default:
		}
		return served(probe, url) == "served"
	})
	return g
}

// setDaemon points wallet w at the daemon on port with the TLS settings
// of ssl (monero-wallet-rpc's set_daemon).
func setDaemon(t *testing.T, w *monerodlab.WalletRPC, port int, ssl map[string]any) {
	t.Helper()
	params := map[string]any{"address": "127.0.0.1:" + strconv.Itoa(port), "trusted": true}
	for k, v := range ssl {
		params[k] = v
	}
	if err := w.Call("set_daemon", params, nil); err != nil {
		t.Fatalf("set_daemon %v: %v", ssl, err)
	}
}

// TestTLSWalletMatchesMonerod: the reference wallet reaches gonerod over
// TLS the ways it reaches monerod: --daemon-ssl enabled taking any
// certificate, pinning gonerod's certificate by fingerprint, and checking
// it against a CA; in each it refreshes and pays. A wrong pinned
// fingerprint is refused by the wallet, for gonerod as for monerod. Then
// the other way round: gonerod and monerod with
// --rpc-ssl-allowed-fingerprints let in the client whose certificate is
// listed and refuse another, wallet or not.
func TestTLSWalletMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := inProcess
	dir := t.TempDir()
	ca := makeCert(t, dir, "ca", true, 0, nil)
	server := makeCert(t, dir, "server", false, x509.ExtKeyUsageServerAuth, ca)
	certFlags := []string{"--rpc-ssl", "enabled", "--rpc-ssl-certificate", server.crt, "--rpc-ssl-private-key", server.key}

	g := startGonerodWith(t, bin, importChain(t, bin, fresh), tlsClient(nil), "https", certFlags...)
	m := lab.StartMonerodTLS(t, fresh.NodeDir, &tls.Config{InsecureSkipVerify: true}, certFlags...)
	gURL := "https://127.0.0.1:" + strconv.Itoa(g.rpcPort)

	// The wallet opens alice in --daemon-ssl autodetect (the default),
	// which keeps TLS with a certificate it cannot verify.
	w := lab.OpenWallet(t, fresh, "alice", g.rpcPort)
	var paid []string
	pay := func(t *testing.T) {
		t.Helper()
		var r struct {
			Hash string `json:"tx_hash"`
		}
		if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 100_000_000_000, "address": monerodlab.AliceSubaddress}},
			"account_index": 0, "priority": 0}, &r); err != nil {
			t.Fatalf("transfer through gonerod: %v", err)
		}
		paid = append(paid, r.Hash)
		var pool struct {
			Hashes []string `json:"tx_hashes"`
		}
		body, err := tlsPost(gURL+"/get_transaction_pool_hashes", "{}")
		if err != nil || json.Unmarshal(body, &pool) != nil || !slices.Contains(pool.Hashes, r.Hash) {
			t.Fatalf("tx %s not in gonerod's pool: %s %v", r.Hash, body, err)
		}
	}
	refresh := func(port int, ssl map[string]any) error {
		setDaemon(t, w, port, ssl)
		return w.Call("refresh", struct{}{}, nil)
	}
	for _, tc := range []struct {
		name string
		ssl  map[string]any
	}{
		{"daemon-ssl enabled, any certificate", map[string]any{"ssl_support": "enabled", "ssl_allow_any_cert": true}},
		{"pinned fingerprint", map[string]any{"ssl_support": "enabled", "ssl_allowed_fingerprints": []string{server.fingerprint()}}},
		{"pinned fingerprint, monerod's hex form", map[string]any{"ssl_support": "enabled",
			"ssl_allowed_fingerprints": []string{strings.ToLower(strings.ReplaceAll(server.fingerprint(), ":", ""))}}},
		{"CA", map[string]any{"ssl_support": "enabled", "ssl_ca_file": ca.crt}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := refresh(m.RPCPort, tc.ssl); err != nil {
				t.Fatalf("monerod: %v", err)
			}
			if err := refresh(g.rpcPort, tc.ssl); err != nil {
				t.Fatalf("gonerod: %v", err)
			}
			pay(t)
			if err := w.Call("refresh", struct{}{}, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("wrong fingerprint refused by the wallet", func(t *testing.T) {
		wrong := map[string]any{"ssl_support": "enabled", "ssl_allowed_fingerprints": []string{httpd.Fingerprint([]byte("not the server"))}}
		gErr, mErr := refresh(g.rpcPort, wrong), refresh(m.RPCPort, wrong)
		if gErr == nil || mErr == nil {
			t.Fatalf("a wrong pinned fingerprint: gonerod %v, monerod %v; want both refused", gErr, mErr)
		}
		t.Logf("refused: gonerod %v; monerod %v", gErr, mErr)
	})
	t.Logf("paid through gonerod over TLS: %v", paid)

	// Client certificates: gonerod and monerod allowing one fingerprint.
	allowed := makeCert(t, dir, "allowed", false, x509.ExtKeyUsageClientAuth, nil)
	other := makeCert(t, dir, "other", false, x509.ExtKeyUsageClientAuth, nil)
	pin := []string{"--rpc-ssl-allowed-fingerprints", allowed.fingerprint()}
	g2 := startGonerodWith(t, bin, importChain(t, bin, fresh), tlsClient(allowed), "https", pin...)
	m2 := lab.StartMonerodTLS(t, fresh.NodeDir, &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{allowed.tls}}, pin...)
	for _, tc := range []struct {
		name string
		cert *pemCert
		want string
	}{{"allowed", allowed, "served"}, {"other", other, "refused"}, {"none", nil, "refused"}} {
		gGot := served(tlsClient(tc.cert), "https://127.0.0.1:"+strconv.Itoa(g2.rpcPort))
		mGot := served(tlsClient(tc.cert), "https://127.0.0.1:"+strconv.Itoa(m2.RPCPort))
		if gGot != tc.want || mGot != tc.want {
			t.Errorf("client certificate %s: gonerod %s, monerod %s; want %s", tc.name, gGot, mGot, tc.want)
		}
	}
	if gGot, mGot := served(plainClient, "http://127.0.0.1:"+strconv.Itoa(g2.rpcPort)), served(plainClient, "http://127.0.0.1:"+strconv.Itoa(m2.RPCPort)); gGot != "refused" || mGot != "refused" {
		t.Errorf("plain HTTP where client certificates are asked for: gonerod %s, monerod %s; want refused", gGot, mGot)
	}
	t.Run("wallet client certificate", func(t *testing.T) {
		for _, port := range []int{g2.rpcPort, m2.RPCPort} {
			who := map[int]string{g2.rpcPort: "gonerod", m2.RPCPort: "monerod"}[port]
			if err := refresh(port, map[string]any{"ssl_support": "enabled", "ssl_allow_any_cert": true,
				"ssl_certificate_path": allowed.crt, "ssl_private_key_path": allowed.key}); err != nil {
				t.Errorf("%s: wallet with the allowed certificate: %v", who, err)
			}
			if err := refresh(port, map[string]any{"ssl_support": "enabled", "ssl_allow_any_cert": true,
				"ssl_certificate_path": other.crt, "ssl_private_key_path": other.key}); err == nil {
				t.Errorf("%s: wallet with another certificate was let in", who)
			}
		}
	})
}

func tlsPost(url, body string) ([]byte, error) {
	resp, err := tlsClient(nil).Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// TestTLSModesMatchMonerod: --rpc-ssl autodetect serves a TLS client and
// a plain one on the same port, enabled refuses plain HTTP, disabled
// refuses TLS; on the main and the restricted listener; gonerod and
// monerod started with the same flags answer alike. A generated
// certificate is kept where monerod keeps its own and serves again after
// a restart.
func TestTLSModesMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	bin := inProcess
	want := map[string][2]string{ // mode: TLS client, plain client
		"autodetect": {"served", "served"},
		"enabled":    {"served", "refused"},
		"disabled":   {"refused", "served"},
	}
	for _, mode := range []string{"autodetect", "enabled", "disabled"} {
		t.Run(mode, func(t *testing.T) {
			gRestricted, mRestricted := freePort(t), freePort(t)
			probe, scheme := plainClient, "http"
			var probeTLS *tls.Config
			if mode == "enabled" {
				probe, scheme, probeTLS = tlsClient(nil), "https", &tls.Config{InsecureSkipVerify: true}
			}
			data := t.TempDir()
			g := startGonerodWith(t, bin, data, probe, scheme, "--rpc-ssl", mode, "--rpc-restricted-bind-port", strconv.Itoa(gRestricted))
			m := lab.StartMonerodTLS(t, "", probeTLS, "--rpc-ssl", mode, "--rpc-restricted-bind-port", strconv.Itoa(mRestricted))
			for _, l := range []struct {
				name   string
				gp, mp int
			}{{"main", g.rpcPort, m.RPCPort}, {"restricted", gRestricted, mRestricted}} {
				for i, c := range []struct {
					scheme string
					client *http.Client
				}{{"https", tlsClient(nil)}, {"http", plainClient}} {
					start := time.Now()
					gGot := served(c.client, fmt.Sprintf("%s://127.0.0.1:%d", c.scheme, l.gp))
					gTook := time.Since(start)
					start = time.Now()
					mGot := served(c.client, fmt.Sprintf("%s://127.0.0.1:%d", c.scheme, l.mp))
					mTook := time.Since(start)
					if gGot != want[mode][i] || mGot != want[mode][i] {
						t.Errorf("%s listener, %s client: gonerod %s, monerod %s; want %s", l.name, c.scheme, gGot, mGot, want[mode][i])
					}
					t.Logf("%s listener, %s client: gonerod %s in %v, monerod %s in %v", l.name, c.scheme, gGot, gTook.Round(time.Millisecond), mGot, mTook.Round(time.Millisecond))
				}
			}
			// Where each keeps its generated certificate.
			for who, p := range map[string]string{"gonerod": filepath.Join(data, "fake", "rpc_ssl.crt"), "monerod": filepath.Join(m.DataDir, "fake", "rpc_ssl.crt")} {
				_, err := os.Stat(p)
				if (mode == "disabled") != (err != nil) {
					t.Errorf("%s, --rpc-ssl %s: %s: %v", who, mode, p, err)
				}
			}
			if mode == "autodetect" {
				// the fingerprint in the log is the certificate served
				conn, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(g.rpcPort), &tls.Config{InsecureSkipVerify: true})
				if err != nil {
					t.Fatal(err)
				}
				fp := httpd.Fingerprint(conn.ConnectionState().PeerCertificates[0].Raw)
				conn.Close()
				log, _ := os.ReadFile(g.logPath)
				if !bytes.Contains(log, []byte(fp)) {
					t.Errorf("gonerod's log does not name the served certificate's fingerprint %s", fp)
				}
				if stored := httpd.Fingerprint(readPEMCert(t, filepath.Join(data, "fake", "rpc_ssl.crt"))); stored != fp {
					t.Errorf("served certificate %s is not the stored one %s", fp, stored)
				}
			}
		})
	}
}

func readPEMCert(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s: no PEM", path)
	}
	return blk.Bytes
}

// TestTLSStartErrors: gonerod refuses to start on bad TLS input, saying
// why, instead of serving without it.
func TestTLSStartErrors(t *testing.T) {
	t.Parallel()
	bin := buildGonerod(t)
	dir := t.TempDir()
	a := makeCert(t, dir, "a", false, x509.ExtKeyUsageServerAuth, nil)
	b := makeCert(t, dir, "b", false, x509.ExtKeyUsageServerAuth, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rpc-ssl-certificate", a.crt, "--rpc-ssl-private-key", b.key}, "does not match"},
		{[]string{"--rpc-ssl-certificate", filepath.Join(dir, "none.crt"), "--rpc-ssl-private-key", a.key}, "no such file"},
		{[]string{"--rpc-ssl-ca-certificates", a.key}, "no PEM certificate"},
		{[]string{"--rpc-ssl-allowed-fingerprints", "00:11"}, "32 bytes"},
		{[]string{"--rpc-ssl", "yes"}, "--rpc-ssl"},
	} {
		args := append([]string{"--regtest", "--offline", "--data-dir", t.TempDir(), "--rpc-bind-port", strconv.Itoa(freePort(t)),
			"--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(freePort(t))}, tc.args...)
		cmd := exec.Command(bin, withZMQRPCPort(t, args)...)
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("%v: gonerod started", tc.args)
		}
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v\n%s\nwant an error saying %q", tc.args, err, out, tc.want)
		}
	}
}
