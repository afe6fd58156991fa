package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rewind-dev/rewind/zvmsim"
	"github.com/spf13/cobra"
)

func newSimCmd() *cobra.Command {
	var (
		addr, scenario, caOut string
		useTLS                bool
		tokenTTL              time.Duration
	)
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Run the ZVM simulator",
		Long: `sim serves a simulated Zerto Virtual Manager 10.x REST API: Keycloak tokens,
VMs, VPGs, journals that write checkpoints at each VPG's cadence, tagged
checkpoint inserts, tasks, failover tests and journal restores.

It listens on 127.0.0.1:` + defaultSimPort + ` unless --addr says otherwise (9669
is the port a ZVM's API listens on), so the README's examples, with
REWIND_ZVM_URL=http://127.0.0.1:` + defaultSimPort + `, work as they are.

The first line on stdout is the URL it serves; a summary of the scenario goes
to stderr. It runs until interrupted.

The built-in scenario (without --scenario) is set up for least privilege, as
docs/zvm-setup.md says a real ZVM should be:
  client ` + zvmsim.DefaultHookClient + `, secret ` + zvmsim.DefaultHookClientSecret + ` (client_credentials grant): the hook's,
    with Zerto's builder role: it tags checkpoints and reads, nothing more
  user ` + zvmsim.DefaultOperator + `, password ` + zvmsim.DefaultOperatorPassword + `: a person's own, with the user role: it tests,
    fails over and restores, typed when rewind undo or the page ask for it
  user ` + zvmsim.DefaultUser + `, password ` + zvmsim.DefaultPassword + `: the administrator, allowed everything
The users log in through client ` + zvmsim.DefaultPublicClient + ` (password grant), or with Basic
auth on POST /v1/session/add (Windows ZVM). A scenario file sets its own.`,
		Example: `  rewind sim
  rewind sim --addr 127.0.0.1:0 --tls --ca-out zvmsim-ca.pem
  rewind sim --scenario lab.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sc := zvmsim.DefaultScenario()
			if scenario != "" {
				var err error
				if sc, err = zvmsim.LoadScenario(scenario); err != nil {
					return &hintError{err: fmt.Errorf("--scenario: %w", err),
						hint: "give a scenario file (TOML, see docs/simulator.md), or leave --scenario out for the built-in lab"}
				}
			}
			if tokenTTL > 0 {
				sc.TokenTTL = zvmsim.Duration(tokenTTL)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runSim(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), sc, addr, useTLS, caOut)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:"+defaultSimPort, "address to listen on (port 0 picks a free port)")
	f.StringVar(&scenario, "scenario", "", "scenario `file` (TOML); the built-in lab when empty")
	f.BoolVar(&useTLS, "tls", false, "serve HTTPS with a generated self-signed certificate")
	f.StringVar(&caOut, "ca-out", "", "with --tls, write the certificate (PEM) to `file`, for ca_file")
	f.DurationVar(&tokenTTL, "token-ttl", 0, "access token lifetime (default: the scenario's, else 5m)")
	return cmd
}

// defaultSimPort is the port `rewind sim` listens on without --addr.
const defaultSimPort = "9669"

func runSim(ctx context.Context, stdout, stderr io.Writer, sc *zvmsim.Scenario, addr string, useTLS bool, caOut string) error {
	if caOut != "" && !useTLS {
		return &hintError{err: errors.New("--ca-out needs --tls"), hint: "add --tls: --ca-out writes the certificate that --tls generates"}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return listenError(err, "--addr", addr)
	}
	defer ln.Close()
	srv := zvmsim.NewServer(sc)
	defer srv.Close()

	scheme := "http"
	var tlsConfig *tls.Config
	if useTLS {
		host, _, _ := net.SplitHostPort(ln.Addr().String())
		cfg, caPEM, err := zvmsim.SelfSignedTLS("localhost", host)
		if err != nil {
			return fmt.Errorf("generating a certificate: %w", err)
		}
		if caOut != "" {
			if err := os.WriteFile(caOut, caPEM, 0o644); err != nil {
				return err
			}
		}
		tlsConfig, scheme = cfg, "https"
	}
	url := scheme + "://" + ln.Addr().String()
	fmt.Fprintln(stdout, url)
	printSummary(stderr, sc, url, caOut)
	return srv.Serve(ctx, ln, tlsConfig)
}

// rolesNote says what an identity of the simulator may do: its Zerto
// roles, or everything when it has none.
func rolesNote(roles []string) string {
	if roles == nil {
		return ", allowed everything"
	}
	return ", roles: " + strings.Join(roles, ", ")
}

func printSummary(w io.Writer, sc *zvmsim.Scenario, url, caOut string) {
	fmt.Fprintf(w, "ZVM simulator (%s) serving %s\n", sc.Name, url)
	if caOut != "" {
		fmt.Fprintf(w, "  certificate written to %s\n", caOut)
	}
	fmt.Fprintf(w, "sites:\n")
	for _, s := range sc.Sites {
		local := ""
		if strings.EqualFold(s.Name, sc.LocalSite) {
			local = " (local)"
		}
		fmt.Fprintf(w, "  %-16s %-8s %s%s\n", s.Name, s.Type, s.ID, local)
	}
	fmt.Fprintf(w, "VPGs:\n")
	for _, v := range sc.VPGs {
		note := v.Status.String()
		if v.SubStatus != zvmsim.SubStatusNone {
			note += "/" + v.SubStatus.String()
		}
		if v.InsertFailure != "" {
			note += ", inserts fail"
		}
		if v.InsertRejection != "" {
			note += ", inserts rejected"
		}
		if v.InsertTickFailure != "" {
			note += ", inserts fail at the tick"
		}
		fmt.Fprintf(w, "  %-16s %s -> %s, cadence %s, %s, VMs %s\n", v.Name, v.ProtectedSite, v.RecoverySite,
			time.Duration(v.Cadence), note, strings.Join(v.VMs, ", "))
	}
	// Only identities and their roles are shown: secrets never go to
	// output.
	fmt.Fprintf(w, "credentials:\n")
	for _, u := range sc.Credentials.Users {
		fmt.Fprintf(w, "  user %s%s\n", u.Name, rolesNote(u.Roles))
	}
	for _, c := range sc.Credentials.Clients {
		kind, roles := "public client (password grant)", ""
		if c.Secret != "" {
			kind, roles = "confidential client (client_credentials)", rolesNote(c.Roles)
		}
		fmt.Fprintf(w, "  %s %s%s\n", kind, c.ID, roles)
	}
	if h := sc.Strict.Habits(); len(h) > 0 {
		fmt.Fprintf(w, "strict: %s\n", strings.Join(h, "; "))
	}
	fmt.Fprintf(w, "token lifetime %s; stop with Ctrl-C\n", time.Duration(sc.TokenTTL))
}
