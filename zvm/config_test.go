package zvm

import (
	"testing"

	"github.com/rewind-dev/rewind/zvm/zvmconf"
)

func TestConfigOptions(t *testing.T) {
	file := zvmconf.Settings{URL: "https://zvm.lab.local", ClientID: "file-client", ClientSecret: "file-secret", CAFile: "/etc/zvm.pem"}
	tests := []struct {
		name    string
		env     map[string]string
		wantURL string
		wantID  string
		wantCA  string
		wantErr bool
	}{
		{"FileOnly", nil, "https://zvm.lab.local", "file-client", "/etc/zvm.pem", false},
		{"EnvWins", map[string]string{"REWIND_ZVM_URL": "https://other:9669", "REWIND_ZVM_CLIENT_ID": "env-client"}, "https://other:9669", "env-client", "/etc/zvm.pem", false},
		{"EmptyEnvKeepsFile", map[string]string{"REWIND_ZVM_URL": ""}, "https://zvm.lab.local", "file-client", "/etc/zvm.pem", false},
		{"BadBool", map[string]string{"REWIND_ZVM_INSECURE_SKIP_VERIFY": "maybe"}, "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ConfigOptions(file, Setup{Getenv: func(k string) string { return tt.env[k] }})
			if (err != nil) != tt.wantErr {
				t.Fatalf("ConfigOptions error %v, want error %v", err, tt.wantErr)
			}
			if o.URL != tt.wantURL || o.ClientID != tt.wantID || o.CAFile != tt.wantCA {
				t.Errorf("ConfigOptions = %+v", o)
			}
			if !tt.wantErr && o.ClientSecret != "file-secret" {
				t.Errorf("client secret not carried over")
			}
		})
	}
}
