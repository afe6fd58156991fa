package recovery

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/rewind-dev/rewind/zvm"
)

// restoreRoutes are the journal VM restore's endpoints, as the ZVM 10.0 U6
// spec names them.
var restoreRoutes = []string{"Restore", "RestoreCommit", "RestoreRollback"}

// probeVM is the VM identifier the endpoint probe names: none has it.
const probeVM = "rewind-probe.vm-0"

// RestoreEndpoints reports whether the ZVM z reaches offers the journal VM
// restore that `rewind undo --restore` needs (POST /v1/vms/{id}/Restore,
// RestoreCommit and RestoreRollback), without restoring anything: each
// route is asked with a GET, which a ZVM answers 405 for a route that
// takes POST and 404 for a route it does not have (see zvm.Client.Offers).
// missing names the endpoints the ZVM does not offer.
func RestoreEndpoints(ctx context.Context, z *zvm.Client) (missing []string, err error) {
	for _, r := range restoreRoutes {
		ok, err := z.Offers(ctx, http.MethodPost, "/v1/vms/"+probeVM+"/"+r)
		if err != nil {
			return nil, fmt.Errorf("asking the ZVM for POST /v1/vms/{id}/%s: %w", r, err)
		}
		if !ok {
			missing = append(missing, "POST /v1/vms/{id}/"+r)
		}
	}
	return missing, nil
}

// RestoreEndpointsText says RestoreEndpoints' finding in a line.
func RestoreEndpointsText(missing []string) string {
	if len(missing) == 0 {
		return "the ZVM offers journal VM restore (POST /v1/vms/{id}/Restore, RestoreCommit, RestoreRollback)"
	}
	return "the ZVM does not offer " + strings.Join(missing, ", ") + ": rewind undo --restore cannot work on it; --test can"
}
