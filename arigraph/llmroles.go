package arigraph

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/samem/trainer/ariadne"
	"github.com/samem/trainer/internal/fold"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

var prompts = template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))

// Purposes of the LLM calls (usage accounting).
const (
	PurposeExtract = "arigraph.extract"
	PurposeReplace = "arigraph.replace"
	PurposeExplore = "arigraph.explore"
	PurposePlan    = "arigraph.plan"
	PurposeDecide  = "arigraph.decide"
)

// Step is one pair of recent history: an observation and the action taken on it.
type Step struct {
	Action      string
	Observation string
}

// WorkingMemory is what the planner and the decision module read (seed 000
// Sec. 3, Fig. 3): the goal, recent history, the current observation,
// retrieved triplets and episodes, the plan, and the unexplored exits.
type WorkingMemory struct {
	Goal        string
	History     []Step
	Observation string
	Facts       []Triplet
	Episodes    []string
	K           int // the episodic budget named in the prompt
	Plan        string
	Explore     bool                // exploration mode (Appendix B)
	Exits       map[string][]string // location -> unexplored exits
	Location    string              // where the agent is, "" if unknown
	Actions     []string            // admissible actions, nil in free-form worlds
	Priors      []string            // what earlier tasks suggest (persistent store), as text
}

type promptData struct {
	WorkingMemory
	Facts, Episodes, Exits, Actions string
}

func (wm WorkingMemory) data() promptData {
	d := promptData{WorkingMemory: wm}
	d.Facts = JoinTriplets(wm.Facts)
	if len(wm.Priors) > 0 {
		d.Facts += "\nFrom earlier tasks: " + strings.Join(wm.Priors, "; ")
	}
	d.Episodes = strings.Join(wm.Episodes, "\n---\n")
	var ex []string
	locs := make([]string, 0, len(wm.Exits))
	for l := range wm.Exits {
		locs = append(locs, l)
	}
	slices.Sort(locs)
	for _, l := range locs {
		ex = append(ex, fmt.Sprintf("Unexplored exits for %s: %s", l, strings.Join(wm.Exits[l], ", ")))
	}
	d.Exits = strings.Join(ex, "\n")
	if wm.Actions == nil {
		d.Actions = "any action in the game's own words (for example: go north, take key, open locker, examine note)"
	} else {
		b, _ := json.Marshal(wm.Actions)
		d.Actions = string(b)
	}
	return d
}

// JoinTriplets renders ts as the prompts do: "s, r, o; s, r, o".
func JoinTriplets(ts []Triplet) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, "; ")
}

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// RenderExtract renders the triplet extraction prompt. The prompts under
// prompts/ are this project's own wording of the instructions, fields and
// reply formats of seed 000 Appendix D; the Render functions are exported
// for golden tests and inspection.
func RenderExtract(example []Triplet, observation string) (string, error) {
	return render("extract.tmpl", struct{ Example, Observation string }{JoinTriplets(example), observation})
}

// RenderReplace renders the outdated-triplet prompt (after seed 000
// Appendix D; reply form "[[old -> new], ...]").
func RenderReplace(existing, fresh []Triplet) (string, error) {
	q := func(ts []Triplet) string {
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = `"` + t.String() + `"`
		}
		return strings.Join(parts, "; ")
	}
	return render("replace.tmpl", struct{ Existing, New string }{q(existing), q(fresh)})
}

// RenderExplore renders the exploration check prompt.
func RenderExplore(plan string) (string, error) {
	return render("explore.tmpl", struct{ Plan string }{plan})
}

// RenderPlan renders the planning prompt.
func RenderPlan(wm WorkingMemory) (string, error) { return render("plan.tmpl", wm.data()) }

// RenderDecide renders the ReAct decision prompt.
func RenderDecide(wm WorkingMemory) (string, error) { return render("decide.tmpl", wm.data()) }

// ParseTriplets reads an extraction reply "s, r, o; s, r, o; ..." tolerantly:
// items may also be separated by new lines, quoted, bracketed or numbered;
// an item with more than three comma-separated parts keeps the first as
// subject, the last as object and joins the middle as relation; items with
// fewer than three parts, and invalid triplets, are dropped.
func ParseTriplets(reply string) []Triplet {
	reply = strings.TrimSpace(reply)
	// fold.Lower keeps byte offsets (strings.ToLower turns an invalid byte
	// into the 3-byte U+FFFD), so the marker's offset is one in reply.
	if i := strings.LastIndex(fold.Lower(reply), "extracted triplets:"); i >= 0 {
		reply = reply[i+len("extracted triplets:"):]
	}
	var out []Triplet
	seen := map[Triplet]bool{}
	for _, item := range strings.FieldsFunc(reply, func(r rune) bool { return r == ';' || r == '\n' }) {
		item = strings.TrimSpace(item)
		item = reListMarker.ReplaceAllString(item, "")
		item = strings.Trim(item, " \t\"'`[](){}.")
		parts := strings.Split(item, ",")
		if len(parts) < 3 {
			continue
		}
		t := Triplet{
			Subject:  parts[0],
			Relation: strings.Join(parts[1:len(parts)-1], ","),
			Object:   parts[len(parts)-1],
		}.Norm()
		if t.Valid() && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

var reListMarker = regexp.MustCompile(`^(?:\d+[.)]|[-*•])\s*`)

// Replacement says that Old is outdated and New replaces it.
type Replacement struct {
	Old, New Triplet
}

var reArrow = regexp.MustCompile(`([^\[\]{}]*?)\s*-+>\s*([^\[\]{}]*)`)

// ParseReplacements reads a reply in the form "[[old -> new], [old -> new]]"
// (seed 000 Appendix D) tolerantly: square or curly brackets, quotes, and
// text around the list are accepted; "[]" and anything without an arrow give
// none; pairs whose sides are not triplets are dropped.
func ParseReplacements(reply string) []Replacement {
	var out []Replacement
	for _, m := range reArrow.FindAllStringSubmatch(reply, -1) {
		olds, news := ParseTriplets(m[1]), ParseTriplets(m[2])
		if len(olds) == 0 || len(news) == 0 {
			continue
		}
		out = append(out, Replacement{Old: olds[len(olds)-1], New: news[0]})
	}
	return out
}

// ParseBool reads the exploration check's "True" / "False"; anything else is
// false and not ok.
// It reads through fences, preambles and emphasis ("```\nTrue\n```",
// "Sure! **True**"; internal/reply).
func ParseBool(reply string) (v, ok bool) {
	v, ok, _ = replyfmt.Bool(reply)
	return v, ok
}

// The JSON schemas of AriGraph's structured answers, beside its prompts.
// The planner and the decision module ask for package ariadne's PlanSchema
// and DecideSchema, as the memory stream's do.
var (
	ExtractSchema = replyfmt.LoadSchema(promptFS, "prompts/extract.schema.json", "arigraph_extract")
	ReplaceSchema = replyfmt.LoadSchema(promptFS, "prompts/replace.schema.json", "arigraph_replace")
	ExploreSchema = replyfmt.LoadSchema(promptFS, "prompts/explore.schema.json", "arigraph_explore")
)

// errNothing makes a reply unusable: nothing could be read from it.
var errNothing = errors.New("nothing readable in the reply")

// LLM is the LLM-backed implementation of AriGraph's roles (prompts after
// seed 000 Appendix D, in our own words): triplet extraction,
// outdated-triplet detection, the exploration check, planning and the ReAct
// decision. A reply cut off, empty once its reasoning is out, or with
// nothing readable in it is asked again within internal/reply's budget;
// after that each role falls back as its method says, and only a failed
// call is an error.
type LLM struct {
	Chat        llm.Chatter
	Temperature float64 // sent with every request; the paper's planner used 0.2 in its code, we default to 0
	MaxTokens   int     // 0: the server's default
}

// ask asks prompt of purpose with schema and hands each usable answer to
// read; see replyfmt.Ask. It reports whether an answer was read.
func (l *LLM) ask(ctx context.Context, purpose, prompt string, schema *llm.Schema, then llm.Then, read func(replyfmt.Answer) (bool, error)) (bool, error) {
	req := llm.Request{
		Purpose:     purpose,
		Messages:    []llm.Message{{Role: "user", Content: prompt}},
		Temperature: l.Temperature,
		MaxTokens:   l.MaxTokens,
		Schema:      schema,
	}
	return ariadne.Ask(ctx, l.Chat, req, then, read)
}

// jsonTriplet is a triplet in the structured answers.
type jsonTriplet struct {
	Subject  string `json:"subject"`
	Relation string `json:"relation"`
	Object   string `json:"object"`
}

func (j jsonTriplet) triplet() Triplet {
	return Triplet(j).Norm()
}

// ParseTripletsAnswer reads an extraction answer: the JSON's triplets when
// the server was asked for the schema and answered with it (empty is an
// answer: nothing to extract), else the text (ParseTriplets, which needs one
// triplet). Invalid triplets are dropped.
func ParseTripletsAnswer(a replyfmt.Answer) (ts []Triplet, repaired, ok bool) {
	var v struct {
		Triplets []jsonTriplet `json:"triplets"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		seen := map[Triplet]bool{}
		for _, j := range v.Triplets {
			if t := j.triplet(); t.Valid() && !seen[t] {
				seen[t] = true
				ts = append(ts, t)
			}
		}
		return ts, false, true
	}
	ts = ParseTriplets(a.Text)
	_, repaired = replyfmt.Clean(a.Text)
	return ts, repaired, len(ts) > 0
}

// Extract asks for the triplets of an observation, showing example triplets
// extracted before. A reply with no triplet adds nothing to the graph
// (skipped).
func (l *LLM) Extract(ctx context.Context, example []Triplet, observation string) ([]Triplet, error) {
	p, err := RenderExtract(example, observation)
	if err != nil {
		return nil, err
	}
	var ts []Triplet
	_, err = l.ask(ctx, PurposeExtract, p, ExtractSchema, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired, ok bool
		if ts, repaired, ok = ParseTripletsAnswer(a); !ok {
			return repaired, errNothing
		}
		return repaired, nil
	})
	return ts, err
}

// ParseReplacementsAnswer reads an outdated-triplet answer: the JSON's
// replacements when the server was asked for the schema and answered with
// it, else the text (ParseReplacements). ok is false for a text with no
// replacement that is not "[]", the prompt's answer for nothing out of
// date.
func ParseReplacementsAnswer(a replyfmt.Answer) (reps []Replacement, repaired, ok bool) {
	var v struct {
		Replacements []struct {
			Outdated jsonTriplet `json:"outdated"`
			Actual   jsonTriplet `json:"actual"`
		} `json:"replacements"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		for _, r := range v.Replacements {
			old, nw := r.Outdated.triplet(), r.Actual.triplet()
			if old.Valid() && nw.Valid() {
				reps = append(reps, Replacement{Old: old, New: nw})
			}
		}
		return reps, false, true
	}
	reps = ParseReplacements(a.Text)
	c, repaired := replyfmt.Clean(a.Text)
	c, _ = replyfmt.Unquote(strings.TrimSpace(c))
	return reps, repaired, len(reps) > 0 || strings.TrimSpace(c) == "[]"
}

// Outdated asks which existing triplets the new ones replace. Only
// replacements whose old triplet is among existing are kept: the model
// cannot delete what it was not shown. A reply that cannot be read removes
// nothing (skipped).
func (l *LLM) Outdated(ctx context.Context, existing, fresh []Triplet) ([]Replacement, error) {
	if len(existing) == 0 || len(fresh) == 0 {
		return nil, nil
	}
	p, err := RenderReplace(existing, fresh)
	if err != nil {
		return nil, err
	}
	var reps []Replacement
	_, err = l.ask(ctx, PurposeReplace, p, ReplaceSchema, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired, ok bool
		if reps, repaired, ok = ParseReplacementsAnswer(a); !ok {
			return repaired, errNothing
		}
		return repaired, nil
	})
	if err != nil {
		return nil, err
	}
	known := map[Triplet]bool{}
	for _, t := range existing {
		known[t.Norm()] = true
	}
	var out []Replacement
	for _, rp := range reps {
		if known[rp.Old] {
			out = append(out, rp)
		}
	}
	return out, nil
}

// ParseBoolAnswer reads the exploration check: the JSON's
// "needs_exploration" when the server was asked for the schema and answered
// with it, else the text's True or False (replyfmt.Bool).
func ParseBoolAnswer(a replyfmt.Answer) (v, repaired, ok bool) {
	var j struct {
		Needs *bool `json:"needs_exploration"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &j) && j.Needs != nil {
		return *j.Needs, false, true
	}
	v, ok, repaired = replyfmt.Bool(a.Text)
	return v, repaired, ok
}

// NeedsExploration is the exploration check of Appendix B. Without a
// readable answer there is no exploration: the plan is followed as it is
// (fell back).
func (l *LLM) NeedsExploration(ctx context.Context, plan string) (bool, error) {
	p, err := RenderExplore(plan)
	if err != nil {
		return false, err
	}
	var v bool
	_, err = l.ask(ctx, PurposeExplore, p, ExploreSchema, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		var repaired, ok bool
		if v, repaired, ok = ParseBoolAnswer(a); !ok {
			return repaired, errNothing
		}
		return repaired, nil
	})
	return v, err
}

// Plan creates or updates the plan from working memory; without a usable
// reply the plan so far stays (ariadne.PlanOrKeep).
func (l *LLM) Plan(ctx context.Context, wm WorkingMemory) (string, error) {
	p, err := RenderPlan(wm)
	if err != nil {
		return "", err
	}
	return ariadne.PlanOrKeep(ctx, l.Chat, llm.Request{Purpose: PurposePlan, Messages: []llm.Message{{Role: "user", Content: p}},
		Temperature: l.Temperature, MaxTokens: l.MaxTokens, Schema: ariadne.PlanSchema}, wm.Plan)
}

// Decide is the ReAct decision: a reason and one action. An unreadable reply
// gives an empty action (the caller falls back to matching or retrying;
// ariadne.DecideOrNot).
func (l *LLM) Decide(ctx context.Context, wm WorkingMemory) (reason, action string, err error) {
	p, err := RenderDecide(wm)
	if err != nil {
		return "", "", err
	}
	return ariadne.DecideOrNot(ctx, l.Chat, llm.Request{Purpose: PurposeDecide, Messages: []llm.Message{{Role: "user", Content: p}},
		Temperature: l.Temperature, MaxTokens: l.MaxTokens, Schema: replyfmt.WithChoices(ariadne.DecideSchema, "action_to_take", wm.Actions)})
}
