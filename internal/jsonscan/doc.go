// Package jsonscan reads the keys and members of JSON that is already
// known to be valid, as json.Valid reports, in one quick pass: a string is
// skipped by looking for its closing quote, not read byte by byte, which
// matters for a hook event that holds a 200 KB heredoc. It validates
// nothing: on input that is not valid JSON its results are unspecified,
// though it never panics or loops forever.
package jsonscan
