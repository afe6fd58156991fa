package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shells read the same text differently, and code is read in every
// dialect that could run it:
//
//   - Code handed to /bin/sh (sh -c, and what git, make, tmux, cron, at,
//     watch and interpreters' system() run) is read as bash and, where
//     its text holds what they read otherwise, as POSIX sh (dash, posh,
//     busybox ash): dash has no $'...' ("$'\'; cmd #'" runs cmd), reads
//     "&>" as "&" then ">", "((cmd))" as two subshells, and its echo
//     decodes backslash escapes. The code of a remote command, which the
//     host's login shell reads, is read the same way.
//   - The command string itself, which Claude Code's Bash tool runs with
//     the user's login shell (zsh on macOS), and a remote command are
//     also read as zsh where bash cannot parse them (zsh's short loops,
//     "() { ... }", ${(e)x}), and zsh's own ways of running a command
//     are read in any code: =cmd, the precommand modifiers -, noglob and
//     nocorrect, repeat N, and the glob qualifiers (e:code:) and (+cmd).
//   - ksh and mksh are read as mksh and as POSIX sh; zsh -c as zsh (and
//     as bash where mvdan.cc/sh's zsh support cannot parse it); fish and
//     csh and tcsh by readers of their own quoting (fish.go, csh.go).

// dialect is a shell language, or a set of them, code is read in.
type dialect uint8

const (
	// dSh is what /bin/sh reads: bash, and POSIX sh where they differ.
	// It is the zero value: code handed on that no shell names is read
	// as sh.
	dSh dialect = iota
	dBash
	dPOSIX
	dZsh
	// dKsh is ksh93, mksh and OpenBSD's ksh: mksh, and POSIX sh.
	dKsh
	dMksh
	dFish
	dCsh
	numDialects
)

// variant returns the parser's language for a dialect it parses.
func (d dialect) variant() syntax.LangVariant {
	switch d {
	case dPOSIX:
		return syntax.LangPOSIX
	case dZsh:
		return syntax.LangZsh
	case dMksh:
		return syntax.LangMirBSDKorn
	}
	return syntax.LangBash
}

// shellDialect returns the dialect a shell of that name reads.
func shellDialect(name string) dialect {
	switch name {
	case "bash", "rbash":
		return dBash
	case "dash", "posh", "yash":
		return dPOSIX
	case "zsh":
		return dZsh
	case "ksh", "ksh93", "mksh", "oksh", "loksh", "pdksh":
		return dKsh
	case "fish":
		return dFish
	case "csh", "tcsh":
		return dCsh
	}
	// sh, ash and the others: /bin/sh may be bash, dash or busybox.
	return dSh
}

// posixDiffers reports whether dash may read text otherwise than bash in a
// way that runs other commands: $'...', &>, ((...)), or an echo of a
// backslash escape.
func posixDiffers(text string) bool {
	return strings.Contains(text, "$'") || strings.Contains(text, "&>") || strings.Contains(text, "((") ||
		strings.Contains(text, "echo") && strings.IndexByte(text, '\\') >= 0
}

// codeIn parses and walks text in dialect d, and in each dialect d stands
// for.
func (a *analyzer) codeIn(d dialect, text, host string, via []string, depth int, stdin *input) {
	switch d {
	case dSh:
		a.code(text, host, via, depth, stdin, dBash, false)
		if posixDiffers(text) {
			a.code(text, host, via, depth, stdin, dPOSIX, true)
		}
	case dKsh:
		a.code(text, host, via, depth, stdin, dMksh, false)
		if posixDiffers(text) {
			a.code(text, host, via, depth, stdin, dPOSIX, true)
		}
	default:
		a.code(text, host, via, depth, stdin, d, false)
	}
}

// zshWord reports the command a word runs in zsh when it is one of zsh's
// ways of naming a command: =cmd (the path of cmd).
func zshCommand(name string) (string, bool) {
	if rest, ok := strings.CutPrefix(name, "="); ok && rest != "" && validAliasName(rest) {
		return rest, true
	}
	return "", false
}

// zshQualifiers returns the code of the glob qualifiers (e:code:),
// (e'code'), (e{code}) and (+cmd) in the text of a pattern: zsh runs it
// for each file the pattern matches.
func zshQualifiers(text string) []string {
	var out []string
	for {
		i := strings.IndexByte(text, '(')
		if i < 0 {
			return out
		}
		text = text[i+1:]
		end := strings.IndexByte(text, ')')
		quals := text
		if end >= 0 {
			quals = text[:end]
		}
		next := end + 1 // where the text goes on after the group
	scan:
		for j := 0; j < len(quals); j++ {
			switch ch := quals[j]; {
			case ch == ' ' || ch == '\t' || ch == '|':
				// Not qualifiers: a pattern or words.
				break scan
			case ch == 'e' && j+1 < len(quals) && !isWordByte(quals[j+1]) && quals[j+1] != ' ':
				open := quals[j+1]
				closer := perlClose(open)
				// The code may hold the closing bracket of the group.
				rest := text[j+2:]
				k := strings.IndexByte(rest, closer)
				if k < 0 {
					return append(out, rest)
				}
				out = append(out, rest[:k])
				next = len(text) - len(rest) + k + 1
				break scan
			case ch == '+':
				k := j + 1
				for k < len(quals) && (isWordByte(quals[k]) || quals[k] == '-' || quals[k] == '.' || quals[k] == '/') {
					k++
				}
				if k > j+1 {
					out = append(out, quals[j+1:k])
				}
				j = k - 1
			}
		}
		if next <= 0 || next > len(text) {
			// No group closes: the rest was its qualifiers.
			return out
		}
		text = text[next:]
	}
}

// zshQualified analyses the code of the glob qualifiers in the text of a
// pattern, which zsh runs as code for each file it matches.
func (a *analyzer) zshQualified(c *code, text, src string) {
	for _, code := range zshQualifiers(text) {
		a.codeFields(c.handing(dZsh), "zsh glob qualifier", src, []field{staticField(unquoteWord(code))}, nil)
	}
}

// unquoteWord removes the quotes around a word: the code of a qualifier
// is one quoted word.
func unquoteWord(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		if words := shellWords(s); len(words) == 1 {
			return words[0]
		}
	}
	return s
}
