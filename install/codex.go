package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// CodexTrustState is whether Codex will run a hook it did not get from a
// managed source: only once a person has reviewed and trusted its exact
// definition in Codex's /hooks.
type CodexTrustState int

const (
	// TrustUnknown: Codex's files cannot tell (see the detail).
	TrustUnknown CodexTrustState = iota
	// Trusted: Codex has trusted the hook as it is.
	Trusted
	// Untrusted: Codex has never trusted it, and skips it.
	Untrusted
	// Modified: the hook changed since Codex trusted it (a new binary,
	// timeout or matcher), and Codex skips it until it is trusted again.
	Modified
	// Disabled: a person turned the hook off in /hooks.
	Disabled
)

// codexEventLabels are Codex's names of hook events in trust keys and
// hashes.
var codexEventLabels = map[string]string{"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}

// codexKey is the key of a hooks.json hook in Codex's trust records: the
// file, the event, and the hook's group and place in it.
func codexKey(file string, ev hookEvent, group, handler int) string {
	return file + ":" + codexEventLabels[ev.key] + ":" + strconv.Itoa(group) + ":" + strconv.Itoa(handler)
}

// codexHash is the hash Codex records when a person trusts a command hook:
// SHA-256 of the compact JSON, keys sorted, of the hook's normalized
// definition (its event, its group's matcher and the hook with its timeout,
// 600 s when unset), as Codex's hook discovery computes it. It is "" for
// a hook whose definition rewind cannot read as Codex does.
func codexHash(ev hookEvent, group, entry *object) string {
	id := codexIdentity(ev, group, entry)
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexIdentity is the text codexHash hashes, "" when there is none.
func codexIdentity(ev hookEvent, group, entry *object) string {
	label, ok := codexEventLabels[ev.key]
	if !ok {
		return ""
	}
	var h struct {
		Type          string  `json:"type"`
		Command       string  `json:"command"`
		Timeout       *uint64 `json:"timeout"`
		Async         bool    `json:"async"`
		StatusMessage *string `json:"statusMessage"`
	}
	if json.Unmarshal(entry.raw(), &h) != nil || h.Type != "command" || h.Command == "" {
		return ""
	}
	if _, ok := entry.get("commandWindows"); ok {
		return "" // Codex hashes the command it runs on each system
	}
	timeout := uint64(600)
	if h.Timeout != nil {
		timeout = max(*h.Timeout, 1)
	}
	var b strings.Builder
	b.WriteString(`{"event_name":` + serdeString(label) + `,"hooks":[{"async":` + strconv.FormatBool(h.Async) +
		`,"command":` + serdeString(h.Command))
	if h.StatusMessage != nil {
		b.WriteString(`,"statusMessage":` + serdeString(*h.StatusMessage))
	}
	b.WriteString(`,"timeout":` + strconv.FormatUint(timeout, 10) + `,"type":"command"}]`)
	if group != nil {
		if v, ok := group.get("matcher"); ok {
			var m string
			if json.Unmarshal(v, &m) != nil {
				return ""
			}
			b.WriteString(`,"matcher":` + serdeString(m))
		}
	}
	b.WriteString("}")
	return b.String()
}

// serdeString is s as a JSON string the way Rust's serde_json writes it:
// only '"', '\\' and control characters escaped.
func serdeString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CodexTrust reads, from Codex's config.toml in codexHome ($CODEX_HOME,
// or ~/.codex), whether Codex runs the hook in: Codex records under
// [hooks.state."KEY"] the hash of each hook a person trusted in /hooks,
// and whether they turned it off. The detail says why it cannot tell.
func CodexTrust(in Installed, codexHome string) (CodexTrustState, string) {
	if in.CodexKey == "" || in.CodexHash == "" {
		return TrustUnknown, "rewind cannot read this hook's definition as Codex does"
	}
	path := filepath.Join(codexHome, "config.toml")
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Untrusted, ""
	case err != nil:
		return TrustUnknown, err.Error()
	}
	var cfg struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
				Enabled     *bool  `toml:"enabled"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := toml.Unmarshal(data, &cfg); err != nil {
		return TrustUnknown, fmt.Sprintf("%s does not parse: %v", path, err)
	}
	st, ok := cfg.Hooks.State[in.CodexKey]
	switch {
	case ok && st.Enabled != nil && !*st.Enabled:
		return Disabled, ""
	case !ok || st.TrustedHash == "":
		return Untrusted, ""
	case st.TrustedHash == in.CodexHash:
		return Trusted, ""
	case !strings.HasPrefix(st.TrustedHash, "sha256:"):
		return TrustUnknown, "Codex records its trust in a form rewind does not know"
	}
	return Modified, ""
}

// CodexHome is Codex's folder: $CODEX_HOME, else ~/.codex.
func CodexHome(getenv func(string) string, home string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(home, ".codex")
}
