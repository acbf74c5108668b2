package node

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/gonero/gonero/p2p"
)

// syncProgress shows the download from peers: a bar (blocks, rate, time
// left) on a terminal, a log line every few seconds otherwise, as the
// import command does. It ends once the node reaches its target.
type syncProgress struct {
	log *slog.Logger
	out io.Writer // nil: log lines

	mu         sync.Mutex
	bar        *progressbar.ProgressBar
	barMax     uint64
	last       time.Time
	lastHeight uint64
}

func newSyncProgress(log *slog.Logger) *syncProgress {
	p := &syncProgress{log: log, last: time.Now()}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		p.out = os.Stderr
	}
	return p
}

// added is p2p.Config.Progress.
func (p *syncProgress) added(s p2p.SyncProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.Target <= s.Height {
		if p.bar != nil {
			_ = p.bar.Set64(int64(s.Height))
			_ = p.bar.Finish()
			p.bar = nil
		}
		return
	}
	if p.out != nil {
		if p.bar == nil || p.barMax != s.Target {
			if p.bar == nil {
				p.bar = progressbar.NewOptions64(int64(s.Target),
					progressbar.OptionSetWriter(p.out),
					progressbar.OptionSetDescription("syncing blocks"),
					progressbar.OptionShowCount(),
					progressbar.OptionShowIts(),
					progressbar.OptionSetItsString("blocks"),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.out) }),
				)
			} else {
				p.bar.ChangeMax64(int64(s.Target))
			}
			p.barMax = s.Target
		}
		_ = p.bar.Set64(int64(s.Height))
		return
	}
	now := time.Now()
	if dt := now.Sub(p.last); dt >= 5*time.Second {
		rate := float64(s.Height-min(p.lastHeight, s.Height)) / dt.Seconds()
		args := []any{"height", s.Height, "target", s.Target, "blocks_per_s", fmt.Sprintf("%.1f", rate)}
		if rate > 0 {
			args = append(args, "time_left", (time.Duration(float64(s.Target-s.Height)/rate) * time.Second).Round(time.Second))
		}
		p.log.Info("syncing", args...)
		p.last, p.lastHeight = now, s.Height
	}
}
