package redact

import (
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"Plain", "govc vm.power -off web-01", "govc vm.power -off web-01"},
		{"EnvAssignment", "REWIND_ZVM_PASSWORD=hunter2 rewind doctor", "REWIND_ZVM_PASSWORD=[redacted] rewind doctor"},
		{"ExportQuoted", `export REWIND_ZVM_PASSWORD='p@ss w0rd'; rewind hook`, `export REWIND_ZVM_PASSWORD=[redacted]; rewind hook`},
		{"DoubleQuotedEscape", `PASSWORD="a\"b c" x`, `PASSWORD=[redacted] x`},
		{"PasswordEq", "curl -d password=hunter2&user=bob", "curl -d password=[redacted]&user=bob"},
		{"TokenEq", "https://api/x?token=abc123&q=1", "https://api/x?token=[redacted]&q=1"},
		{"ClientSecret", "client_secret=s3cr3t grant_type=client_credentials", "client_secret=[redacted] grant_type=client_credentials"},
		{"JSONField", `{"vm_name":"web-01","password":"hunter2"}`, `{"vm_name":"web-01","password":[redacted]}`},
		{"YAMLField", "secret: hunter2", "secret: [redacted]"},
		{"FlagSpace", "vcli --password hunter2 --host h", "vcli --password [redacted] --host h"},
		{"FlagEq", "vcli --password=hunter2 --host h", "vcli --password=[redacted] --host h"},
		{"FlagQuoted", `vcli --client-secret "a b" -v`, `vcli --client-secret [redacted] -v`},
		{"SingleDashFlag", "tool -api-key abc", "tool -api-key [redacted]"},
		{"MysqlGlued", "mysql -u root -phunter2 db", "mysql -u root -p[redacted] db"},
		{"MysqlQuoted", "mysql -u root -p'hun ter2' db", "mysql -u root -p[redacted] db"},
		{"GluedQuotedElsewhere", `psql-like -p"se cret"`, `psql-like -p[redacted]`},
		{"MkdirP", "mkdir -pv /tmp/a && ssh -p 2222 web-01", "mkdir -pv /tmp/a && ssh -p 2222 web-01"},
		{"Sshpass", "sshpass -p hunter2 ssh root@web-01 reboot", "sshpass -p [redacted] ssh root@web-01 reboot"},
		{"SshpassGlued", "sshpass -phunter2 ssh web-01", "sshpass -p[redacted] ssh web-01"},
		{"SshpassQuoted", "sshpass -v -p 'a b' ssh web-01", "sshpass -v -p [redacted] ssh web-01"},
		{"Bearer", `curl -H "Authorization: Bearer eyJabc.def" https://zvm/v1/vms`, `curl -H "Authorization: Bearer [redacted]" https://zvm/v1/vms`},
		{"BareBearer", "bearer abc.def-ghi", "bearer [redacted]"},
		{"BasicAuth", "-H 'Authorization: Basic dXNlcjpwYXNz'", "-H 'Authorization: Basic [redacted]'"},
		{"ZertoSession", "-H 'x-zerto-session: 0f3c9a'", "-H 'x-zerto-session: [redacted]'"},
		{"AWSKey", "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "aws configure set aws_access_key_id [redacted]"},
		{"AWSSecret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "AWS_SECRET_ACCESS_KEY=[redacted] aws s3 ls"},
		{"GitHubToken", "gh auth login --with-token <<< ghp_0123456789abcdefghijABCDEFGHIJ012345", "gh auth login --with-token <<< [redacted]"},
		{"JWT", "echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcDEF123", "echo [redacted]"},
		{"URLUserinfo", "govc ls -u 'https://admin:hunter2@vc.lab/sdk'", "govc ls -u 'https://admin:[redacted]@vc.lab/sdk'"},
		{"SchemelessUserinfo", "govc ls -u admin:hunter2@vc.lab", "govc ls -u admin:[redacted]@vc.lab"},
		{"GitRemoteUntouched", "git clone git@github.com:org/repo.git", "git clone git@github.com:org/repo.git"},
		{"PrivateKey", "cat > k <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nEOF", "cat > k <<EOF\n[redacted]\nEOF"},
		{"PrivateKeyCut", "x -----BEGIN RSA PRIVATE KEY-----\nMIIEow", "x [redacted]"},
		{"Idempotent", "password=[redacted] --token [redacted]", "password=[redacted] --token [redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Command(tt.in)
			if got != tt.want {
				t.Errorf("Command(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Command(got); again != got {
				t.Errorf("Command is not idempotent: %q became %q", got, again)
			}
		})
	}
}

// FuzzHints holds the hints to their rules: Command skips a rule whose
// hints a text lacks, which must change nothing against applying every
// rule.
func FuzzHints(f *testing.F) {
	for _, s := range []string{"REWIND_ZVM_PASSWORD=hunter2 rewind doctor", "mysql -u root -phunter2 db", "sshpass -p x ssh h",
		`curl -H "Authorization: Bearer eyJabc.def" https://zvm`, "-H 'Authorization: Basic dXNlcjpwYXNz'", "AKIAIOSFODNN7EXAMPLE",
		"ghp_0123456789abcdefghijABCDEFGHIJ012345", "govc ls -u admin:hunter2@vc.lab", "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
		"x-zerto-session: 0f3c", "PAſSWORD=x", "--toKen y", "cookie=c"} {
		f.Add(s)
	}
	every := func(s string, rules []*rule) string {
		for _, r := range rules {
			s = r.replace(s)
		}
		return s
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Command(s), every(every(s, shapes), assignments); got != want {
			t.Fatalf("Command(%q) = %q, every rule gives %q", s, got, want)
		}
	})
}
