package p2p

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gonero/gonero/cryptonote"
)

// The node's own transactions sent over an anonymity zone stay private
// until a block holds them, across restarts too: the pool reloads its
// transactions as public ones, so the ids are kept beside the peer lists
// (p2pstate-own.json), and a transaction named there is still not offered
// in pool complements, does not complete fluffy blocks, is sent over the
// zone again rather than on clearnet by relay_tx, and is queued for the
// zone again at the start.

// ownPrivate reports whether id is one of the node's own transactions
// sent over a zone (and so private).
func (n *Node) ownPrivate(id cryptonote.Hash) bool {
	n.unassigned.mu.Lock()
	defer n.unassigned.mu.Unlock()
	return n.unassigned.private[id]
}

// rememberOwn marks id private. Called with n.unassigned.mu held.
func (q *ownQueue) rememberOwn(id cryptonote.Hash) {
	if q.private == nil {
		q.private = map[cryptonote.Hash]bool{}
	}
	if !q.private[id] {
		q.private[id] = true
		q.dirty = true
	}
}

// forgetMined drops the private ids the pool no longer holds.
func (n *Node) forgetMined() {
	n.unassigned.mu.Lock()
	defer n.unassigned.mu.Unlock()
	for id := range n.unassigned.private {
		if !n.pool.Has(id) {
			delete(n.unassigned.private, id)
			n.unassigned.dirty = true
		}
	}
}

// ownStateFile is where the private ids are kept ("" when the peer lists
// are not kept).
func (n *Node) ownStateFile() string {
	if n.cfg.StateFile == "" {
		return ""
	}
	ext := filepath.Ext(n.cfg.StateFile)
	return strings.TrimSuffix(n.cfg.StateFile, ext) + "-own" + ext
}

// loadOwn reads the private ids back at the start; those still in the
// pool wait for a zone again.
func (n *Node) loadOwn() error {
	file := n.ownStateFile()
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	var ids []string
	if err := json.Unmarshal(b, &ids); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	n.unassigned.mu.Lock()
	defer n.unassigned.mu.Unlock()
	for _, s := range ids {
		var id cryptonote.Hash
		if raw, err := hex.DecodeString(s); err != nil || len(raw) != len(id) {
			continue
		} else {
			copy(id[:], raw)
		}
		e, ok := n.pool.Get(id)
		if !ok {
			continue
		}
		n.unassigned.rememberOwn(id)
		if n.unassigned.txs == nil {
			n.unassigned.txs = map[cryptonote.Hash][]byte{}
		}
		n.unassigned.txs[id] = e.Blob
	}
	return nil
}

// saveOwn writes the private ids when they changed (atomically).
func (n *Node) saveOwn() error {
	file := n.ownStateFile()
	if file == "" {
		return nil
	}
	n.unassigned.mu.Lock()
	if !n.unassigned.dirty {
		n.unassigned.mu.Unlock()
		return nil
	}
	ids := make([]string, 0, len(n.unassigned.private))
	for id := range n.unassigned.private {
		ids = append(ids, hex.EncodeToString(id[:]))
	}
	n.unassigned.dirty = false
	n.unassigned.mu.Unlock()
	slices.Sort(ids)
	b, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
