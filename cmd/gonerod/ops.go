package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gonero/gonero/daemonctl"
	"github.com/gonero/gonero/httpd"
)

// opsOptions are the flags of monerod's client mode: where the running
// daemon's RPC listens and how to log in.
type opsOptions struct {
	rpcBindIP   string
	rpcBindPort string
	rpcLogin    string

	// monerod's client reads the --rpc-ssl flags too (rpc_args::
	// process_ssl(vm, true)), as how to reach the daemon.
	ssl tlsOptions
}

// addOperatorCommands adds monerod's operator commands (`gonerod status`,
// `gonerod print_block 5`, ...): each sends its request to a running
// gonerod (or monerod) over RPC and prints the answer as monerod does.
func addOperatorCommands(root *cobra.Command, o *options) {
	for _, name := range daemonctl.Names() {
		oo := &opsOptions{}
		cmd := &cobra.Command{
			Use:   daemonctl.Usage(name),
			Short: "operator command: ask a running node over RPC (monerod's " + name + ")",
			// monerod's parser checks the arguments and prints its own usage text.
			Args: cobra.ArbitraryArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				code, err := runOperatorCommand(o, oo, append([]string{name}, args...), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				if code != 0 {
					os.Exit(code)
				}
				return nil
			},
		}
		f := cmd.Flags()
		f.StringVar(&oo.rpcBindIP, "rpc-bind-ip", "127.0.0.1", "IP of the node's RPC server")
		f.StringVar(&oo.rpcBindPort, "rpc-bind-port", "", "RPC port (default: the network's, 18081 mainnet and regtest, 28081 testnet, 38081 stagenet)")
		f.StringVar(&oo.rpcLogin, "rpc-login", "", "user[:password] for the node's digest authentication (or RPC_LOGIN); the password is asked for when missing")
		oo.ssl.addFlags(f, clientTLSHelp)
		root.AddCommand(cmd)
	}
}

func runOperatorCommand(o *options, oo *opsOptions, command []string, in io.Reader, out, errOut io.Writer) (int, error) {
	net, err := o.network()
	if err != nil {
		return 1, err
	}
	port := oo.rpcBindPort
	if port == "" {
		port = strconv.Itoa(int(net.RPCPort()))
	}
	ip, err := netip.ParseAddr(oo.rpcBindIP)
	if err != nil || !ip.Is4() {
		// monerod's client takes IPv4 only (get_ip_int32_from_string).
		fmt.Fprintln(errOut, "Invalid IP: "+oo.rpcBindIP)
		return 1, nil
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		fmt.Fprintln(errOut, "Invalid port: "+port)
		return 1, nil
	}
	color := false
	if f, ok := out.(*os.File); ok {
		color = term.IsTerminal(int(f.Fd()))
	}
	client := &daemonctl.HTTPClient{Host: ip.String(), Port: port}
	ctl := &daemonctl.Ctl{C: client, Out: out, Color: color, Banner: "gonero (v" + Version + ")"}
	if client.TLS, client.TLSFallback, err = oo.clientTLS(ip.String()); err != nil {
		// monerod logs these (MERROR, on stdout) and exits with 1.
		ctl.LogError(err.Error())
		return 1, nil
	}
	login := oo.rpcLogin
	if login == "" {
		login = os.Getenv("RPC_LOGIN")
	}
	if login != "" {
		l, ok := parseLogin(login, in, errOut)
		if !ok {
			fmt.Fprintln(errOut, "Failed to obtain password")
			return 1, nil
		}
		client.Login = l
	}
	return ctl.Run(command, errOut), nil
}

// clientTLS is monerod's client side of --rpc-ssl (rpc_args.cpp
// do_process_ssl with any_cert_option): fingerprints or a CA file require
// TLS and check the node's certificate against them; otherwise enabled
// checks it against the system's CAs, and autodetect takes any (monerod
// logs "SSL peer has not been verified" in its net.ssl category, which its
// client mode does not show) and falls back to plain HTTP when the
// handshake fails. nil: plain HTTP.
func (oo *opsOptions) clientTLS(host string) (*tls.Config, bool, error) {
	mode, err := httpd.ParseTLSMode(oo.ssl.mode)
	if err != nil {
		//lint:ignore ST1005 monerod's words, logged as they are
		return nil, false, errors.New("Invalid argument for rpc-ssl")
	}
	var chk httpd.ServerCheck
	chk.AllowAny = oo.ssl.allowAnyCert
	if !chk.AllowAny {
		for _, s := range oo.ssl.allowedFingerprints {
			fp, err := httpd.ParseFingerprint(s)
			if err != nil {
				//lint:ignore ST1005 monerod's words, logged as they are
				return nil, false, fmt.Errorf("SHA-256 fingerprint should be %d bytes long.", httpd.FingerprintSize)
			}
			chk.Verify.Fingerprints = append(chk.Verify.Fingerprints, fp)
		}
		if oo.ssl.caCertificates != "" {
			if chk.Verify.CAs, err = httpd.LoadCAFile(oo.ssl.caCertificates); err != nil {
				return nil, false, fmt.Errorf("--rpc-ssl-ca-certificates: %w", err)
			}
		}
		chk.Verify.AllowChained = oo.ssl.allowChained
		if len(chk.Verify.Fingerprints) > 0 || chk.Verify.CAs != nil {
			mode = httpd.TLSEnabled // "user specified CA file or fingerprints implies enabled SSL"
		}
	}
	if oo.ssl.privateKey != "" || oo.ssl.certificate != "" {
		if oo.ssl.privateKey == "" || oo.ssl.certificate == "" {
			return nil, false, errors.New("--rpc-ssl-private-key and --rpc-ssl-certificate go together")
		}
		cert, err := httpd.LoadKeyPair(oo.ssl.certificate, oo.ssl.privateKey)
		if err != nil {
			return nil, false, err
		}
		chk.Cert = &cert
	}
	if mode == httpd.TLSDisabled {
		return nil, false, nil
	}
	autodetect := mode == httpd.TLSAutodetect
	return httpd.ClientTLSConfig(host, chk, autodetect), autodetect, nil
}

// parseLogin is tools::login::parse: "user:password", or "user" and the
// password asked for. Like monerod, the prompt (without echo) appears only
// on a terminal; otherwise one line of stdin is the password (none: empty).
func parseLogin(s string, in io.Reader, errOut io.Writer) (*daemonctl.Login, bool) {
	user, pass, ok := strings.Cut(s, ":")
	if ok {
		return &daemonctl.Login{User: user, Password: pass}, true
	}
	if f, isFile := in.(*os.File); isFile && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(errOut, "Daemon client password: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(errOut)
		if err != nil {
			return nil, false
		}
		return &daemonctl.Login{User: user, Password: string(b)}, true
	}
	line, err := bufio.NewReader(io.LimitReader(in, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, false
	}
	return &daemonctl.Login{User: user, Password: strings.TrimRight(line, "\r\n")}, true
}

// unknownOperatorCommand answers a command gonerod does not implement as
// monerod does: the command list on stdout, "Unknown command" on stderr.
func unknownOperatorCommand(args []string, out, errOut io.Writer) int {
	ctl := &daemonctl.Ctl{Out: out, Banner: "gonero (v" + Version + ")"}
	return ctl.Run(args, errOut)
}
