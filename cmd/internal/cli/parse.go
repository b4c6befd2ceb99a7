package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/samem/trainer/app"
)

// ConfigFlag names the experiment file's flag.
const ConfigFlag = "config"

// maxExperimentBytes bounds an experiment file.
const maxExperimentBytes = 1 << 20

// Parse parses args into fs, whose settings Bind defined for cmd (0 for a
// command without settings). When fs has -config and args name a file,
// the file's settings are applied first and the flags of args override them.
// On -h it prints the full usage (fs.Usage) and returns flag.ErrHelp. On a
// mistyped flag, a bad value or a bad experiment file it prints one line
// naming what is wrong (for an unknown flag, the closest valid one) and how
// to get the full help, not the usage, and returns the error.
func Parse(fs *flag.FlagSet, args []string, cmd app.Command) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := parse(fs, args, cmd)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(out, "usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	fmt.Fprintln(out, ParseMessage(fs, err))
	return err
}

func parse(fs *flag.FlagSet, args []string, cmd app.Command) error {
	if fs.Lookup(ConfigFlag) != nil {
		if path, ok := flagValue(args, ConfigFlag); ok {
			if err := applyExperiment(fs, path, cmd); err != nil {
				return err
			}
		}
	}
	return fs.Parse(args)
}

// ParseMessage is the one line that reports a failed parse of fs's flags:
// the flag package's message (an unknown flag gets the closest valid one),
// then how to get the full help.
func ParseMessage(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag -" + name
		if near := Closest(fs, strings.TrimLeft(name, "-")); near != "" {
			msg += " (did you mean -" + near + "?)"
		}
	}
	return fmt.Sprintf("%s: %s; '%s -h' lists every flag", fs.Name(), msg, fs.Name())
}

// Closest is the name of fs's flag nearest to name by edit distance (ties:
// the first in sorted order); "" when fs has no flags.
func Closest(fs *flag.FlagSet, name string) string {
	best, bestD := "", -1
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(name, f.Name)
		// A flag that starts with what was typed is nearer than its
		// distance says (-thresh for -threshold).
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if bestD < 0 || d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ReadExperiment reads an experiment file: top-level keys named as the
// settings' flags (app.Setting.FileKey), each with a string, number,
// boolean or list (joined with commas) value. A .json file is JSON; any
// other is TOML. The values are returned as their flags take them.
func ReadExperiment(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: -%s: %v", app.ErrConfig, ConfigFlag, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxExperimentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: -%s: %v", app.ErrConfig, ConfigFlag, err)
	}
	if len(b) > maxExperimentBytes {
		return nil, fmt.Errorf("%w: -%s %s: larger than %d bytes", app.ErrConfig, ConfigFlag, path, maxExperimentBytes)
	}
	vals, err := parseExperiment(b, strings.EqualFold(filepath.Ext(path), ".json"))
	if err != nil {
		return nil, fmt.Errorf("%w: -%s %s: %v", app.ErrConfig, ConfigFlag, path, err)
	}
	return vals, nil
}

// parseExperiment decodes an experiment file's bytes (JSON or TOML) into
// each key's value as a flag takes it.
func parseExperiment(b []byte, isJSON bool) (map[string]string, error) {
	raw := map[string]any{}
	if isJSON {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&raw); err != nil {
			return nil, err
		}
		if d.More() {
			return nil, errors.New("more than one JSON value")
		}
	} else if _, err := toml.Decode(string(b), &raw); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		s, err := experimentValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		out[k] = s
	}
	return out, nil
}

// experimentValue renders one value of an experiment file as a flag takes it.
func experimentValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case json.Number:
		return x.String(), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := experimentValue(e)
			if err != nil {
				return "", err
			}
			if _, isList := e.([]any); isList || strings.Contains(s, ",") {
				return "", errors.New("a list holds plain values without commas")
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case map[string]any:
		return "", errors.New("a table: settings are top-level keys named as the flags")
	case nil:
		return "", errors.New("no value")
	}
	return "", fmt.Errorf("a value of type %T; want a string, number, boolean or list", v)
}

// applyExperiment sets fs's flags (those of cmd) from the experiment file
// at path. A key that cmd does not bind but another command does (train's
// iterations in eval) is left to that command, so that one file serves
// train and eval; any other key is refused, with the closest setting named.
func applyExperiment(fs *flag.FlagSet, path string, cmd app.Command) error {
	vals, err := ReadExperiment(path)
	if err != nil {
		return err
	}
	var known []string
	for _, s := range app.Settings() {
		known = append(known, s.FileKey())
	}
	flagOf := map[string]string{} // file key -> cmd's flag
	for _, s := range app.SettingsOf(cmd) {
		flagOf[s.FileKey()] = s.Flag
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		name, ok := flagOf[k]
		if !ok {
			if slices.Contains(known, k) {
				continue // another command's setting
			}
			return fmt.Errorf("%w: -%s %s: unknown setting %q (did you mean %s?)", app.ErrConfig, ConfigFlag, path, k, closestOf(known, k))
		}
		if err := fs.Set(name, vals[k]); err != nil {
			return fmt.Errorf("%w: -%s %s: %s = %q: %v", app.ErrConfig, ConfigFlag, path, k, vals[k], err)
		}
	}
	return nil
}

// closestOf is the name in names nearest to name.
func closestOf(names []string, name string) string {
	best, bestD := "", -1
	for _, n := range names {
		if d := editDistance(name, n); bestD < 0 || d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	return best
}
