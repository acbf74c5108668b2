package randomx

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// An allocation the kernel refuses becomes an error for every caller waiting
// on that build, and the next call builds again. The address-space limit
// leaves 64 MiB of room, enough for the Go runtime but not for a 256 MiB
// cache.
func TestCacheAllocationFailure(t *testing.T) {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip(err)
	}
	pages, err := strconv.ParseUint(strings.Fields(string(statm))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	limited := old
	limited.Cur = pages*uint64(os.Getpagesize()) + 64<<20
	h := newHasher(t, Options{VMs: 1})

	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &limited); err != nil {
		t.Skip(err)
	}
	_, err = h.HashWithKey([]byte("no room"), []byte("x"))
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("hash succeeded although the cache could not fit")
	}
	t.Log(err)
	if len(h.seeds) != 0 || len(h.recent) != 0 {
		t.Errorf("failed build still listed: %d seeds, %d recent", len(h.seeds), len(h.recent))
	}

	if _, err := h.HashWithKey([]byte("no room"), []byte("x")); err != nil {
		t.Fatalf("after the limit was lifted: %v", err)
	}
	if h.seedBuilds != 2 {
		t.Errorf("%d builds, want 2", h.seedBuilds)
	}
	checkInvariants(t, h, 1)
}
