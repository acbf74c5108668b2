package dnstxt

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/gonero/gonero/internal/dnstest"
)

// A query to the test responder comes back with its records, their AD
// flag, and NXDOMAIN for an unknown name.
func TestLookupTXT(t *testing.T) {
	srv := &dnstest.Server{Authenticated: true, Records: map[string][]string{
		"blocklist.example": {"1.2.3.4;5.6.7.0/24", "2001:db8::1"},
	}}
	c := &Client{Server: srv.Start(t)}
	a, err := c.LookupTXT(context.Background(), "Blocklist.Example.")
	if err != nil {
		t.Fatal(err)
	}
	if !a.Authenticated || a.NXDomain || !slices.Equal(a.TXT, []string{"1.2.3.4;5.6.7.0/24", "2001:db8::1"}) {
		t.Fatalf("answer %+v", a)
	}
	a, err = c.LookupTXT(context.Background(), "other.example")
	if err != nil || !a.NXDomain || len(a.TXT) != 0 {
		t.Fatalf("unknown name: %+v, %v", a, err)
	}
	srv.Authenticated = false
	if a, err = c.LookupTXT(context.Background(), "blocklist.example"); err != nil || a.Authenticated {
		t.Fatalf("unauthenticated answer read as %+v, %v", a, err)
	}
}

// A TXT record's data is read as monerod's txt_to_string reads it: all of
// it after the first length byte, a second string's length byte included.
func TestParseAnswerTakesDataAfterFirstLength(t *testing.T) {
	q, err := BuildQuery(7, "a.b")
	if err != nil {
		t.Fatal(err)
	}
	qlen := len(q) - 11 // without the OPT record
	msg := append([]byte(nil), q[:qlen]...)
	binary.BigEndian.PutUint16(msg[2:], flagQR)
	binary.BigEndian.PutUint16(msg[6:], 2)
	binary.BigEndian.PutUint16(msg[10:], 0)
	// A CNAME first (skipped), then a TXT of two strings "ab" and "c".
	msg = append(msg, 0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 1, 0, 2, 0xc0, 12)
	msg = append(msg, 0xc0, 12, 0, 16, 0, 1, 0, 0, 0, 1, 0, 5, 2, 'a', 'b', 1, 'c')
	a, err := ParseAnswer(msg, 7, "a.b")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.TXT, []string{"ab\x01c"}) || a.Authenticated {
		t.Fatalf("answer %+v", a)
	}
	if _, err := ParseAnswer(msg, 8, "a.b"); !errors.Is(err, ErrMismatch) {
		t.Fatalf("another id: %v", err)
	}
	if _, err := ParseAnswer(msg, 7, "a.c"); !errors.Is(err, ErrMismatch) {
		t.Fatalf("another name: %v", err)
	}
	for n := range len(msg) {
		if _, err := ParseAnswer(msg[:n], 7, "a.b"); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	// A pointer loop (a name pointing at itself) is refused.
	loop := append([]byte(nil), msg[:qlen]...)
	binary.BigEndian.PutUint16(loop[2:], flagQR)
	binary.BigEndian.PutUint16(loop[6:], 1)
	loop = append(loop, 0xc0, byte(len(loop)))
	if _, err := ParseAnswer(loop, 7, "a.b"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("pointer loop: %v", err)
	}
}

// FuzzParseAnswer: whatever a resolver sends, parsing ends with records
// taken from the message or an error, never a panic.
func FuzzParseAnswer(f *testing.F) {
	srv := &dnstest.Server{Authenticated: true, Records: map[string][]string{"x.y": {"1.2.3.4", "5.6.7.8;9.9.9.0/24"}}}
	q, _ := BuildQuery(1, "x.y")
	f.Add(srv.Answer(q))
	q2, _ := BuildQuery(1, "z.y")
	f.Add(srv.Answer(q2))
	f.Fuzz(func(t *testing.T, msg []byte) {
		a, err := ParseAnswer(msg, 1, "x.y")
		if err != nil {
			return
		}
		total := 0
		for _, s := range a.TXT {
			total += len(s)
		}
		if total > len(msg) {
			t.Fatalf("%d bytes of records from a %d-byte message", total, len(msg))
		}
	})
}
