package daemonctl

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// printMoney is cryptonote::print_money: atomic units with 12 decimals.
func printMoney(amount uint64) string {
	s := strconv.FormatUint(amount, 10)
	if len(s) < 13 {
		s = strings.Repeat("0", 13-len(s)) + s
	}
	return s[:len(s)-12] + "." + s[len(s)-12:]
}

// humanTimestamp is tools::get_human_readable_timestamp (UTC).
func humanTimestamp(ts uint64) string {
	if ts < 1234567890 {
		return "<unknown>"
	}
	return time.Unix(int64(ts), 0).UTC().Format("2006-01-02 15:04:05")
}

// humanTimespan is tools::get_human_readable_timespan (float arithmetic, as monerod).
func humanTimespan(seconds uint64) string {
	s := float32(seconds)
	switch {
	case seconds < 60:
		return strconv.FormatUint(seconds, 10) + " seconds"
	case seconds < 3600:
		return fmt.Sprintf("%.1f minutes", s/60)
	case seconds < 3600*24:
		return fmt.Sprintf("%.1f hours", s/3600)
	case s < 3600*24*30.5:
		return fmt.Sprintf("%.1f days", s/(3600*24))
	case s < 3600*24*365.25:
		return fmt.Sprintf("%.1f months", s/(3600*24*30.5))
	case s < 3600*24*365.25*100:
		return fmt.Sprintf("%.1f years", s/(3600*24*365.25))
	}
	return "a long time"
}

// humanBytes is tools::get_human_readable_bytes (base 1024).
func humanBytes(b uint64) string {
	sizes := []struct {
		format string
		bytes  uint64
	}{{"%.0f B", 1 << 10}, {"%.2f kB", 1 << 20}, {"%.2f MB", 1 << 30}, {"%.2f GB", 1 << 40}, {"%.2f TB", 1 << 50}}
	i := 0
	for i < len(sizes)-1 && b >= sizes[i].bytes {
		i++
	}
	return fmt.Sprintf(sizes[i].format, float64(b)/float64(sizes[i].bytes/1024))
}

// humanTimeAgo is rpc_command_executor's get_human_time_ago.
func humanTimeAgo(t, now int64) string {
	if t == now {
		return "now"
	}
	dt := now - t
	if t > now {
		dt = t - now
	}
	var s string
	switch {
	case dt < 90:
		s = strconv.FormatInt(dt, 10) + " seconds"
	case dt < 90*60:
		s = strconv.FormatInt(dt/60, 10) + " minutes"
	case dt < 36*3600:
		s = strconv.FormatInt(dt/3600, 10) + " hours"
	default:
		s = strconv.FormatInt(dt/(3600*24), 10) + " days"
	}
	if t > now {
		return s + " in the future"
	}
	return s + " ago"
}

// timeHMS is get_time_hms.
func timeHMS(t uint64) string {
	return fmt.Sprintf("%02d:%02d:%02d", uint32(t/3600), uint32(t%3600/60), uint32(t%60))
}

// miningSpeed is get_mining_speed: hashes per second with a metric prefix
// from 1000 on. Like monerod it divides the integer by 1000 before each
// step, so 1 234 567 H/s is "1.23 MH/s".
func miningSpeed(hr *big.Int) string {
	thousand, million := big.NewInt(1000), big.NewInt(1000000)
	if hr.Cmp(thousand) < 0 {
		return hr.String() + " H/s"
	}
	h := new(big.Int).Set(hr)
	for _, p := range "kMGTPEZY" {
		if h.Cmp(million) < 0 {
			f, _ := new(big.Float).SetInt(h).Float64()
			return fmt.Sprintf("%.2f %cH/s", f/1000, p)
		}
		h.Quo(h, thousand)
	}
	// monerod prints prefix 0 with an unset value here; a daemon cannot
	// report 10^27 H/s.
	return h.String() + " H/s"
}

// forkExtraInfo is get_fork_extra_info.
func forkExtraInfo(t, now, blockTime uint64) string {
	if blockTime == 0 {
		return ""
	}
	blocksPerDay := 86400 / blockTime
	if t == now {
		return " (forking now)"
	}
	if t > now {
		d := t - now
		switch {
		case d <= 30:
			return fmt.Sprintf(" (next fork in %d blocks)", uint32(d))
		case d <= blocksPerDay/2:
			return fmt.Sprintf(" (next fork in %.1f hours)", float32(d)/float32(blocksPerDay/24))
		case d <= blocksPerDay*30:
			return fmt.Sprintf(" (next fork in %.1f days)", float32(d)/float32(blocksPerDay))
		}
	}
	return ""
}

// syncPercentage is get_sync_percentage, in float as monerod computes it.
func syncPercentage(height, target uint64) float32 {
	if target == 0 || target < height {
		target = height
	}
	if target == 0 {
		// monerod divides 0 by 0 here (nan); a daemon always has genesis.
		return 0
	}
	pc := 100 * float32(height) / float32(target)
	if height < target && pc > 99.9 {
		return 99.9
	}
	return pc
}

// difficulty reads a wide_difficulty ("0x..." hex), 0 when absent.
func difficulty(wide string) *big.Int {
	d, ok := new(big.Int).SetString(strings.TrimPrefix(strings.TrimPrefix(wide, "0x"), "0X"), 16)
	if !ok {
		return new(big.Int)
	}
	return d
}

// streamFloat is a double written to a C++ ostream with its default
// format (%g, 6 significant digits).
func streamFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// padRight is epee::string_tools::pad_string (append spaces up to n).
func padRight(s string, n int) string {
	if len(s) < n {
		return s + strings.Repeat(" ", n-len(s))
	}
	return s
}

// setw is std::setw(n) << std::left for one field.
func setw(s string, n int) string { return padRight(s, n) }
