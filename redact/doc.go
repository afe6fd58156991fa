// Package redact takes secrets out of texts that people, models and logs
// read: the reasons rewind gives, its decision log, doctor's lines and the
// errors of its Zerto client.
//
// Two kinds of secret are found. Some have a shape (Text): JWTs, bearer
// tokens, cloud API keys, private key blocks, a URL's password. Others are
// known by value (Set): the password, client secret and tokens a client
// sends, which a server may echo back in an error in any encoding. A word
// is never hidden for the label before it in an error's text; only in what
// an agent wrote, a command or a tool's input, does a secret's name mark
// the value after it (Command).
package redact
