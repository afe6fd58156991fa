package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writersLab is removalLab with rewind's state under ~/.local/state, a
// source folder holding a config for rewind, and one holding none.
func writersLab(t *testing.T) (*lab, *Policy) {
	t.Helper()
	l, p := removalLab(t)
	home := filepath.Join(l.root, "home")
	for _, d := range []string{filepath.Join(home, ".local", "state", "rewind"), filepath.Join(l.root, "evil"), filepath.Join(l.root, "plain", "src"), filepath.Join(l.root, "tmpl", ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l.write(filepath.Join(home, ".local", "state", "rewind", "audit.log"), "")
	l.write(filepath.Join(l.root, "evil", "config.toml"), "")
	l.write(filepath.Join(l.root, "plain", "notes.txt"), "")
	l.write(filepath.Join(l.root, "tmpl", ".claude", "settings.json"), "{}")
	return l, p
}

// TestOtherWaysToRemoveThePolicy: patterns the shell expands, writers that
// replace or delete their files without saying so, clustered options and
// modes that hide a folder are writes to the guarded files they reach;
// the same commands on other files are not.
func TestOtherWaysToRemoveThePolicy(t *testing.T) {
	t.Parallel()
	l, p := writersLab(t)
	evil, plain, tmpl := filepath.Join(l.root, "evil"), filepath.Join(l.root, "plain"), filepath.Join(l.root, "tmpl")
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		// Patterns.
		{"rm -rf ~/.local/*", Ask},
		{"rm -f ~/.config/*/config.toml", Ask},
		{"cd ~/.local && rm -rf *", Ask},
		{"chmod 000 ~/.config/*", Ask},
		{"rm -rf build/*", None},
		{"rm -f *.pyc build/*.o", None},
		{"rm -rf *", None}, // bash's * leaves .rewind.toml and .claude
		{"shopt -s dotglob; rm -rf *", Ask},
		{"rm -rf .c*", Ask},
		{"rm -rf ~/.cache/*", None},
		// Compressors, archivers, renamers.
		{"gzip .rewind.toml", Ask},
		{"xz ~/.config/rewind/config.toml", Ask},
		{"bzip2 .claude/settings.json", Ask},
		{"zstd --rm .rewind.toml", Ask},
		{"gunzip /tmp/x/.rewind.toml.gz", Ask},
		{"gzip -r .claude", Ask},
		{"gzip -k .rewind.toml", None},
		{"gzip -c .rewind.toml > /tmp/c.gz", None},
		{"zstd .rewind.toml", None},
		{"gzip build/out.txt", None},
		{"zip -m /tmp/a.zip .rewind.toml", Ask},
		{"zip -rm /tmp/a.zip .claude", Ask},
		{"zip -r /tmp/a.zip .", None},
		{"7z a /tmp/a.7z .claude -sdel", Ask},
		{"7z a /tmp/a.7z .claude", None},
		{"tar czf /tmp/a.tgz --remove-files .claude", Ask},
		{"tar cf .rewind.toml build", Ask},
		{"tar czf /tmp/a.tgz .claude .rewind.toml", None},
		{`rename 's/\.toml$/.bak/' .rewind.toml`, Ask},
		{"rename 's/notes/.rewind/' build/notes.toml", Ask},
		{"rename .txt .md build/a.txt build/b.txt", None},
		{`rename 's/(\w+)/\U$1/' build/a.txt`, None},
		{`rename 's/(\w+)/\U$1/' a.txt`, Ask},
		{"rename -n 's/a/b/' .rewind.toml", None},
		{"awk -i inplace '{print}' .rewind.toml", Ask},
		{"gawk --include=inplace -v x=1 '{print}' .claude/settings.json", Ask},
		{"awk '{print}' .rewind.toml > /tmp/x", None},
		{"sort -o .rewind.toml build/out.txt", Ask},
		{"sort -uo .rewind.toml build/out.txt", Ask},
		{"sort -u .rewind.toml", None},
		{"uniq build/out.txt .mcp.json", Ask},
		{"uniq .rewind.toml", None},
		{"patch .rewind.toml /tmp/fix.diff", Ask},
		{"patch --dry-run .rewind.toml /tmp/fix.diff", None},
		{"go build -o ~/.config/rewind/config.toml ./x", Ask},
		{"go build -o build/ ./cmd/x", None},
		// Copies of folders and links over folders.
		{"ln -sfn /tmp/evil ~/.config/rewind", Ask},
		{"ln -sfn /tmp/evil build/link", None},
		{"cp -r " + evil + "/. ~/.config/rewind/", Ask},
		{"cp -r " + plain + "/. ~/.config/rewind/", None},
		{"cp -r " + tmpl + "/. .", Ask},
		{"cp -r " + plain + "/. .", None},
		{"cp -rT " + evil + " ~/.config/rewind", Ask},
		{"rsync -a " + tmpl + "/ ./", Ask},
		{"rsync -a " + plain + "/ ./", None},
		// Clustered short options.
		{"curl -sSo .rewind.toml https://example.com/x", Ask},
		{"curl -sSLo build/x.json https://example.com/x", None},
		{"wget -qO .mcp.json https://example.com/x", Ask},
		{"wget -qO- https://example.com/x", None},
		// Hiding a folder from its owner.
		{"chmod 000 ~/.config/rewind", Ask},
		{"chmod u-r ~/.config", Ask},
		{"chmod -R 644 .", Ask},
		{"chmod a=r ~/.config/rewind", Ask},
		{"chown nobody ~/.config/rewind", Ask},
		{"setfacl -m u::--- ~/.config/rewind", Ask},
		{"chattr +i " + l.state, Ask},
		{"chmod 755 ~/.config/rewind", None},
		{"chmod -R go-w .", None},
		{"chmod u+rwx,go-w ~/.config", None},
		{"chmod +x build/out.txt", None},
		{"setfacl -m u:bob:r build", None},
		{"chattr +i build", None},
		// Prose quoting them.
		{"git commit -m 'gzip .rewind.toml; chmod 000 ~/.config/rewind'", None},
		{"echo 'rm -rf ~/.local/*' > build/notes.txt", None},
	} {
		if v := judgeIn(p, l.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s: %s), want %s", tt.cmd, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}

// TestFindBranches: with -o, only the files that reach the branch that
// deletes are deleted.
func TestFindBranches(t *testing.T) {
	t.Parallel()
	l, p := removalLab(t)
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		{"find . -path ./build -prune -o -name '*.pyc' -delete", None},
		{"find . -name '*.pyc' -o -name '*.o' -delete", None},
		{"find . -type f -name '*.tmp' -mtime +7 -delete", None},
		{"find . \\( -name '*.pyc' -o -name '*.o' \\) -delete", None},
		{"find . -name '*.pyc' -exec rm {} +", None},
		{"find . -name '*.pyc' -o -delete", Ask},
		{"find . ! -name '*.pyc' -delete", Ask},
		{"find . \\( -name '*.pyc' -o -name 'settings.json' \\) -delete", Ask},
		{"find . -name '*.json' -exec sh -c 'rm \"$1\"' _ {} \\;", Ask},
		{"find . -name .rewind.toml , -delete", Ask},
		{"find . -delete -name '*.pyc'", Ask},
		{"find . -name '*.pyc' -delete -o", Ask},
	} {
		if v := judgeIn(p, l.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s), want %s", tt.cmd, v.Effect, v.Reason, tt.want)
		}
	}
}

// TestCopyDestination: a copy's destination is taken for a folder only
// when it is one (or named as one), looked at only when the name inside
// it would be a guarded one.
func TestCopyDestination(t *testing.T) {
	t.Parallel()
	l, p := removalLab(t)
	backup := filepath.Join(l.root, "backup")
	if err := os.Mkdir(backup, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		{"cp .rewind.toml /tmp/backup.toml", None},
		{"cp .claude/settings.json " + filepath.Join(l.root, "settings.json.bak"), None},
		{"cp .rewind.toml " + backup, Ask},
		{"cp .rewind.toml " + backup + "-new/", Ask},
		{"cp -t /tmp .rewind.toml", Ask},
		{"cp /tmp/evil.toml .rewind.toml", Ask},
		{"cp /tmp/x.json /tmp/y.json .claude", Ask},
	} {
		if v := judgeIn(p, l.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s), want %s", tt.cmd, v.Effect, v.Reason, tt.want)
		}
	}
}

// TestPowerShellRemovals: PowerShell's removals, moves and extractions of
// folders above rewind's files, also with the paths from the pipeline,
// are writes to them.
func TestPowerShellRemovals(t *testing.T) {
	t.Parallel()
	l, p := writersLab(t)
	for _, tt := range []struct {
		code string
		want Effect
	}{
		{"Remove-Item -Recurse -Force ~/.config", Ask},
		{"Remove-Item -Recurse -Force " + l.project, Ask},
		{"Get-ChildItem -Force | Remove-Item -Recurse -Force", Ask},
		{"Get-Item .rewind.toml | Remove-Item", Ask},
		{"gci ~/.local/state | Where-Object { $_.Name -like 'r*' } | Remove-Item -Recurse", Ask},
		{"$items | Remove-Item -Recurse", Ask},
		{"Get-Content list.txt | Remove-Item", Ask},
		{"Move-Item .claude C:/tmp/x", Ask},
		{"Expand-Archive -Force x.zip -DestinationPath .", Ask},
		{"Expand-Archive x.zip -DestinationPath build", None},
		{"Copy-Item -Recurse " + filepath.Join(l.root, "tmpl") + "/* .", Ask},
		{"Remove-Item -Recurse ~/.local/*", Ask},
		{"Remove-Item -Recurse -Force build", None},
		{"Get-ChildItem build | Remove-Item -Recurse", None},
		{"Get-ChildItem *.tmp | Remove-Item", None},
		{"Write-Output 'Get-ChildItem -Force | Remove-Item -Recurse'", None},
	} {
		v := p.Classify(Call{Tool: "PowerShell", Input: json.RawMessage(`{"command":` + quoteJSON(tt.code) + `}`), Cwd: l.project})
		if v.Effect != tt.want {
			t.Errorf("%q: got %s (%s: %s), want %s", tt.code, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}

func TestModeKeepsOwner(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]bool{
		"755": true, "0700": true, "1777": true, "644": false, "000": false, "u+x": true, "+x": true, "go-w": true,
		"o-rwx,g-w": true, "u-r": false, "-w": false, "a=r": false, "u=rwx": true, "u+r,u-x": false, "": false, "x": false,
	} {
		if got := modeKeepsOwner(mode); got != want {
			t.Errorf("modeKeepsOwner(%q) = %v, want %v", mode, got, want)
		}
	}
}

func TestArgWordsClusters(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-sSo", "out", "https://x"}, "out"},
		{[]string{"-sSoout", "https://x"}, "out"},
		{[]string{"-o", "out"}, "out"},
		{[]string{"-oout"}, "out"},
		{[]string{"--output=out"}, ""},
		{[]string{"-sS", "https://x"}, ""},
	} {
		_, values := argWords(&subject{args: tt.args}, []string{"-o", "-H"})
		if got := values["-o"]; got != tt.want {
			t.Errorf("%q: -o = %q, want %q", strings.Join(tt.args, " "), got, tt.want)
		}
	}
}

// FuzzFindExpr: no expression of find's makes reading it crash or
// recurse without bound, and one that deletes with no name test deletes
// any name.
func FuzzFindExpr(f *testing.F) {
	for _, s := range []string{". -name *.pyc -delete", ". -path ./b -prune -o -name *.o -delete", ". ( ( ( -name x ) ) ) -delete",
		". ! -name a -o -exec rm {} ; -delete", ". -delete", ". -exec", ". ( -o ) , -delete"} {
		f.Add(s, ".rewind.toml")
	}
	f.Fuzz(func(t *testing.T, expr, base string) {
		s := subject{name: "find", args: strings.Fields(expr)}
		roots, idx := findArgs(&s)
		e := findExpr{s: &s, args: idx}
		if !e.removes() {
			return
		}
		got := e.deletes(base)
		if len(idx) == 1 && s.args[idx[0]] == "-delete" && !got {
			t.Errorf("find %v -delete keeps %q", roots, base)
		}
	})
}

// TestWriteNamedPastANUL: a file named by $'...' up to a NUL is the file
// bash writes; the same text in a commit message writes nothing.
func TestWriteNamedPastANUL(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	wantEffects(t, p, []effectCase{
		{`echo b > $'.rewind.toml\x00x'`, Ask},
		{`cd $'/tmp\x00x'; echo b > .rewind.toml`, Ask},
		{`git commit -m $'echo b > .rewind.toml\x00x'`, None},
	})
}
