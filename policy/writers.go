package policy

import (
	"path"
	"path/filepath"
	"strings"
)

// The commands below replace or remove the files they are given without
// saying "write" in their names: a compressor replaces FILE by FILE.gz,
// zip -m and 7z -sdel delete what they archived, tar --remove-files
// what it packed, rename moves its files to names its expression makes,
// gawk -i inplace, sort -o, uniq IN OUT, patch FILE and go build -o
// rewrite a file.

// compressor says how a compressor names its output and whether it
// removes its input.
type compressor struct {
	suffix string
	// keeps is set for the compressors that keep their input unless told
	// (--rm): zstd, lz4, brotli.
	keeps      bool
	decompress bool
	// output are the options that name the output file.
	output    []string
	valueOpts []string
}

var (
	gzipOpts = []string{"-S", "--suffix", "-b", "--blocksize", "-p", "--processes"}
	xzOpts   = []string{"-S", "--suffix", "-T", "--threads", "-F", "--format", "-C", "--check", "-M", "--memlimit",
		"--memlimit-compress", "--memlimit-decompress", "--block-size", "--block-list", "--files", "--files0", "--filters"}
	zstdOpts   = []string{"-o", "-D", "-T", "-M", "--memory", "--patch-from", "--format", "-B", "--output-dir-flat", "--output-dir-mirror", "--target-compressed-block-size"}
	lz4Opts    = []string{"-B"}
	brotliOpts = []string{"-o", "--output", "-q", "--quality", "-w", "--lgwin", "-S", "--suffix", "-D", "--dictionary"}
)

// compressorOf returns how the compressor or decompressor name, which
// writes files beside the ones it is given, names its output; false for
// other commands. A switch, not a table: judging a call builds nothing for
// the commands it does not run.
func compressorOf(name string) (compressor, bool) {
	switch name {
	case "gzip", "pigz":
		return compressor{suffix: ".gz", valueOpts: gzipOpts}, true
	case "gunzip", "unpigz":
		return compressor{suffix: ".gz", decompress: true, valueOpts: gzipOpts}, true
	case "xz":
		return compressor{suffix: ".xz", valueOpts: xzOpts}, true
	case "unxz":
		return compressor{suffix: ".xz", decompress: true, valueOpts: xzOpts}, true
	case "lzma":
		return compressor{suffix: ".lzma", valueOpts: xzOpts}, true
	case "unlzma":
		return compressor{suffix: ".lzma", decompress: true, valueOpts: xzOpts}, true
	case "bzip2":
		return compressor{suffix: ".bz2", valueOpts: []string{"-S"}}, true
	case "pbzip2":
		return compressor{suffix: ".bz2", valueOpts: []string{"-p", "-b", "-m"}}, true
	case "bunzip2":
		return compressor{suffix: ".bz2", decompress: true}, true
	case "lzip":
		return compressor{suffix: ".lz", valueOpts: []string{"-o", "--output", "-b", "-m", "-s", "-S"}, output: []string{"-o", "--output"}}, true
	case "compress":
		return compressor{suffix: ".Z", valueOpts: []string{"-b"}}, true
	case "uncompress":
		return compressor{suffix: ".Z", decompress: true}, true
	case "zstd", "zstdmt":
		return compressor{suffix: ".zst", keeps: true, valueOpts: zstdOpts, output: []string{"-o"}}, true
	case "unzstd":
		return compressor{suffix: ".zst", keeps: true, decompress: true, valueOpts: zstdOpts, output: []string{"-o"}}, true
	case "lz4":
		return compressor{suffix: ".lz4", keeps: true, valueOpts: lz4Opts}, true
	case "unlz4":
		return compressor{suffix: ".lz4", keeps: true, decompress: true, valueOpts: lz4Opts}, true
	case "brotli":
		return compressor{suffix: ".br", keeps: true, valueOpts: brotliOpts, output: []string{"-o", "--output"}}, true
	}
	return compressor{}, false
}

// compressWrites reads a compressor: it writes FILE.gz for FILE (FILE
// for FILE.gz when it decompresses), or the file -o names, and removes
// FILE unless -k (the gzip family) or unless --rm (zstd, lz4, brotli).
// Writing to standard output (-c), testing or listing writes no file.
func compressWrites(s *subject) []string {
	c, _ := compressorOf(s.name)
	if hasFlag(s, "-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list") {
		return nil
	}
	pos, values := argWords(s, c.valueOpts)
	decompress := c.decompress || hasFlag(s, "-d", "--decompress", "--uncompress")
	removes := !hasFlag(s, "-k", "--keep")
	if c.keeps {
		removes = hasFlag(s, "--rm", "-j", "--remove")
	}
	suffix := c.suffix
	if v := values["-S"] + values["--suffix"]; v != "" && s.name != "pbzip2" {
		suffix = v
	}
	var out []string
	for _, o := range c.output {
		if v := values[o]; v != "" {
			out = append(out, v)
		}
	}
	if (s.name == "lz4" || s.name == "unlz4") && len(pos) == 2 && !hasFlag(s, "-m", "--multiple") {
		// lz4 IN OUT
		return append(out, pos[1], pos[0])
	}
	for _, f := range pos {
		if f == "-" {
			continue
		}
		switch {
		case !decompress:
			out = append(out, f+suffix)
		case strings.HasSuffix(strings.ToLower(f), strings.ToLower(suffix)):
			out = append(out, f[:len(f)-len(suffix)])
		case strings.HasSuffix(strings.ToLower(f), ".tgz"):
			out = append(out, f[:len(f)-len(".tgz")]+".tar")
		}
		if removes {
			out = append(out, f)
		}
	}
	return out
}

// compressTrees reads a compressor given -r: every file in the folders
// it is given is replaced.
func compressTrees(s *subject) []tree {
	if !hasFlag(s, "-r", "--recursive") || hasFlag(s, "-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list") {
		return nil
	}
	c, _ := compressorOf(s.name)
	pos, _ := argWords(s, c.valueOpts)
	var out []tree
	for _, p := range pos {
		out = append(out, tree{root: p, kind: treeRemove, via: s.name + " -r " + p})
	}
	return out
}

// zipValueOpts are zip's options that take a value.
var zipValueOpts = []string{"-b", "--temp-path", "-n", "--suffixes", "-t", "--from-date", "-tt", "--before-date", "-x", "--exclude",
	"-i", "--include", "-P", "--password", "-O", "--output-file", "-Z", "--compression-method", "-s", "--split-size", "-sb", "-sp"}

// zipWrites reads zip: it writes its archive (with .zip added to a name
// without an extension, or the one -O names), and -m removes what it
// archived.
func zipWrites(s *subject) []string {
	pos, values := argWords(s, zipValueOpts)
	if len(pos) == 0 {
		return nil
	}
	out := []string{pos[0]}
	if path.Ext(pos[0]) == "" {
		out = append(out, pos[0]+".zip")
	}
	if v := values["-O"] + values["--output-file"]; v != "" {
		out = append(out, v)
	}
	if hasFlag(s, "-m", "--move") {
		out = append(out, pos[1:]...)
	}
	return out
}

// zipTrees reads zip -m -r: the folders it archives go.
func zipTrees(s *subject) []tree {
	if !hasFlag(s, "-m", "--move") || !hasFlag(s, "-r", "--recurse-paths") {
		return nil
	}
	pos, _ := argWords(s, zipValueOpts)
	var out []tree
	for _, p := range pos[min(1, len(pos)):] {
		out = append(out, tree{root: p, kind: treeRemove, via: "zip -m " + p})
	}
	return out
}

// sevenZipWrites reads 7z a, u, d and rn, which write their archive, and
// -sdel, which deletes what it archived.
func sevenZipWrites(s *subject) []string {
	pos, _ := argWords(s, nil)
	if len(pos) < 2 {
		return nil
	}
	switch pos[0] {
	case "a", "u", "d", "rn":
		out := []string{pos[1]}
		if hasFlag(s, "-sdel") {
			out = append(out, pos[2:]...)
		}
		return out
	}
	return nil
}

// sevenZipTrees reads 7z a -sdel of folders.
func sevenZipTrees(s *subject) []tree {
	pos, _ := argWords(s, nil)
	if len(pos) < 3 || pos[0] != "a" && pos[0] != "u" || !hasFlag(s, "-sdel") {
		return nil
	}
	var out []tree
	for _, p := range pos[2:] {
		out = append(out, tree{root: p, kind: treeRemove, via: "7z -sdel " + p})
	}
	return out
}

// tarValueOpts are tar's options that take a value.
var tarValueOpts = []string{"-C", "--directory", "-f", "--file", "-b", "-T", "--files-from", "-X", "--exclude-from", "-H", "--format", "-I", "--use-compress-program", "-N", "--newer", "-V", "--label", "-g", "--listed-incremental", "--exclude", "--transform", "--owner", "--group", "--mode", "--mtime"}

// tarCreates reports whether tar's arguments ask it to write an archive:
// -c, -r, -u or -A, or those letters in the old-style first word.
func tarCreates(s *subject) bool {
	if len(s.args) > 0 && !strings.HasPrefix(s.args[0], "-") && strings.ContainsAny(s.args[0], "cruA") {
		return true
	}
	return hasFlag(s, "-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete")
}

// tarInputs returns the files and folders tar packs: its positionals,
// without the old-style letters and the archive they name.
func tarInputs(s *subject) []string {
	sub := *s
	if len(s.args) > 0 && !strings.HasPrefix(s.args[0], "-") {
		skip := 1
		if strings.ContainsRune(s.args[0], 'f') {
			skip = 2
		}
		sub.args = s.args[min(skip, len(s.args)):]
	}
	pos, _ := argWords(&sub, tarValueOpts)
	return pos
}

// tarWrites reads tar writing an archive: the archive is written, and
// with --remove-files the files packed go.
func tarWrites(s *subject) []string {
	if !tarCreates(s) {
		return nil
	}
	var out []string
	if f := archiveOf(s); f != "" && f != "-" {
		out = append(out, f)
	}
	if hasFlag(s, "--remove-files") {
		out = append(out, tarInputs(s)...)
	}
	return out
}

// renameWrites reads rename, Perl's (rename 's/a/b/' FILES) or
// util-linux's (rename FROM TO FILES): each file is moved away, and to
// the name the expression makes when that can be told (a literal
// substitution); renameTrees covers the others.
func renameWrites(s *subject) []string {
	files, names, _ := renamed(s)
	return append(files, names...)
}

// renameTrees reads a rename whose new names cannot be told (a regular
// expression): it may make any name in the folders of its files.
func renameTrees(s *subject) []tree {
	files, _, known := renamed(s)
	if known {
		return nil
	}
	var out []tree
	seen := map[string]bool{}
	for _, f := range files {
		d := path.Dir(filepath.ToSlash(f))
		if !seen[d] {
			seen[d] = true
			out = append(out, tree{root: d, kind: treeUnknown, via: "rename in " + d})
		}
	}
	return out
}

// renamed reads rename's words: the files it renames, their new names,
// and whether those are known.
func renamed(s *subject) (files, names []string, known bool) {
	if hasFlag(s, "-n", "--no-act", "--nono", "-h", "--help", "-V", "--version") {
		return nil, nil, true
	}
	pos, values := argWords(s, []string{"-e", "-E"})
	expr := values["-e"] + values["-E"]
	var from, to string
	literal := false
	switch {
	case expr != "":
		files = pos
		from, to, literal = perlSubst(expr)
	case len(pos) > 0 && isPerlExpr(pos[0]):
		files = pos[1:]
		from, to, literal = perlSubst(pos[0])
	case len(pos) >= 2:
		// util-linux: the first occurrence of FROM becomes TO.
		from, to, literal, files = pos[0], pos[1], true, pos[2:]
	default:
		return nil, nil, true
	}
	if !literal {
		return files, nil, false
	}
	for _, f := range files {
		if n := strings.Replace(f, from, to, 1); n != f {
			names = append(names, n)
		}
	}
	return files, names, true
}

// isPerlExpr reports whether w is a Perl substitution or transliteration
// (s/a/b/, y/a/b/, tr/a/b/), as Perl's rename takes first.
func isPerlExpr(w string) bool {
	for _, op := range []string{"s", "y", "tr"} {
		if rest, ok := strings.CutPrefix(w, op); ok && rest != "" && !isWordByte(rest[0]) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// perlSubst reads s/FROM/TO/ whose FROM is literal (escaped dots, and
// the anchors ^ and $ aside), and reports whether it is.
func perlSubst(expr string) (from, to string, ok bool) {
	if len(expr) < 4 || expr[0] != 's' {
		return "", "", false
	}
	d := expr[1]
	parts := strings.Split(expr[2:], string(d))
	if len(parts) != 3 || strings.Trim(parts[2], "gi") != "" || strings.ContainsRune(parts[2], 'i') {
		return "", "", false
	}
	from = strings.TrimSuffix(strings.TrimPrefix(parts[0], "^"), "$")
	from = strings.ReplaceAll(from, `\.`, ".")
	if strings.ContainsAny(from, `\()[]{}*+?|^$`) || strings.ContainsAny(parts[1], `\$@`) {
		return "", "", false
	}
	return from, parts[1], true
}

// awkWrites reads gawk -i inplace, which rewrites the files it reads.
func awkWrites(s *subject) []string {
	inplace := false
	for i, a := range s.args {
		v, ok := "", false
		switch {
		case a == "-i" || a == "--include":
			if i+1 < len(s.args) {
				v, ok = s.args[i+1], true
			}
		case strings.HasPrefix(a, "--include="):
			v, ok = a[len("--include="):], true
		case strings.HasPrefix(a, "-i"):
			v, ok = a[2:], true
		}
		if ok && (v == "inplace" || v == "inplace.awk" || strings.HasSuffix(v, "/inplace.awk")) {
			inplace = true
		}
	}
	if !inplace {
		return nil
	}
	pos, values := argWords(s, []string{"-f", "--file", "-v", "--assign", "-F", "--field-separator", "-i", "--include",
		"-l", "--load", "-E", "--exec", "-e", "--source", "-W"})
	if values["-f"]+values["--file"]+values["-e"]+values["--source"]+values["-E"]+values["--exec"] == "" && len(pos) > 0 {
		pos = pos[1:] // the program
	}
	var out []string
	for _, p := range pos {
		if !strings.Contains(p, "=") {
			out = append(out, p)
		}
	}
	return out
}

// sortOutput reads sort -o FILE.
func sortOutput(s *subject) []string {
	_, values := argWords(s, []string{"-o", "--output", "-k", "--key", "-t", "--field-separator", "-T", "--temporary-directory",
		"-S", "--buffer-size", "--parallel", "--batch-size", "--files0-from", "--compress-program", "--random-source"})
	if v := values["-o"] + values["--output"]; v != "" {
		return []string{v}
	}
	return nil
}

// uniqOutput reads uniq IN OUT.
func uniqOutput(s *subject) []string {
	pos, _ := argWords(s, []string{"-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars", "--group", "--all-repeated"})
	if len(pos) >= 2 {
		return pos[1:2]
	}
	return nil
}

// patchValueOpts are patch's options that take a value.
var patchValueOpts = []string{"-p", "-d", "--directory", "-i", "--input", "-o", "--output", "-r", "-B", "-F", "-z", "-D", "-V", "-Y"}

// patchWrites reads patch FILE [PATCHFILE] and -o FILE: the file patched.
func patchWrites(s *subject) []string {
	if hasFlag(s, "--dry-run", "-C", "--check") {
		return nil
	}
	pos, values := argWords(s, patchValueOpts)
	var out []string
	if len(pos) > 0 {
		out = append(out, pos[0])
	}
	if v := values["-o"] + values["--output"]; v != "" && v != "-" {
		out = append(out, v)
	}
	return out
}

// goBuildOutput reads go build -o: the file, or in the folder it names,
// a binary named for each package.
func goBuildOutput(s *subject) []string {
	pos, values := argWords(s, []string{"-o", "-C", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-overlay", "-pgo", "-toolexec", "-exec", "-buildmode", "-compiler", "-installsuffix", "-pkgdir", "-coverpkg", "-covermode"})
	if len(pos) == 0 || pos[0] != "build" {
		return nil
	}
	o := values["-o"]
	if o == "" {
		return nil
	}
	out := []string{o}
	for _, pkg := range pos[1:] {
		if pkg = strings.TrimSuffix(filepath.ToSlash(pkg), "/"); pkg != "." && !strings.HasSuffix(pkg, ".go") {
			out = append(out, path.Join(o, path.Base(pkg)))
		}
	}
	return out
}

// modeKeepsOwner reports whether a chmod mode leaves the owner's read,
// write and search (or execute) rights as they are or grants them: 755,
// u+x, go-w. Any other mode may take them away, and a folder whose owner
// cannot read it hides what is in it (chmod 000 ~/.config/rewind).
func modeKeepsOwner(mode string) bool {
	if mode == "" {
		return false
	}
	if strings.Trim(mode, "01234567") == "" {
		n := 0
		for _, c := range mode {
			n = n*8 + int(c-'0')
		}
		return n&0o700 == 0o700
	}
	for clause := range strings.SplitSeq(mode, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		touchesOwner := len(who) == len(clause) || strings.ContainsAny(clause[:len(clause)-len(who)], "ua")
		if who == "" || !strings.ContainsAny(who[:1], "+-=") {
			return false
		}
		if !touchesOwner {
			continue
		}
		for i := 0; i < len(who); {
			op := who[i]
			j := i + 1
			for j < len(who) && !strings.ContainsRune("+-=", rune(who[j])) {
				j++
			}
			perms := who[i+1 : j]
			switch op {
			case '-':
				if strings.ContainsAny(perms, "rwxX") {
					return false
				}
			case '=':
				if !strings.ContainsRune(perms, 'r') || !strings.ContainsRune(perms, 'w') || !strings.ContainsAny(perms, "xX") {
					return false
				}
			}
			i = j
		}
	}
	return true
}
