package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/gonero/gonero/node"
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

// serverTLS is the node's TLS configuration from the flags: the mode only
// when --rpc-ssl was given (node.TLSConfig tells a given mode from its
// default).
func (t *tlsOptions) serverTLS() (node.TLSConfig, error) {
	c := node.TLSConfig{PrivateKey: t.privateKey, Certificate: t.certificate, CACertificates: t.caCertificates,
		AllowedFingerprints: t.allowedFingerprints, AllowChained: t.allowChained, AllowAnyCert: t.allowAnyCert}
	if t.changed("rpc-ssl") {
		if t.mode == "" {
			return c, fmt.Errorf("invalid argument for --rpc-ssl: %q (enabled, disabled or autodetect)", t.mode)
		}
		c.Mode = t.mode
	}
	return c, nil
}
