// Package jsonschema checks the small subset of JSON Schema that the roles'
// structured-output schemas use, which is what OpenAI's strict mode,
// vLLM's guided decoding and node-llama-cpp's grammars all accept: objects
// whose properties are all required and closed (additionalProperties
// false), arrays with items, strings, integers, numbers, booleans, enums
// and descriptions. Strict says whether a schema keeps to it; Validate
// whether a JSON value conforms to such a schema (the test servers that
// enforce schemas use it).
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

type schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	Enum                 []json.RawMessage  `json:"enum"`
}

var keywords = []string{"type", "description", "properties", "required", "additionalProperties", "items", "enum"}

func parse(b []byte, path string) (*schema, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %w", path, err)
	}
	for k := range raw {
		if !slices.Contains(keywords, k) {
			return nil, fmt.Errorf("%s: keyword %q is outside the supported subset", path, k)
		}
	}
	var s schema
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for name, p := range raw {
		switch name {
		case "properties":
			var props map[string]json.RawMessage
			if err := json.Unmarshal(p, &props); err != nil {
				return nil, fmt.Errorf("%s.properties: %w", path, err)
			}
			s.Properties = map[string]*schema{}
			for k, v := range props {
				sub, err := parse(v, path+".properties."+k)
				if err != nil {
					return nil, err
				}
				s.Properties[k] = sub
			}
		case "items":
			sub, err := parse(p, path+".items")
			if err != nil {
				return nil, err
			}
			s.Items = sub
		}
	}
	return &s, nil
}

// Strict checks that b is a schema of the supported subset whose root is
// an object: every object lists each of its properties as required and
// sets additionalProperties to false, every array has items, and every
// type is one of object, array, string, integer, number and boolean.
func Strict(b []byte) error {
	s, err := parse(b, "$")
	if err != nil {
		return err
	}
	if s.Type != "object" {
		return fmt.Errorf("$: the root must be an object, not %q", s.Type)
	}
	return strict(s, "$")
}

func strict(s *schema, path string) error {
	switch s.Type {
	case "object":
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			return fmt.Errorf("%s: additionalProperties must be false", path)
		}
		if len(s.Properties) == 0 {
			return fmt.Errorf("%s: an object needs properties", path)
		}
		names := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			names = append(names, k)
		}
		sort.Strings(names)
		req := slices.Clone(s.Required)
		sort.Strings(req)
		if !slices.Equal(names, req) {
			return fmt.Errorf("%s: required %v must list every property %v", path, s.Required, names)
		}
		for _, k := range names {
			if err := strict(s.Properties[k], path+"."+k); err != nil {
				return err
			}
		}
	case "array":
		if s.Items == nil {
			return fmt.Errorf("%s: an array needs items", path)
		}
		return strict(s.Items, path+"[]")
	case "string", "integer", "number", "boolean":
	default:
		return fmt.Errorf("%s: type %q is not supported", path, s.Type)
	}
	if s.Type != "object" && (s.Properties != nil || s.Required != nil || s.AdditionalProperties != nil) {
		return fmt.Errorf("%s: object keywords on a %s", path, s.Type)
	}
	return nil
}

// Validate checks that the JSON value v conforms to the schema b (which
// must pass Strict).
func Validate(b, v []byte) error {
	if err := Strict(b); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	s, _ := parse(b, "$")
	var val any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&val); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if d.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return validate(s, val, "$")
}

func validate(s *schema, v any, path string) error {
	if len(s.Enum) > 0 {
		got, _ := json.Marshal(v)
		ok := false
		for _, e := range s.Enum {
			var c bytes.Buffer
			if json.Compact(&c, e) == nil && bytes.Equal(c.Bytes(), got) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%s: %s is not one of the enum", path, got)
		}
	}
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object", path)
		}
		for k := range obj {
			if _, known := s.Properties[k]; !known {
				return fmt.Errorf("%s: property %q is not in the schema", path, k)
			}
		}
		for _, k := range s.Required {
			x, ok := obj[k]
			if !ok {
				return fmt.Errorf("%s: property %q is missing", path, k)
			}
			if err := validate(s.Properties[k], x, path+"."+k); err != nil {
				return err
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array", path)
		}
		for i, x := range arr {
			if err := validate(s.Items, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: want a string", path)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want a boolean", path)
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("%s: want a number", path)
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if s.Type == "integer" && f != math.Trunc(f) {
			return fmt.Errorf("%s: want an integer, got %s", path, n)
		}
	}
	return nil
}
