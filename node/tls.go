package node

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gonero/gonero/httpd"
)

// sslBase is where a generated certificate is kept, as monerod keeps its
// own: rpc_ssl.crt and rpc_ssl.key in the network's directory.
func sslBase(netDir string) string { return filepath.Join(netDir, "rpc_ssl") }

// Load checks the settings and loads (or generates) what they name. As
// monerod (rpc_args.cpp do_process_ssl): allowed fingerprints or a CA file
// turn TLS on and make clients present a certificate;
// --rpc-ssl-allow-any-cert asks for none. Unlike monerod, contradicting
// flags are an error rather than one silently winning: --rpc-ssl other
// than enabled with fingerprints or a CA file (monerod enables TLS
// anyway), --rpc-ssl-allow-any-cert with either (monerod ignores them),
// --rpc-ssl-allow-chained without a CA file, and certificate flags with
// --rpc-ssl disabled. netDir is the network's data directory.
func (t *TLSConfig) Load(netDir string, log *slog.Logger) (*httpd.TLS, error) {
	given := t.Mode != ""
	modeText := t.Mode
	if !given {
		modeText = "autodetect"
	}
	mode, err := httpd.ParseTLSMode(modeText)
	if err != nil {
		return nil, fmt.Errorf("invalid argument for --rpc-ssl: %q (enabled, disabled or autodetect)", t.Mode)
	}
	var v httpd.ClientVerify
	for _, s := range t.AllowedFingerprints {
		fp, err := httpd.ParseFingerprint(s)
		if err != nil {
			return nil, fmt.Errorf("--rpc-ssl-allowed-fingerprints: %w", err)
		}
		v.Fingerprints = append(v.Fingerprints, fp)
	}
	verifying := len(v.Fingerprints) > 0 || t.CACertificates != ""
	switch {
	case t.AllowAnyCert && verifying:
		return nil, errors.New("--rpc-ssl-allow-any-cert contradicts --rpc-ssl-allowed-fingerprints and --rpc-ssl-ca-certificates (monerod would ignore them and let any client in)")
	case t.AllowChained && t.CACertificates == "":
		return nil, errors.New("--rpc-ssl-allow-chained needs --rpc-ssl-ca-certificates")
	case verifying && given && mode != httpd.TLSEnabled:
		return nil, fmt.Errorf("--rpc-ssl %s contradicts --rpc-ssl-allowed-fingerprints and --rpc-ssl-ca-certificates, which need TLS on every connection (--rpc-ssl enabled)", mode)
	case verifying:
		mode = httpd.TLSEnabled
	}
	if (t.PrivateKey == "") != (t.Certificate == "") {
		// monerod: "private key and certificate must be either both given or both empty"
		return nil, errors.New("--rpc-ssl-private-key and --rpc-ssl-certificate must be given together")
	}
	if mode == httpd.TLSDisabled {
		if t.PrivateKey != "" || t.AllowAnyCert || t.AllowChained {
			return nil, errors.New("--rpc-ssl disabled: the other --rpc-ssl-* flags have nothing to apply to")
		}
		return nil, nil
	}
	if t.CACertificates != "" {
		if v.CAs, err = httpd.LoadCAFile(t.CACertificates); err != nil {
			return nil, fmt.Errorf("--rpc-ssl-ca-certificates: %w", err)
		}
		v.AllowChained = t.AllowChained
	}
	var cert tls.Certificate
	if t.Certificate != "" {
		if cert, err = httpd.LoadKeyPair(t.Certificate, t.PrivateKey); err != nil {
			return nil, err
		}
	} else if cert, err = storedCertificate(sslBase(netDir), log); err != nil {
		return nil, err
	}
	if cert.Leaf != nil && time.Now().After(cert.Leaf.NotAfter) {
		log.Warn("RPC TLS certificate has expired (clients that check its dates will refuse it)", "not_after", cert.Leaf.NotAfter)
	}
	log.Info("RPC TLS", "mode", mode.String(), "SHA-256 Fingerprint", httpd.Fingerprint(cert.Certificate[0]),
		"client_certificates", len(v.Fingerprints) > 0 || v.CAs != nil)
	return &httpd.TLS{Mode: mode, Config: httpd.ServerTLSConfig(cert, v)}, nil
}

// storedCertificate loads base.crt and base.key, or generates both and
// writes them (monerod's core_rpc_server::init and store_ssl_keys): kept
// across restarts so that clients can pin the fingerprint. Only one of the
// two present is an error, as in monerod.
func storedCertificate(base string, log *slog.Logger) (tls.Certificate, error) {
	crt, key := base+".crt", base+".key"
	_, crtErr := os.Stat(crt)
	_, keyErr := os.Stat(key)
	switch {
	case crtErr == nil && keyErr == nil:
		return httpd.LoadKeyPair(crt, key)
	case crtErr == nil || keyErr == nil:
		return tls.Certificate{}, fmt.Errorf("certificate (.crt) and private key (.key) files must both exist or both not exist at path: %s", base)
	case !errors.Is(crtErr, os.ErrNotExist):
		return tls.Certificate{}, crtErr
	case !errors.Is(keyErr, os.ErrNotExist):
		return tls.Certificate{}, keyErr
	}
	log.Info("Generating SSL certificate", "file", crt)
	certPEM, keyPEM, err := httpd.GenerateCertificate()
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generating the RPC TLS certificate: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return tls.Certificate{}, err
	}
	// monerod's modes: the key readable by its owner alone, the
	// certificate by all.
	if err := os.WriteFile(key, keyPEM, 0o400); err != nil {
		return tls.Certificate{}, fmt.Errorf("storing the RPC TLS key: %w", err)
	}
	if err := os.WriteFile(crt, certPEM, 0o444); err != nil {
		_ = os.Remove(key)
		return tls.Certificate{}, fmt.Errorf("storing the RPC TLS certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, err
	}
	if cert.Leaf == nil {
		cert.Leaf, _ = x509.ParseCertificate(cert.Certificate[0])
	}
	return cert, nil
}
