package confirm

// hostNames are the names agent hosts run under (command names, program
// names, and folders their programs are installed in), and the host each
// is. From the hosts' installation docs (docs/hosts.md names them):
//
//   - Claude Code: `claude`; the native install runs
//     ~/.local/share/claude/versions/VERSION (whose command name is the
//     version), the npm one node with @anthropic-ai/claude-code's cli.js.
//   - Codex CLI: `codex` (npm's @openai/codex starts the native codex).
//   - Cursor CLI: `cursor-agent` (and `agent`, a name too common to
//     count), installed in ~/.local/share/cursor-agent, run by the node it
//     ships.
//   - GitHub Copilot CLI: `copilot`, node with @github/copilot.
//   - Antigravity CLI: `agy`; the Antigravity app.
//   - OpenCode: `opencode` (npm's opencode-ai starts the native one).
//   - Kiro CLI: `kiro-cli`, and before 3.0 `kiro-cli-chat` and
//     `kiro-cli-term`; the Kiro app.
//   - Windsurf: the Windsurf app, whose Cascade runs commands in its
//     terminal.
//   - Cline: the `cline` CLI (in VS Code it runs in the editor's own
//     extension host and terminal, which a person uses too, and is not
//     recognised there).
//   - Gemini CLI: `gemini`, node with @google/gemini-cli.
//
// A terminal inside one of these apps counts as the agent's: a person
// confirms in a terminal of their own.
var hostNames = map[string]string{
	"claude":        "Claude Code",
	"codex":         "Codex CLI",
	"cursor-agent":  "Cursor CLI",
	"copilot":       "GitHub Copilot CLI",
	"agy":           "Antigravity CLI",
	"antigravity":   "Antigravity",
	"opencode":      "OpenCode",
	"kiro":          "Kiro",
	"kiro-cli":      "Kiro CLI",
	"kiro-cli-chat": "Kiro CLI",
	"kiro-cli-term": "Kiro CLI",
	"windsurf":      "Windsurf",
	"cline":         "Cline",
	"gemini":        "Gemini CLI",
}

// hostFolders are folders of an agent host's installation that its
// program's or script's path holds.
var hostFolders = map[string]string{
	"claude-code":       "Claude Code",
	"opencode-ai":       "OpenCode",
	"gemini-cli":        "Gemini CLI",
	"kirocli":           "Kiro CLI",
	"cline-cli":         "Cline",
	"agent-cli-package": "Cursor CLI",
}
