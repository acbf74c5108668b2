package httpd

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"
)

// FingerprintSize is epee's SSL_FINGERPRINT_SIZE: a SHA-256 digest of a
// certificate's DER encoding.
const FingerprintSize = sha256.Size

// ParseFingerprint reads one --rpc-ssl-allowed-fingerprints value the way
// monerod does (epee's from_hex_locale::to_vector, then rpc_args.cpp's
// size check): hex digits in either case, in pairs, with any spaces and
// colons between the pairs ignored ("AB:CD:..." as monero-gen-ssl-cert
// prints it, or plain "abcd..."), and exactly 32 bytes.
func ParseFingerprint(s string) ([FingerprintSize]byte, error) {
	var fp [FingerprintSize]byte
	skip := func(c byte) bool { return c == ':' || c == ' ' || (c >= '\t' && c <= '\r') }
	n := 0
	for _, c := range []byte(s) {
		if !skip(c) {
			n++
		}
	}
	if n%2 != 0 {
		return fp, fmt.Errorf("httpd: fingerprint %q: odd number of hex digits", s)
	}
	out := make([]byte, 0, n/2)
	for i := 0; i < len(s); {
		if skip(s[i]) {
			i++
			continue
		}
		// epee takes the next two characters as one byte: a separator
		// inside a pair is not a hex digit.
		if i+1 >= len(s) {
			return fp, fmt.Errorf("httpd: fingerprint %q: odd number of hex digits", s)
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return fp, fmt.Errorf("httpd: fingerprint %q: not hexadecimal", s)
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	if len(out) != FingerprintSize {
		// monerod: "SHA-256 fingerprint should be 32 bytes long."
		return fp, fmt.Errorf("httpd: fingerprint %q: SHA-256 fingerprint should be %d bytes long, not %d", s, FingerprintSize, len(out))
	}
	copy(fp[:], out)
	return fp, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Fingerprint is the SHA-256 fingerprint of a DER certificate as
// monero-gen-ssl-cert prints it ("AB:CD:..."), which ParseFingerprint
// (and monerod's, and the wallet's --daemon-ssl-allowed-fingerprints)
// reads back.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	var b strings.Builder
	for i, x := range sum {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02X", x)
	}
	return b.String()
}

// ClientVerify is how a server checks client certificates, monerod's
// --rpc-ssl-allowed-fingerprints, --rpc-ssl-ca-certificates and
// --rpc-ssl-allow-chained (epee's ssl_options_t::configure for a server).
// With neither fingerprints nor CAs no client certificate is asked for.
// Otherwise a client must present one, accepted when its SHA-256
// fingerprint is listed (whatever else is wrong with it, as in epee) or
// when it verifies against CAs: signed directly by one of them, or being
// one of them (epee's verify depth 0), or through the intermediates the
// client sends when AllowChained.
type ClientVerify struct {
	Fingerprints [][FingerprintSize]byte
	CAs          *x509.CertPool
	AllowChained bool
}

// ServerTLSConfig is monerod's server context (ssl_options_t::
// create_context): TLS 1.2 and up, its TLS 1.2 cipher suites (ECDHE with
// AEAD only), no session resumption (SSL_SESS_CACHE_OFF,
// SSL_OP_NO_TICKET), no renegotiation, and the client check of v.
func ServerTLSConfig(cert tls.Certificate, v ClientVerify) *tls.Config {
	c := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		},
		SessionTicketsDisabled: true,
		Renegotiation:          tls.RenegotiateNever,
	}
	if len(v.Fingerprints) == 0 && v.CAs == nil {
		c.ClientAuth = tls.NoClientCert
		return c
	}
	c.ClientAuth = tls.RequireAnyClientCert
	c.VerifyPeerCertificate = v.verifier(x509.ExtKeyUsageClientAuth, "client")
	return c
}

// verifier checks a peer's certificate chain (raw, leaf first) as epee
// does when fingerprints or CAs are given: its leaf's fingerprint listed,
// or the leaf verified against the CAs for usage (see ClientVerify).
func (v ClientVerify) verifier(usage x509.ExtKeyUsage, who string) func([][]byte, [][]*x509.Certificate) error {
	allowed := make(map[[FingerprintSize]byte]bool, len(v.Fingerprints))
	for _, fp := range v.Fingerprints {
		allowed[fp] = true
	}
	cas, chained := v.CAs, v.AllowChained
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return fmt.Errorf("httpd: no %s certificate", who)
		}
		if allowed[sha256.Sum256(raw[0])] {
			return nil
		}
		if cas != nil {
			leaf, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return fmt.Errorf("httpd: %s certificate: %w", who, err)
			}
			opts := x509.VerifyOptions{Roots: cas, KeyUsages: []x509.ExtKeyUsage{usage}}
			if chained {
				opts.Intermediates = x509.NewCertPool()
				for _, r := range raw[1:] {
					if ic, err := x509.ParseCertificate(r); err == nil {
						opts.Intermediates.AddCert(ic)
					}
				}
			}
			chains, err := leaf.Verify(opts)
			if err == nil {
				for _, ch := range chains {
					if chained || len(ch) <= 2 {
						return nil
					}
				}
			}
		}
		// epee: "SSL certificate is not in the allowed list, connection dropped"
		return fmt.Errorf("httpd: %s certificate is not in the allowed list", who)
	}
}

// ServerCheck is how a client of an RPC server checks the server's
// certificate, as monerod's own clients do (rpc_args::process_ssl with
// any_cert_option, epee's ssl_options_t::configure for a client):
//   - AllowAny: not at all (--rpc-ssl-allow-any-cert);
//   - fingerprints or CAs: as ClientVerify checks a client, and TLS is
//     required;
//   - otherwise the system's CAs and the host name (an IP address: its
//     IP SANs), which in autodetect are not required: epee only logs "SSL
//     peer has not been verified" and the connection goes on encrypted.
//
// Cert, if set, is presented to a server that asks for one.
type ServerCheck struct {
	AllowAny bool
	Verify   ClientVerify
	Cert     *tls.Certificate
}

// ClientTLSConfig is the client side of chk for a server at host.
func ClientTLSConfig(host string, chk ServerCheck, autodetect bool) *tls.Config {
	c := &tls.Config{
		ServerName:             host,
		MinVersion:             tls.VersionTLS12,
		SessionTicketsDisabled: true,
		Renegotiation:          tls.RenegotiateNever,
	}
	if chk.Cert != nil {
		c.Certificates = []tls.Certificate{*chk.Cert}
	}
	switch {
	case chk.AllowAny:
		c.InsecureSkipVerify = true
	case len(chk.Verify.Fingerprints) > 0 || chk.Verify.CAs != nil:
		c.InsecureSkipVerify = true // checked below, as epee does
		c.VerifyPeerCertificate = chk.Verify.verifier(x509.ExtKeyUsageServerAuth, "server")
	case autodetect:
		c.InsecureSkipVerify = true
	}
	return c
}

// LoadKeyPair loads a PEM certificate (chain) and its unencrypted PEM
// private key (--rpc-ssl-certificate, --rpc-ssl-private-key), saying which
// file is wrong: missing, unreadable, not PEM, encrypted (monerod would
// prompt for a passphrase; a daemon has no one to ask), or a key that is
// not the certificate's.
func LoadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("httpd: certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("httpd: private key: %w", err)
	}
	if blk, _ := pem.Decode(certPEM); blk == nil || blk.Type != "CERTIFICATE" {
		return tls.Certificate{}, fmt.Errorf("httpd: certificate %s: no PEM certificate in it", certFile)
	}
	blk, _ := pem.Decode(keyPEM)
	if blk == nil || !strings.HasSuffix(blk.Type, "PRIVATE KEY") {
		return tls.Certificate{}, fmt.Errorf("httpd: private key %s: no PEM private key in it", keyFile)
	}
	if blk.Type == "ENCRYPTED PRIVATE KEY" || blk.Headers["Proc-Type"] != "" {
		return tls.Certificate{}, fmt.Errorf("httpd: private key %s is encrypted; give an unencrypted key", keyFile)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("httpd: certificate %s with private key %s: %w", certFile, keyFile, err)
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return tls.Certificate{}, fmt.Errorf("httpd: certificate %s: %w", certFile, err)
		}
	}
	return cert, nil
}

// LoadCAFile reads --rpc-ssl-ca-certificates: concatenated PEM
// certificates, at least one, all of them readable.
func LoadCAFile(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("httpd: CA certificates: %w", err)
	}
	pool := x509.NewCertPool()
	n := 0
	for rest := data; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			if n > 0 && len(bytes.TrimSpace(rest)) > 0 {
				return nil, fmt.Errorf("httpd: CA certificates %s: text after certificate %d is not PEM", path, n)
			}
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("httpd: CA certificates %s: certificate %d: %w", path, n+1, err)
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("httpd: CA certificates %s: no PEM certificate in it", path)
	}
	return pool, nil
}

// GeneratedCertValidity is how long a generated certificate is valid:
// epee's create_rsa_ssl_certificate, "half a year".
const GeneratedCertValidity = 182 * 24 * time.Hour

// GenerateCertificate makes a self-signed certificate for a server given
// none, as epee's create_rsa_ssl_certificate does (empty subject and
// issuer, valid from now for GeneratedCertValidity, signed with SHA-256),
// but with an ECDSA P-256 key instead of RSA 4096: a TLS handshake costs
// the server one signature, about 7 ms of CPU with a 4096-bit RSA key in Go
// (1.5 ms in monerod's OpenSSL) and 0.02 ms with P-256, and generating the
// RSA key takes about a second (docs/tls.md §5). It returns the PEM certificate and PEM
// (PKCS #8) key.
func GenerateCertificate() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial.Add(serial, big.NewInt(1)),
		NotBefore:    now.Add(-time.Minute), // a client's clock a little behind
		NotAfter:     now.Add(GeneratedCertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), nil
}
