package swebenchtest

import (
	"reflect"
	"testing"
)

func TestParseLdd(t *testing.T) {
	tests := []struct {
		name, out string
		want      []string
	}{
		{"glibc with loader and vdso", "\tlinux-vdso.so.1 (0x00007fff)\n\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f1)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f3)\n",
			[]string{"/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}},
		{"static binary", "\tnot a dynamic executable\n", nil},
		{"library not found", "\tlibgone.so.1 => not found\n", nil},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		if got := ParseLdd(tc.out); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ParseLdd = %q, want %q", tc.name, got, tc.want)
		}
	}
}
