package consensus

// CheckVersion is hardfork.cpp HardFork::check for a block header: the major
// version must equal expected (params.Network.VersionAt of the block's
// height) and the vote, the minor version, must be at least expected, where
// minor version 0 counts as a vote for version 1 (pre-fork blocks all have
// minor 0). Votes above the newest version are allowed.
func CheckVersion(major, minor, expected uint8) error {
	if major != expected {
		return &VersionError{Major: major, Minor: minor, Expected: expected, Err: ErrWrongMajorVersion}
	}
	vote := minor
	if vote == 0 {
		vote = 1
	}
	if vote < expected {
		return &VersionError{Major: major, Minor: minor, Expected: expected, Err: ErrVoteTooLow}
	}
	return nil
}

// TimestampCheckRange returns the heights [first, end) whose timestamps
// CheckTimestamp needs for a block at height chainHeight: the last
// TimestampCheckWindow blocks, or all of them while the chain is shorter
// (Blockchain::check_block_timestamp_main_chain). For an alternative block,
// take the timestamps of those heights along its own chain.
func TimestampCheckRange(chainHeight uint64) (first, end uint64) {
	if chainHeight > TimestampCheckWindow {
		return chainHeight - TimestampCheckWindow, chainHeight
	}
	return 0, chainHeight
}

// CheckTimestamp is blockchain.cpp check_block_timestamp: a block's
// timestamp may be at most BlockFutureTimeLimit seconds after now (local
// Unix time), and, once TimestampCheckWindow previous blocks exist, not
// below the Median of their timestamps. previous holds the timestamps of the
// heights TimestampCheckRange names; only the last TimestampCheckWindow are
// used. The future limit is checked first, as monerod does.
func CheckTimestamp(timestamp uint64, previous []uint64, now uint64) error {
	if limit := now + BlockFutureTimeLimit; timestamp > limit {
		return &TimestampError{Timestamp: timestamp, Bound: limit, Err: ErrTimestampTooNew}
	}
	if len(previous) < TimestampCheckWindow {
		return nil
	}
	median := Median(previous[len(previous)-TimestampCheckWindow:])
	if timestamp < median {
		return &TimestampError{Timestamp: timestamp, Bound: median, Err: ErrTimestampTooOld}
	}
	return nil
}
