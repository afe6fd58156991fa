// Package dirs finds the folders rewind keeps its files in: the state
// folder (the decision log, capture's per-VPG state and locks, trust
// records) and the cache folder (the Zerto token cache). Both are found
// from an environment the caller passes, never from the process's own, so
// that a hook run, a test or a front end that serves another environment
// reads the folders that environment names. Finding a folder does no I/O.
package dirs
