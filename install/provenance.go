package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// provenanceFile is the file in rewind's state folder where installs
// record what they created.
const provenanceFile = "installs.json"

// provenance is what installs created, by settings file: whether the file
// itself, the objects and arrays in it, and the folders made to hold it.
// An uninstall takes out exactly that, so that an install followed by an
// uninstall gives back the settings byte for byte, an empty object that
// was there before included. Where nothing is recorded (a file another
// machine's install wrote, a state folder lost), an uninstall takes out
// what rewind's entries leave empty.
type provenance struct {
	path  string           // "" when there is no state folder: nothing is kept
	Files map[string]*made `json:"files"`
	// Binaries are the rewind binaries installed hooks run: the policy
	// guards them as rewind's own files, since a hook binary replaced by
	// one that exits 0 lets every call through.
	Binaries []string `json:"binaries,omitempty"`
	dirty    bool
}

// made is what installs created for one settings file.
type made struct {
	File       bool       `json:"file,omitempty"`
	Containers [][]string `json:"containers,omitempty"`
	Dirs       []string   `json:"dirs,omitempty"`
}

// loadProvenance reads what installs recorded in the state folder dir; a
// folder or file that is not there records nothing.
func loadProvenance(dir string) (*provenance, error) {
	p := &provenance{Files: map[string]*made{}}
	if dir == "" {
		return p, nil
	}
	p.path = filepath.Join(dir, provenanceFile)
	data, err := os.ReadFile(p.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, nil
	case err != nil:
		return nil, err
	}
	if err := json.Unmarshal(data, p); err != nil {
		// What rewind wrote and cannot read again says nothing.
		return &provenance{path: p.path, Files: map[string]*made{}}, nil
	}
	if p.Files == nil {
		p.Files = map[string]*made{}
	}
	return p, nil
}

// mayRemove reports whether an uninstall may take out the object or array
// at path in file (the file itself for a nil path) once it is empty: when
// an install made it, or nothing is recorded for the file.
func (p *provenance) mayRemove(file string, path []string) bool {
	if p == nil {
		return true
	}
	m, ok := p.Files[file]
	if !ok {
		return true
	}
	if path == nil {
		return m.File
	}
	return slices.ContainsFunc(m.Containers, func(c []string) bool { return slices.Equal(c, path) })
}

// add records what an install made for file.
func (p *provenance) add(file string, createdFile bool, containers [][]string, dirs []string) {
	if !createdFile && len(containers) == 0 && len(dirs) == 0 {
		if _, ok := p.Files[file]; !ok {
			// Nothing made, but the file is known to predate rewind.
			p.Files[file] = &made{}
			p.dirty = true
		}
		return
	}
	m := p.Files[file]
	if m == nil {
		m = &made{}
		p.Files[file] = m
	}
	m.File = m.File || createdFile
	for _, c := range containers {
		if !slices.ContainsFunc(m.Containers, func(h []string) bool { return slices.Equal(h, c) }) {
			m.Containers = append(m.Containers, c)
		}
	}
	for _, d := range dirs {
		if !slices.Contains(m.Dirs, d) {
			m.Dirs = append(m.Dirs, d)
		}
	}
	p.dirty = true
}

// addBinaries records the binaries an install's hooks run.
func (p *provenance) addBinaries(bins []string) {
	for _, b := range bins {
		if !slices.Contains(p.Binaries, b) {
			p.Binaries = append(p.Binaries, b)
			p.dirty = true
		}
	}
}

// dirs are the folders installs made for file, deepest first.
func (p *provenance) dirs(file string) []string {
	if m, ok := p.Files[file]; ok {
		return m.Dirs
	}
	return nil
}

// forget drops what is recorded for file, after an uninstall.
func (p *provenance) forget(file string) {
	if _, ok := p.Files[file]; ok {
		delete(p.Files, file)
		p.dirty = true
	}
}

// save writes the record back, when it changed and there is a state
// folder.
func (p *provenance) save() error {
	if p.path == "" || !p.dirty {
		return nil
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return fmt.Errorf("recording the install: %w", err)
	}
	if err := writeAtomic(p.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("recording the install: %w", err)
	}
	return nil
}
