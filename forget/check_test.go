package forget

import (
	"errors"
	"testing"

	"github.com/samem/trainer/internal/golden"
)

func TestPromptGolden(t *testing.T) {
	msgs, err := Messages("You are carrying the target object. It still needs to be heated.", "Go to the appliance the task needs.")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "prompt-check.golden", golden.Messages(msgs))
}

func TestParseVerdict(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"is_valid: True", true},
		{"is_valid: False", false},
		{"IS_VALID: true", true},
		{"**is_valid**: <False>", false},
		{"Reasoning...\nis_valid: False\n", false},
		{"is valid = yes", true},
		{"`is_valid: True`", true},
		{"The thought is valid, so\nis_valid: [False]", false},
	} {
		got, err := ParseVerdict(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseVerdict(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "True", "the thought is valid", "is_valid:", "is_valid: maybe"} {
		if _, err := ParseVerdict(bad); !errors.Is(err, ErrUnparsable) {
			t.Errorf("ParseVerdict(%q) error = %v, want ErrUnparsable", bad, err)
		}
	}
}

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{"is_valid: True", "is_valid: False", "is valid", "", "is_valid:is_valid: no"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVerdict(s)
		if err != nil && v {
			t.Fatalf("ParseVerdict(%q) = true with error %v", s, err)
		}
	})
}
