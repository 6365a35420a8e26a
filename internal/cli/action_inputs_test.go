package cli

import (
	"strings"
	"testing"
)

func TestInputGetenv(t *testing.T) {
	env := map[string]string{"INPUT_MODE": "from-env", "GITHUB_WORKSPACE": "/w"}
	tests := []struct {
		name    string
		inputs  string
		key     string
		want    string
		wantErr string
	}{
		{name: "no JSON reads INPUT_ variables", key: "INPUT_MODE", want: "from-env"},
		{name: "JSON wins over INPUT_ variables", inputs: `{"mode":"set"}`, key: "INPUT_MODE", want: "set"},
		{name: "dashed names", inputs: `{"out-dir":"r"}`, key: "INPUT_OUT-DIR", want: "r"},
		{name: "absent input is empty", inputs: `{"mode":"set"}`, key: "INPUT_SET", want: ""},
		{name: "other variables pass through", inputs: `{"mode":"set"}`, key: "GITHUB_WORKSPACE", want: "/w"},
		{name: "booleans as text", inputs: `{"gate":true}`, key: "INPUT_GATE", want: "true"},
		{name: "not an object", inputs: `["set"]`, wantErr: "BENCHGATE_INPUTS: expected a JSON object"},
		{name: "nested value", inputs: `{"mode":{"a":1}}`, wantErr: `input "mode": expected a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == inputsVar {
					return tt.inputs
				}
				return env[k]
			}
			got, err := inputGetenv(getenv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v := got(tt.key); v != tt.want {
				t.Errorf("%s = %q, want %q", tt.key, v, tt.want)
			}
		})
	}
}
