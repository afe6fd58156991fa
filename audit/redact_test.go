package audit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRedact(t *testing.T) {
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
			got := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Redact(got); again != got {
				t.Errorf("Redact is not idempotent: %q became %q", got, again)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"Short", "ls -l", 10, "ls -l"},
		{"SingleLine", "  git commit -m \"$(cat <<'EOF'\nfix\n\tthings\r\nEOF\n)\"  ", 100, `git commit -m "$(cat <<'EOF' fix things EOF )"`},
		{"ControlChars", "echo \x1b[31mred\x1b[0m\u202e", 100, "echo [31mred [0m"},
		{"Cut", "abcdefghij", 5, "abcd…"},
		{"CutRunes", "ééééééé", 4, "ééé…"},
		{"CutAtSpace", "abc def", 5, "abc…"},
		{"Exact", "abcde", 5, "abcde"},
		{"RedactedBeforeCut", "sshpass -p hunter2 ssh web-01 reboot", 24, "sshpass -p [redacted] s…"},
		{"DefaultMax", strings.Repeat("a", 300), 0, strings.Repeat("a", DefaultExcerptRunes-1) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Excerpt(tt.in, tt.max)
			if got != tt.want {
				t.Errorf("Excerpt(%q, %d)\n got %q\nwant %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestExcerptHugeInput(t *testing.T) {
	// A secret that straddles the redaction window must not show in part;
	// the window is cut back to a word boundary.
	filler := strings.Repeat("\n", 20000)
	in := "deploy" + filler + "AKIAIOSFODNN7EXAMPLE" + strings.Repeat("x", 1<<20)
	got := Excerpt(in, 50)
	if strings.Contains(got, "AKIA") {
		t.Errorf("Excerpt shows part of a secret cut by its window: %q", got)
	}
	if utf8.RuneCountInString(got) > 50 || !strings.HasPrefix(got, "deploy") {
		t.Errorf("Excerpt = %q", got)
	}
}

func BenchmarkExcerpt(b *testing.B) {
	cmd := `ssh root@web-01 'systemctl restart nginx && REWIND_ZVM_PASSWORD=x curl -H "Authorization: Bearer abc" https://zvm/v1/vms'`
	big := strings.Repeat(cmd+"\n", 100000)
	b.Run("Command", func(b *testing.B) {
		for b.Loop() {
			Excerpt(cmd, DefaultExcerptRunes)
		}
	})
	b.Run("Huge", func(b *testing.B) {
		for b.Loop() {
			Excerpt(big, DefaultExcerptRunes)
		}
	})
}
