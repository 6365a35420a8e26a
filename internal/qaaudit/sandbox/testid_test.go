package sandbox

import "testing"

func TestDecodeTestID(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`test_slug[Cr\xe8me br\xfbl\xe9e-creme-brulee]`, "test_slug[Crème brûlée-creme-brulee]"},
		{`test_x[\u65e5\u672c]`, "test_x[日本]"},
		{`test_x[\U0001f600]`, "test_x[😀]"},
		{`test_x[a\\xe8]`, `test_x[a\\xe8]`},   // an escaped backslash, then "xe8"
		{`test_x[\n\t]`, `test_x[\n\t]`},       // control characters stay escaped
		{`test_x[\x07]`, `test_x[\x07]`},       // so does a control byte
		{`test_x[\xzz\x4]`, `test_x[\xzz\x4]`}, // invalid escapes are left alone
		{`test_plain`, "test_plain"},
		{`test_x[\`, `test_x[\`},
	} {
		if got := decodeTestID(tt.in); got != tt.want {
			t.Errorf("decodeTestID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
