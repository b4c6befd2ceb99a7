package main

import (
	"io"
	"slices"
	"testing"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		only []string
		bad  bool
	}{
		{nil, nil, false},
		{[]string{"-only", "step, checkpoint,"}, []string{"step", "checkpoint"}, false},
		{[]string{"-child", "step", "-record", "x"}, nil, true},
		{[]string{"extra"}, nil, true},
		{[]string{"-nope"}, nil, true},
	} {
		f, err := parseFlags(tc.args, io.Discard)
		if (err != nil) != tc.bad {
			t.Errorf("parseFlags(%q) error = %v, want error %v", tc.args, err, tc.bad)
			continue
		}
		if !tc.bad && !slices.Equal(f.only, tc.only) {
			t.Errorf("parseFlags(%q).only = %q, want %q", tc.args, f.only, tc.only)
		}
	}
}
