// Package epeejson reads and writes JSON exactly the way monerod v0.18 does.
//
// monerod does not use a JSON library: its RPC server turns request bodies into
// epee "portable storage" with the hand-written state machine in
// contrib/epee/include/storages/portable_storage_from_json.h (plus the token
// matchers in contrib/epee/src/parserse_base_utils.cpp), and prints answers with
// contrib/epee/include/storages/portable_storage_to_json.h. Both differ from
// standard JSON in ways clients can see:
//
//   - Parse accepts what that state machine accepts and nothing else: truncated
//     bodies, trailing garbage, case-insensitive true/false/null, \v and \'
//     escapes, raw control bytes inside strings; it rejects integer literals
//     outside uint64/int64, arrays of arrays, mixed arrays and deep nesting.
//   - The Writer prints CRLF line ends, two-space indentation, `"name": value`,
//     one-line arrays, `/` escaped as `\/`, other bytes raw, and doubles with six
//     significant digits (C++ ostream defaults).
//
// The As* converters reproduce portable_storage_val_converters.h, i.e. which
// request field values monerod converts, rejects (-32602 Invalid params) or
// ignores.
//
// Everything here is checked against real monerod answers in
// testdata/regtest (see the tests); the epee sources named above are
// from the v0.18.0.0 tag, the version that produced those answers.
package epeejson
