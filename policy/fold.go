package policy

import (
	"strconv"

	"github.com/rewind-dev/rewind/shell"
)

// maxListed bounds Verdict.Invocations and each section of
// Verdict.Matches: they explain a verdict to a person, and a command of
// millions of parts needs no list of them all to be judged.
const maxListed = 1000

// fold judges the findings of a shell analysis as they come and keeps
// only what the verdict needs, so that judging a command costs memory in
// the number of its distinct targets, not of its commands. It gives the
// verdict combine gives for the list of all matches: invocations (with
// their cmdlets) first, then dynamic commands, then unparsed parts.
type fold struct {
	p *Policy
	// w is the folder the next command runs in, as far as known, and
	// what looking at folders has cost the call so far.
	w walk
	// ruledOnly keeps only the matches a rule judged: the fold of a
	// policy of Config.Tighten, which only adds to another's verdict.
	ruledOnly bool
	// sections are the invocations, the dynamic commands and the
	// unparsed parts.
	sections    [3]section
	invocations []shell.Invocation
	// judged holds the invocations judged already, with the folder they
	// ran in (see judgedKey): the same command in the same place gets the
	// same verdict, and "echo ls >> f" on 600,000 lines is judged once.
	judged map[string]struct{}
}

// Bounds of fold.judged: the invocations kept, and the length of the key
// of one; others are judged every time.
const (
	maxJudged    = 4096
	maxJudgedKey = 1024
)

// judgedKey returns the key of an invocation run in the fold's folder
// for fold.judged, or false when it is too long to keep. Every string and
// list is written with its length first, so that no two invocations share
// a key, whatever bytes their words hold.
func (f *fold) judgedKey(inv *shell.Invocation) (string, bool) {
	strs := [...]string{f.w.dir, inv.Name, inv.Path, inv.Host, inv.Remote}
	lists := [...][]string{inv.Args, inv.Payload, inv.Writes, inv.Reads, inv.Env, inv.Via}
	n := len(inv.ArgDynamic) + 8
	for _, x := range strs {
		n += len(x) + 8
	}
	for _, l := range lists {
		n += 8
		for _, x := range l {
			n += len(x) + 8
		}
	}
	if n > maxJudgedKey {
		return "", false
	}
	b := make([]byte, 0, n)
	str := func(x string) {
		b = strconv.AppendInt(b, int64(len(x)), 10)
		b = append(b, ':')
		b = append(b, x...)
	}
	for _, x := range strs {
		str(x)
	}
	b = append(b, boolByte(f.w.gitDirty), boolByte(inv.Analysed))
	b = strconv.AppendInt(b, int64(len(inv.ArgDynamic)), 10)
	b = append(b, ':')
	for _, d := range inv.ArgDynamic {
		b = append(b, boolByte(d))
	}
	for _, l := range lists {
		b = strconv.AppendInt(b, int64(len(l)), 10)
		b = append(b, ':')
		for _, x := range l {
			str(x)
		}
	}
	return string(b), true
}

func boolByte(v bool) byte {
	if v {
		return '1'
	}
	return '0'
}

// section is the combined verdict of the matches of one kind, in order.
type section struct {
	ruledOnly bool
	effect    Effect
	decided   *Match
	targets   []string
	seen      map[string]struct{}
	matches   []Match
}

func (s *section) add(m Match) {
	if s.ruledOnly && m.Rule == "" {
		return
	}
	if m.Effect > s.effect || s.decided == nil && m.Rule != "" {
		s.effect = m.Effect
		d := m
		s.decided = &d
	}
	if m.Effect >= Protect {
		if s.seen == nil {
			s.seen = make(map[string]struct{})
		}
		for _, t := range m.Targets {
			if _, ok := s.seen[t]; !ok {
				s.seen[t] = struct{}{}
				s.targets = append(s.targets, t)
			}
		}
	}
	if len(s.matches) < maxListed {
		s.matches = append(s.matches, m)
	}
}

// add judges one finding.
func (f *fold) add(x shell.Finding) {
	if x.Invocation != nil && len(f.invocations) < maxListed {
		f.invocations = append(f.invocations, *x.Invocation)
	}
	if f.p.skipped(x) {
		return
	}
	switch {
	case x.Invocation != nil:
		key, keep := f.judgedKey(x.Invocation)
		if _, ok := f.judged[key]; keep && ok {
			return
		}
		dir, dirty := f.w.dir, f.w.gitDirty
		f.p.judgeInvocation(x.Invocation, &f.w, f.section(0).add)
		// A command that moved the walk on (cd, a write to git's config)
		// is judged again where it comes again.
		if keep && f.w.dir == dir && f.w.gitDirty == dirty && len(f.judged) < maxJudged {
			if f.judged == nil {
				f.judged = make(map[string]struct{})
			}
			f.judged[key] = struct{}{}
		}
	case x.Dynamic != nil:
		f.section(1).add(f.p.judgeUnknown(x))
	case x.Unparsed != nil:
		f.section(2).add(f.p.judgeUnknown(x))
	}
}

func (f *fold) section(i int) *section {
	s := &f.sections[i]
	s.ruledOnly = f.ruledOnly
	return s
}

// verdictOf combines the sections of folds, in order, as combine does
// their matches: the first match with the most severe effect decides, or,
// when none has an effect, the first with a rule. The first fold's
// invocations are listed.
func verdictOf(folds []*fold) Verdict {
	var v Verdict
	var decided *Match
	for _, f := range folds {
		for i := range f.sections {
			s := &f.sections[i]
			if s.decided != nil && (s.effect > v.Effect || decided == nil) {
				v.Effect, decided = s.effect, s.decided
			}
			v.Targets = append(v.Targets, s.targets...)
			v.Matches = append(v.Matches, s.matches...)
		}
	}
	v.Targets = uniq(v.Targets)
	if decided != nil {
		v.Rule, v.Reason = decided.Rule, decided.Reason
	}
	v.Invocations = folds[0].invocations
	return v
}
