package daemonctl

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Ctl runs operator commands against a daemon.
type Ctl struct {
	C     Client
	Out   io.Writer // monerod's std::cout
	Color bool      // colour as monerod does when stdout is a terminal
	// Now is the clock for "N seconds ago" and uptimes (nil: time.Now).
	Now func() time.Time
	// Banner is the program and version the help listing starts with.
	Banner string
}

const (
	colorReset = "\033[0m"
	colorGreen = "\033[0;32m"
	colorRed   = "\033[1;31m" // fail_msg_writer is bright red
)

func (x *Ctl) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}

func (x *Ctl) write(color, s string) {
	if x.Color && color != "" {
		fmt.Fprint(x.Out, color+s+colorReset+"\n")
		return
	}
	fmt.Fprint(x.Out, s+"\n")
}

// success is tools::success_msg_writer (green on a terminal).
func (x *Ctl) success(s string) { x.write(colorGreen, s) }

// msg is tools::msg_writer (no colour).
func (x *Ctl) msg(s string) { x.write("", s) }

// fail is tools::fail_msg_writer ("Error: ", bright red on a terminal).
func (x *Ctl) fail(s string) { x.write(colorRed, "Error: "+s) }

// logError is monerod's MERROR to the console: a log line with a
// timestamp, which monerod's logger writes to stdout. monerod's logger
// colours it even when stdout is not a terminal; gonerod only on one.
func (x *Ctl) logError(s string) {
	ts := x.now().Format("2006-01-02 15:04:05.000")
	if x.Color {
		fmt.Fprint(x.Out, "\033[0;31m"+ts+"\tE \033[0;31m"+s+"\n"+colorReset)
		return
	}
	fmt.Fprint(x.Out, ts+"\tE "+s+"\n")
}

// LogError is logError for the command line's own errors (monerod's
// MERROR before any command runs, e.g. "Invalid argument for rpc-ssl").
func (x *Ctl) LogError(s string) { x.logError(s) }

// invalid is the parser's "Invalid syntax: ..." line.
func (x *Ctl) invalid(what string) {
	x.msg("Invalid syntax: " + what + ". For more details, use the help command.")
}

// statusOf is an answer's status field.
type statusOf interface{ status() string }

type rpcStatus struct {
	Status string `json:"status"`
}

func (s *rpcStatus) status() string { return s.Status }

// path is t_rpc_client::rpc_request: an unreachable daemon, a failed
// request or a status other than OK print monerod's message and report
// false. monerod spells this one "<fail>-- rpc_request: <status>" with no
// space before the dashes (json_rpc_request has one).
func (x *Ctl) path(path string, req any, res statusOf, fail string) bool {
	if err := x.C.Path(path, req, res); err != nil {
		if errors.Is(err, ErrConnect) {
			x.fail("Couldn't connect to daemon: " + x.C.Addr())
			return false
		}
		x.fail(fail + "-- rpc_request: ")
		return false
	}
	if res.status() != "OK" {
		x.fail(fail + "-- rpc_request: " + res.status())
		return false
	}
	return true
}

// method is t_rpc_client::json_rpc_request. A JSON-RPC error leaves the
// status empty, so monerod prints nothing after the colon.
func (x *Ctl) method(method string, params any, res statusOf, fail string) bool {
	if err := x.C.Method(method, params, res); err != nil {
		if errors.Is(err, ErrConnect) {
			x.fail("Couldn't connect to daemon: " + x.C.Addr())
			return false
		}
		x.fail(fail + " -- json_rpc_request: ")
		return false
	}
	if res.status() != "OK" {
		x.fail(fail + " -- json_rpc_request: " + res.status())
		return false
	}
	return true
}

// command is one entry of monerod's command table.
type command struct {
	usage string // monerod's usage string (the name when it has none)
	run   func(x *Ctl, args []string) bool
}

// commands are the operator commands gonerod implements, with monerod's
// usage strings (command_server.cpp).
var commands = map[string]command{
	"status":           {"status", (*Ctl).Status},
	"sync_info":        {"sync_info", (*Ctl).SyncInfo},
	"print_cn":         {"print_cn", (*Ctl).PrintCN},
	"print_height":     {"print_height", (*Ctl).PrintHeight},
	"print_pool":       {"print_pool", (*Ctl).PrintPool},
	"print_pool_stats": {"print_pool_stats", (*Ctl).PrintPoolStats},
	"print_block":      {"print_block <block_hash> | <block_height>", (*Ctl).PrintBlock},
	"print_tx":         {"print_tx <transaction_hash> [+hex] [+json]", (*Ctl).PrintTx},
	"print_net_stats":  {"print_net_stats", (*Ctl).PrintNetStats},
	"hard_fork_info":   {"hard_fork_info <version>", (*Ctl).HardForkInfo},
	"bans":             {"bans", (*Ctl).Bans},
	"ban":              {"ban [<IP>|@<filename>] [<seconds>]", (*Ctl).Ban},
	"unban":            {"unban <address>", (*Ctl).Unban},
	"flush_txpool":     {"flush_txpool [<txid>]", (*Ctl).FlushTxpool},
	"diff":             {"diff", (*Ctl).Diff},
	"mining_status":    {"mining_status", (*Ctl).MiningStatus},
	"start_mining":     {"start_mining <addr> [<threads>|auto] [do_background_mining] [ignore_battery]", (*Ctl).StartMining},
	"stop_mining":      {"stop_mining", (*Ctl).StopMining},
	"pop_blocks":       {"pop_blocks <nblocks>", (*Ctl).PopBlocks},
	"exit":             {"exit", (*Ctl).StopDaemon},
	"stop_daemon":      {"stop_daemon", (*Ctl).StopDaemon},
}

// Names lists the commands, sorted.
func Names() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Usage is a command's monerod usage string ("" for an unknown command).
func Usage(name string) string { return commands[name].usage }

// Run runs cmd (name and arguments) as monerod's client mode does and
// returns its exit code: 0 whenever the command ran, even when the daemon
// could not be reached or refused (monerod's handlers report those as
// handled; surprising for scripts, but it is monerod's behaviour). An
// unknown command prints the command list to Out and "Unknown command: X"
// to errOut and returns 1, as monerod's main does when a handler returns
// false.
func (x *Ctl) Run(cmd []string, errOut io.Writer) int {
	if len(cmd) == 0 || (len(cmd) == 1 && cmd[0] == "") {
		return 0 // monerod's empty command handler
	}
	c, ok := commands[cmd[0]]
	if ok && c.run(x, cmd[1:]) {
		return 0
	}
	x.help()
	fmt.Fprintln(errOut, "Unknown command: "+cmd[0])
	return 1
}

// help is t_command_server::help without arguments: the banner and every
// command's usage, each line indented by two spaces (and the trailing
// empty line indented too, as monerod's replace_all leaves it).
func (x *Ctl) help() {
	var b strings.Builder
	b.WriteString(x.Banner + "\nCommands: \n  ")
	for _, n := range Names() {
		b.WriteString(commands[n].usage + "\n  ")
	}
	fmt.Fprintln(x.Out, b.String())
}

// isHash is parse_hash256: 64 hex digits. monerod logs an error for
// anything else.
func (x *Ctl) isHash(s string) bool {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		x.logError("invalid hash format: " + s)
		return false
	}
	return true
}

// noArgs is the parser's check of commands that take none.
func (x *Ctl) noArgs(args []string) bool {
	if len(args) != 0 {
		x.invalid("No parameters expected")
		return false
	}
	return true
}
