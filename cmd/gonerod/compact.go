package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gonero/gonero/chaindb"
)

func newCompactCommand(o *options) *cobra.Command {
	var txBytes int
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "give the store's free space back: rewrite it into a new file without free pages",
		Long: "compact copies the chain store into a new file beside it, every bucket in key order with full pages, then\n" +
			"renames the copy over the store. It gives back the free pages that pruning, an upgrade of an older store\n" +
			"or popped blocks leave in the file. The node must be stopped; the copy needs about the store's size in\n" +
			"free disk space. It can be interrupted (Ctrl-C, or even kill -9) and resumed by running it again: the\n" +
			"store is the old one or the new one at any moment, never a mix.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.config()
			if err != nil {
				return err
			}
			log, err := newLogger(o.logLevel)
			if err != nil {
				return err
			}
			ctx, stop := signalContext()
			defer stop()
			return runCompact(ctx, cfg.StorePath(), cfg.Network.String(), txBytes, cmd.ErrOrStderr(), log)
		},
	}
	// For the kill tests: many small transactions, so that a kill lands inside the copy.
	cmd.Flags().IntVar(&txBytes, "tx-bytes", chaindb.DefaultCompactTxBytes, "key and value bytes copied per store commit")
	_ = cmd.Flags().MarkHidden("tx-bytes")
	return cmd
}

func runCompact(ctx context.Context, path, network string, txBytes int, out io.Writer, log *slog.Logger) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no chain store at %s (check --data-dir and the network flags)", path)
	}
	var bar *progressbar.ProgressBar // on a terminal; log lines otherwise
	terminal := false
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		terminal = true
	}
	var last time.Time
	mb := func(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
	opts := chaindb.CompactOptions{
		Network: network,
		TxBytes: txBytes,
		Progress: func(done, total uint64) {
			if terminal {
				if bar == nil {
					bar = progressbar.NewOptions64(int64(total),
						progressbar.OptionSetWriter(out),
						progressbar.OptionSetDescription("compacting"),
						progressbar.OptionShowBytes(true),
						progressbar.OptionThrottle(100*time.Millisecond),
						progressbar.OptionOnCompletion(func() { fmt.Fprintln(out) }),
					)
				}
				_ = bar.Set64(int64(min(done, total)))
				return
			}
			if time.Since(last) >= 5*time.Second {
				last = time.Now()
				log.Info("compacting", "copied", mb(int64(done)), "of_about", mb(int64(total)))
			}
		},
		MigrationProgress: func(done, total uint64) {
			if done == total || time.Since(last) >= 5*time.Second {
				last = time.Now()
				log.Info("upgrading the chain store to this version's layout", "blocks", done, "of", total)
			}
		},
	}
	log.Info("compacting the chain store", "path", path)
	res, err := chaindb.Compact(ctx, path, opts)
	if bar != nil {
		if err == nil {
			_ = bar.Finish()
		}
		_ = bar.Exit()
		bar = nil
	}
	switch {
	case errors.Is(err, context.Canceled):
		log.Info("compaction interrupted; run the same command to resume", "path", path)
		return nil
	case errors.Is(err, chaindb.ErrInUse):
		return fmt.Errorf("the chain store %s is in use: stop the gonerod that has it open, then run compact again", path)
	case err != nil:
		return err
	}
	log.Info("compaction finished", "path", path, "size_before", mb(res.SizeBefore), "size_after", mb(res.SizeAfter),
		"free_pages_before", mb(res.FreeBefore), "free_pages_after", mb(res.FreeAfter),
		"resumed", res.Resumed, "copied_before", mb(int64(res.CopiedBefore)), "elapsed", res.Elapsed.Round(time.Millisecond))
	return nil
}
