package rpc

// forgetCachedAnswers drops the kept answers and encoded blocks after
// prune_blockchain: pruning changes what the store holds without moving the
// top, so answers kept for the same top (full tx blobs now pruned) would
// outlive it. A request answered from the unpruned store and kept just
// after this runs can still linger until the top moves.
func (s *Server) forgetCachedAnswers() {
	c := &s.answers
	c.mu.Lock()
	c.version, c.bytes = answerVersion{}, 0
	for i := range c.m {
		for j := range c.m[i] {
			c.m[i][j] = nil
		}
	}
	c.mu.Unlock()
	s.ws().blocks.Clear()
}
