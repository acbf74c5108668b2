package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gonero/gonero/importer"
	"github.com/gonero/gonero/node"
)

func newImportCommand(o *options) *cobra.Command {
	var input, cpuProfile string
	var count uint64
	batch := importer.DefaultBatch
	cmd := &cobra.Command{
		Use:   "import --input-file FILE",
		Short: "add the blocks of a monero-blockchain-export file to the chain, checking each",
		Long: "import reads a file written by monero-blockchain-export and adds every block the chain does not\n" +
			"have yet, after the same consensus checks as any other block. It stops at the first invalid block\n" +
			"(keeping everything before it) and can be interrupted and resumed by running it again.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input == "" {
				return errors.New("--input-file is required")
			}
			if _, err := os.Stat(input); err != nil {
				return err
			}
			cfg, err := o.config()
			if err != nil {
				return err
			}
			log, err := newLogger(o.logLevel)
			if err != nil {
				return err
			}
			n, err := node.OpenStore(&cfg, log, nil)
			if err != nil {
				return err
			}
			defer n.Close()
			ctx, stop := signalContext()
			defer stop()
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			return runImport(ctx, n, input, count, batch, cmd.ErrOrStderr(), log)
		},
	}
	cmd.Flags().StringVar(&input, "input-file", "", "the export file (blockchain.raw)")
	cmd.Flags().Uint64Var(&count, "count", 0, "stop after adding this many blocks (0: all)")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the import to this file (for go tool pprof)")
	_ = cmd.Flags().MarkHidden("cpuprofile")
	// For bench/storage.sh: the bytes written against the batch size (1: a commit per block).
	cmd.Flags().IntVar(&batch.Blocks, "batch-blocks", batch.Blocks, "blocks per store commit")
	_ = cmd.Flags().MarkHidden("batch-blocks")
	return cmd
}

func runImport(ctx context.Context, n *node.Store, input string, count uint64, batch importer.Batch, out io.Writer, log *slog.Logger) error {
	var progress importer.Progress = &logProgress{log: log}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		progress = &barProgress{out: out}
	}
	res, err := importer.ImportBatched(ctx, n.Chain(), input, count, progress, batch)
	top := n.Chain().Top()
	summary := fmt.Sprintf("%d blocks added (%d transactions) in %s; chain height %d, top %s", res.Added(), res.Txs,
		res.Elapsed.Round(time.Millisecond), top.Height+1, top.Hash)
	switch {
	case errors.Is(err, context.Canceled):
		log.Info("import interrupted; run the same command to resume", "summary", summary)
		return nil
	case err != nil:
		log.Error("import stopped", "summary", summary)
		return fmt.Errorf("import stopped at height %d: %w", n.Chain().Height(), err)
	}
	log.Info("import finished", "summary", summary)
	return nil
}

// barProgress draws a progress bar on a terminal.
type barProgress struct {
	out io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Begin(from, total uint64) {
	p.bar = progressbar.NewOptions64(int64(total),
		progressbar.OptionSetWriter(p.out),
		progressbar.OptionSetDescription("importing blocks"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("blocks"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.out) }),
	)
	_ = p.bar.Set64(int64(from))
}
func (p *barProgress) Added(h uint64) { _ = p.bar.Set64(int64(h + 1)) }
func (p *barProgress) End()           { _ = p.bar.Exit() }

// logProgress writes a log line every few seconds when not on a terminal.
type logProgress struct {
	log         *slog.Logger
	total, from uint64
	last        time.Time
	lastHeight  uint64
}

func (p *logProgress) Begin(from, total uint64) {
	p.from, p.total, p.last = from, total, time.Now()
	p.log.Info("import starting", "from_height", from, "blocks_in_file", total)
}

func (p *logProgress) Added(h uint64) {
	p.lastHeight = h
	if time.Since(p.last) >= 5*time.Second {
		p.last = time.Now()
		p.log.Info("importing", "height", h, "of", p.total)
	}
}

func (p *logProgress) End() {}
