// Package jsonscan reads the keys and members of JSON that is already
// known to be valid, as json.Valid reports, in one quick pass: a string is
// skipped by looking for its closing quote, not read byte by byte, which
// matters for a hook event that holds a 200 KB heredoc. Valid checks
// input as json.Valid does, faster on long strings; the readers validate
// nothing: on input that is not valid JSON their results are unspecified,
// though they never panic or loop forever.
package jsonscan
