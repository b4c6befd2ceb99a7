package jsonschema

import (
	"strings"
	"testing"
)

const good = `{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer","enum":[1,2,3]},
"list":{"type":"array","items":{"type":"object","properties":{"b":{"type":"boolean"}},"required":["b"],"additionalProperties":false}}},
"required":["a","n","list"],"additionalProperties":false}`

func TestStrict(t *testing.T) {
	if err := Strict([]byte(good)); err != nil {
		t.Fatalf("Strict(good) = %v", err)
	}
	for name, bad := range map[string]string{
		"root not object":     `{"type":"array","items":{"type":"string"}}`,
		"open object":         `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		"optional property":   `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
		"array without items": `{"type":"object","properties":{"a":{"type":"array"}},"required":["a"],"additionalProperties":false}`,
		"unknown keyword":     `{"type":"object","properties":{"a":{"type":"string","maxLength":3}},"required":["a"],"additionalProperties":false}`,
		"unknown type":        `{"type":"object","properties":{"a":{"type":"null"}},"required":["a"],"additionalProperties":false}`,
		"not json":            `{`,
	} {
		if err := Strict([]byte(bad)); err == nil {
			t.Errorf("%s: Strict accepted %s", name, bad)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := Validate([]byte(good), []byte(`{"a":"x","n":2,"list":[{"b":true}]}`)); err != nil {
		t.Errorf("valid value: %v", err)
	}
	for value, want := range map[string]string{
		`{"a":"x","n":2}`:                           `"list" is missing`,
		`{"a":"x","n":4,"list":[]}`:                 "enum",
		`{"a":"x","n":2.5,"list":[]}`:               "enum",
		`{"a":1,"n":2,"list":[]}`:                   "want a string",
		`{"a":"x","n":2,"list":[{"b":"yes"}]}`:      "want a boolean",
		`{"a":"x","n":2,"list":[],"extra":1}`:       "not in the schema",
		`{"a":"x","n":2,"list":[{"b":true,"c":1}]}`: "not in the schema",
		`Sure! {"a":"x","n":2,"list":[]}`:           "not JSON",
		`{"a":"x","n":2,"list":[]} {"a":"x"}`:       "more than one",
		`{"a":"x","n":2,"list":{"b":true}}`:         "want an array",
	} {
		err := Validate([]byte(good), []byte(value))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%s) = %v, want an error about %q", value, err, want)
		}
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(good, `{"a":"x","n":2,"list":[{"b":true}]}`)
	f.Add(`{"type":"object"}`, `{}`)
	f.Fuzz(func(t *testing.T, schema, value string) {
		_ = Strict([]byte(schema))
		_ = Validate([]byte(schema), []byte(value))
	})
}
