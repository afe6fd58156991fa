// Package jsonappend writes JSON by hand, byte for byte as encoding/json
// writes it with HTML escaping off, for the two lines a hook process
// writes: its answer to the host (package hostio) and its audit record
// (package audit). encoding/json reads a type's fields by reflection the
// first time it meets the type in a process, and the hook, which starts a
// process for every call, paid that for every answer and every record it
// wrote: about 65 µs of a denied call's 2 ms for the answer alone
// (docs/performance.md). The callers' tests hold what they write to
// encoding/json's bytes.
package jsonappend
