package cli

import (
	"encoding/json"
	"io"

	"github.com/rewind-dev/rewind/install"
)

// planJSON is install's (or uninstall's) plan as --json prints it.
type planJSON struct {
	Host  string `json:"host"`
	Scope string `json:"scope"`
	// DryRun is true when nothing was written.
	DryRun bool `json:"dry_run"`
	// Done is "installed" or "removed": what the command does.
	Done    string       `json:"done"`
	Changes []changeJSON `json:"changes"`
	// Unchanged are the files that are already as they should be.
	Unchanged []string `json:"unchanged"`
	// Notes say what the person must do by hand.
	Notes []string `json:"notes"`
}

type changeJSON struct {
	Path   string `json:"path"`
	Action string `json:"action"` // create, update or remove
	// Diff is the change as a unified diff.
	Diff string `json:"diff"`
}

// reportJSON writes the plan as one object, after applying it unless
// dryRun.
func reportJSON(w io.Writer, o install.Options, res *install.Result, dryRun bool, done string) error {
	if !dryRun && len(res.Changes) > 0 {
		if err := install.Apply(res.Changes); err != nil {
			return err
		}
	}
	p := planJSON{Host: string(o.Host), Scope: string(o.Scope), DryRun: dryRun, Done: done,
		Changes: []changeJSON{}, Unchanged: append([]string{}, res.Unchanged...), Notes: []string{}}
	if done == "installed" {
		p.Notes = append(p.Notes, res.Notes...)
	}
	for _, c := range res.Changes {
		action := "update"
		switch {
		case c.Old == nil:
			action = "create"
		case c.New == nil:
			action = "remove"
		}
		p.Changes = append(p.Changes, changeJSON{Path: c.Path, Action: action, Diff: string(c.Diff())})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}
