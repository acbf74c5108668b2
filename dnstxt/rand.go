package dnstxt

import "crypto/rand"

// randReader gives query ids; unpredictable ids make spoofed answers on a
// shared path harder.
var randReader = rand.Reader
