package consensus

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrVerifierPanic is what a PanicError unwraps to.
var ErrVerifierPanic = errors.New("consensus: a verifier panicked")

// PanicError is a panic recovered in a verifying goroutine (the range-proof
// batches, the per-input signature checks, and the callers' worker pools),
// with the stack where it happened. A panic there is a bug of ours that a
// peer's data reached: it refuses that transaction or block instead of
// ending the node. The recovering code does not log; whoever turns the
// refusal into a peer's fault logs Stack, once.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("%v: %v", ErrVerifierPanic, e.Value) }

func (e *PanicError) Unwrap() error { return ErrVerifierPanic }

// Recovered turns a value recovered from a verifier's panic into the
// refusal of the transaction it was verifying: a TxError with
// RuleVerifierPanic and no flag (monerod's bare "verification failed", an
// offence of the peer that relayed it) around a PanicError holding the
// current stack. Call it in the deferred function that recovered.
func Recovered(r any) error {
	return &TxError{Rule: RuleVerifierPanic, Err: &PanicError{Value: r, Stack: debug.Stack()}}
}

// PanicOf returns the PanicError in err's chain, or nil.
func PanicOf(err error) *PanicError {
	var pe *PanicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// guard runs f(i), turning a panic into its Recovered error.
func guard(f func(i int) error, i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Recovered(r)
		}
	}()
	return f(i)
}
