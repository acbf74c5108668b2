package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/gonero/gonero/httpd"
)

// tlsOptions are monerod's --rpc-ssl flags (src/rpc/rpc_args.cpp), with
// its names and defaults; both RPC listeners, main and restricted, use
// them (docs/tls.md).
type tlsOptions struct {
	mode                string
	privateKey          string
	certificate         string
	caCertificates      string
	allowedFingerprints []string
	allowChained        bool
	allowAnyCert        bool

	flags *pflag.FlagSet // to tell a flag given from its default
}

// tlsFlagHelp is the help of each --rpc-ssl flag, in tlsOptions' field
// order: the node's server side reads them one way, its operator commands
// (monerod's client side) another.
type tlsFlagHelp struct {
	mode, privateKey, certificate, caCertificates, allowedFingerprints, allowChained, allowAnyCert string
}

var (
	serverTLSHelp = tlsFlagHelp{
		mode:                "TLS on RPC connections: enabled|disabled|autodetect (autodetect: TLS and plain HTTP on one port)",
		privateKey:          "path to a PEM private key (unencrypted) for RPC TLS",
		certificate:         "path to a PEM certificate (chain) for RPC TLS; none: one is generated and kept in the data directory (rpc_ssl.crt, rpc_ssl.key)",
		caCertificates:      "path to concatenated PEM CA certificates: RPC clients must present a certificate they signed (implies --rpc-ssl enabled)",
		allowedFingerprints: "SHA-256 fingerprint of a client certificate to allow (repeatable; implies --rpc-ssl enabled)",
		allowChained:        "with --rpc-ssl-ca-certificates: allow client certificates signed through intermediate CAs",
		allowAnyCert:        "do not ask RPC clients for certificates",
	}
	clientTLSHelp = tlsFlagHelp{
		mode:                "TLS to the node: enabled|disabled|autodetect (autodetect: TLS first, whatever the certificate, then plain HTTP if the handshake fails)",
		privateKey:          "path to a PEM private key: a client certificate for a node that asks for one",
		certificate:         "path to the PEM client certificate of --rpc-ssl-private-key",
		caCertificates:      "path to concatenated PEM CA certificates the node's certificate must be signed by (implies TLS)",
		allowedFingerprints: "SHA-256 fingerprint of the node's certificate (repeatable; implies TLS)",
		allowChained:        "with --rpc-ssl-ca-certificates: allow the node's certificate through intermediate CAs",
		allowAnyCert:        "accept any certificate of the node",
	}
)

func (t *tlsOptions) addFlags(fs *pflag.FlagSet, help tlsFlagHelp) {
	t.flags = fs
	fs.StringVar(&t.mode, "rpc-ssl", "autodetect", help.mode)
	fs.StringVar(&t.privateKey, "rpc-ssl-private-key", "", help.privateKey)
	fs.StringVar(&t.certificate, "rpc-ssl-certificate", "", help.certificate)
	fs.StringVar(&t.caCertificates, "rpc-ssl-ca-certificates", "", help.caCertificates)
	fs.StringArrayVar(&t.allowedFingerprints, "rpc-ssl-allowed-fingerprints", nil, help.allowedFingerprints)
	fs.BoolVar(&t.allowChained, "rpc-ssl-allow-chained", false, help.allowChained)
	fs.BoolVar(&t.allowAnyCert, "rpc-ssl-allow-any-cert", false, help.allowAnyCert)
}

func (t *tlsOptions) changed(name string) bool {
	return t.flags != nil && t.flags.Changed(name)
}

// sslBase is where a generated certificate is kept, as monerod keeps its
// own: rpc_ssl.crt and rpc_ssl.key in the network's directory.
func sslBase(netDir string) string { return filepath.Join(netDir, "rpc_ssl") }

// config checks the flags and loads (or generates) what they name. As
// monerod (rpc_args.cpp do_process_ssl): allowed fingerprints or a CA file
// turn TLS on and make clients present a certificate;
// --rpc-ssl-allow-any-cert asks for none. Unlike monerod, contradicting
// flags are an error rather than one silently winning: --rpc-ssl other
// than enabled with fingerprints or a CA file (monerod enables TLS
// anyway), --rpc-ssl-allow-any-cert with either (monerod ignores them),
// --rpc-ssl-allow-chained without a CA file, and certificate flags with
// --rpc-ssl disabled. netDir is the network's data directory.
func (t *tlsOptions) config(netDir string, log *slog.Logger) (*httpd.TLS, error) {
	mode, err := httpd.ParseTLSMode(t.mode)
	if err != nil {
		return nil, fmt.Errorf("invalid argument for --rpc-ssl: %q (enabled, disabled or autodetect)", t.mode)
	}
	var v httpd.ClientVerify
	for _, s := range t.allowedFingerprints {
		fp, err := httpd.ParseFingerprint(s)
		if err != nil {
			return nil, fmt.Errorf("--rpc-ssl-allowed-fingerprints: %w", err)
		}
		v.Fingerprints = append(v.Fingerprints, fp)
	}
	verifying := len(v.Fingerprints) > 0 || t.caCertificates != ""
	switch {
	case t.allowAnyCert && verifying:
		return nil, errors.New("--rpc-ssl-allow-any-cert contradicts --rpc-ssl-allowed-fingerprints and --rpc-ssl-ca-certificates (monerod would ignore them and let any client in)")
	case t.allowChained && t.caCertificates == "":
		return nil, errors.New("--rpc-ssl-allow-chained needs --rpc-ssl-ca-certificates")
	case verifying && t.changed("rpc-ssl") && mode != httpd.TLSEnabled:
		return nil, fmt.Errorf("--rpc-ssl %s contradicts --rpc-ssl-allowed-fingerprints and --rpc-ssl-ca-certificates, which need TLS on every connection (--rpc-ssl enabled)", mode)
	case verifying:
		mode = httpd.TLSEnabled
	}
	if (t.privateKey == "") != (t.certificate == "") {
		// monerod: "private key and certificate must be either both given or both empty"
		return nil, errors.New("--rpc-ssl-private-key and --rpc-ssl-certificate must be given together")
	}
	if mode == httpd.TLSDisabled {
		if t.privateKey != "" || t.allowAnyCert || t.allowChained {
			return nil, errors.New("--rpc-ssl disabled: the other --rpc-ssl-* flags have nothing to apply to")
		}
		return nil, nil
	}
	if t.caCertificates != "" {
		if v.CAs, err = httpd.LoadCAFile(t.caCertificates); err != nil {
			return nil, fmt.Errorf("--rpc-ssl-ca-certificates: %w", err)
		}
		v.AllowChained = t.allowChained
	}
	var cert tls.Certificate
	if t.certificate != "" {
		if cert, err = httpd.LoadKeyPair(t.certificate, t.privateKey); err != nil {
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
