package recovery

import (
	"context"

	"github.com/rewind-dev/rewind/audit"
)

// Losses is Loss for each of points, reading the audit log once: a front
// end that lists many rewind points with what each undoes, as the page's
// VMs view does, would otherwise read the whole log per point.
func (s *Service) Losses(ctx context.Context, points []Point) ([]Loss, error) {
	var recs []audit.Record
	if s.Log != nil {
		var err error
		if recs, err = s.Log.Read(audit.Filter{}); err != nil {
			return nil, err
		}
	}
	out := make([]Loss, len(points))
	for i, p := range points {
		l := Loss{Point: p, Since: p.Time}
		if s.Log != nil {
			l.Calls = callsSince(recs, p)
		}
		l.Text = lossText(l)
		out[i] = l
	}
	return out, nil
}
