package arigraph

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/samem/trainer/ariadne"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl
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
	if i := strings.LastIndex(strings.ToLower(reply), "extracted triplets:"); i >= 0 {
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

// LLM is the LLM-backed implementation of AriGraph's roles (prompts after
// seed 000 Appendix D, in our own words): triplet extraction,
// outdated-triplet detection, the exploration check, planning and the ReAct
// decision.
type LLM struct {
	Chat        llm.Chatter
	Temperature float64 // sent with every request; the paper's planner used 0.2 in its code, we default to 0
	MaxTokens   int     // 0: the server's default
}

func (l *LLM) ask(ctx context.Context, purpose, prompt string) (string, error) {
	resp, err := l.Chat.Chat(ctx, llm.Request{
		Purpose:     purpose,
		Messages:    []llm.Message{{Role: "user", Content: prompt}},
		Temperature: l.Temperature,
		MaxTokens:   l.MaxTokens,
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", purpose, err)
	}
	return resp.Text, nil
}

// Extract asks for the triplets of an observation, showing example triplets
// extracted before.
func (l *LLM) Extract(ctx context.Context, example []Triplet, observation string) ([]Triplet, error) {
	p, err := RenderExtract(example, observation)
	if err != nil {
		return nil, err
	}
	r, err := l.ask(ctx, PurposeExtract, p)
	if err != nil {
		return nil, err
	}
	ts := ParseTriplets(r)
	// A reply with no triplet adds nothing to the graph (skipped).
	replyfmt.Note(ctx, PurposeExtract, r, len(ts) > 0, llm.Skipped)
	return ts, nil
}

// Outdated asks which existing triplets the new ones replace. Only
// replacements whose old triplet is among existing are kept: the model
// cannot delete what it was not shown.
func (l *LLM) Outdated(ctx context.Context, existing, fresh []Triplet) ([]Replacement, error) {
	if len(existing) == 0 || len(fresh) == 0 {
		return nil, nil
	}
	p, err := RenderReplace(existing, fresh)
	if err != nil {
		return nil, err
	}
	r, err := l.ask(ctx, PurposeReplace, p)
	if err != nil {
		return nil, err
	}
	known := map[Triplet]bool{}
	for _, t := range existing {
		known[t.Norm()] = true
	}
	reps := ParseReplacements(r)
	// "[]" is the prompt's answer for nothing out of date; any other reply
	// with no replacement in it could not be read (nothing is removed).
	c, _ := replyfmt.Clean(r)
	c, _ = replyfmt.Unquote(strings.TrimSpace(c))
	replyfmt.Note(ctx, PurposeReplace, r, len(reps) > 0 || strings.TrimSpace(c) == "[]", llm.Skipped)
	var out []Replacement
	for _, rp := range reps {
		if known[rp.Old] {
			out = append(out, rp)
		}
	}
	return out, nil
}

// NeedsExploration is the exploration check of Appendix B.
func (l *LLM) NeedsExploration(ctx context.Context, plan string) (bool, error) {
	p, err := RenderExplore(plan)
	if err != nil {
		return false, err
	}
	r, err := l.ask(ctx, PurposeExplore, p)
	if err != nil {
		return false, err
	}
	v, ok, repaired := replyfmt.Bool(r)
	if !ok {
		// No exploration: the plan is followed as it is.
		llm.NoteUnusable(ctx, PurposeExplore, llm.FellBack)
	} else {
		llm.NoteParsed(ctx, PurposeExplore, repaired)
	}
	return v, nil
}

// Plan creates or updates the plan from working memory.
func (l *LLM) Plan(ctx context.Context, wm WorkingMemory) (string, error) {
	p, err := RenderPlan(wm)
	if err != nil {
		return "", err
	}
	r, err := l.ask(ctx, PurposePlan, p)
	if err != nil {
		return "", err
	}
	plan := ariadne.ParsePlan(r)
	if strings.TrimSpace(plan) == "" {
		llm.NoteUnusable(ctx, PurposePlan, llm.Skipped)
	} else {
		llm.NoteParsed(ctx, PurposePlan, plan != strings.TrimSpace(r))
	}
	return plan, nil
}

// Decide is the ReAct decision: a reason and one action. An unreadable reply
// gives an empty action (the caller falls back to matching or retrying).
func (l *LLM) Decide(ctx context.Context, wm WorkingMemory) (reason, action string, err error) {
	p, err := RenderDecide(wm)
	if err != nil {
		return "", "", err
	}
	r, err := l.ask(ctx, PurposeDecide, p)
	if err != nil {
		return "", "", err
	}
	reason, action, ok := ariadne.ParseDecision(r)
	if !ok {
		// The caller falls back to matching or its rules.
		llm.NoteUnusable(ctx, PurposeDecide, llm.FellBack)
	} else {
		// Repaired: decorated, or not the asked JSON at all.
		_, repaired := replyfmt.Clean(r)
		llm.NoteParsed(ctx, PurposeDecide, repaired || !ariadne.AsAsked(r))
	}
	return reason, action, nil
}
