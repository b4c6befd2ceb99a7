package kgplan

import (
	"github.com/samem/trainer/internal/fold"
	replyfmt "github.com/samem/trainer/internal/reply"

	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/pddl"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

// The JSON schemas of the method's structured answers, beside its prompts.
var (
	UpdateSchema   = replyfmt.LoadSchema(promptFS, "prompts/update.schema.json", "kgplan_update")
	GoalSchema     = replyfmt.LoadSchema(promptFS, "prompts/goal.schema.json", "kgplan_goal")
	EntitiesSchema = replyfmt.LoadSchema(promptFS, "prompts/entities.schema.json", "kgplan_entities")
)

var prompts = template.Must(template.New("").Funcs(template.FuncMap{"join": strings.Join}).ParseFS(promptFS, "prompts/*.tmpl"))

// ErrReply is returned (wrapped) when an LLM reply cannot be parsed.
var ErrReply = errors.New("unreadable llm reply")

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

func predicateLines(d *pddl.Domain) []string {
	out := make([]string, len(d.Predicates))
	for i, p := range d.Predicates {
		var b strings.Builder
		b.WriteString("(" + p.Name)
		for _, a := range p.Params {
			b.WriteString(" " + a.Name + " - " + a.Type)
		}
		b.WriteString(")")
		out[i] = b.String()
	}
	return out
}

func typeLines(d *pddl.Domain) []string {
	byParent := map[string][]string{}
	for t, p := range d.Types {
		byParent[p] = append(byParent[p], t)
	}
	var out []string
	for p, ts := range byParent {
		slices.Sort(ts)
		out = append(out, strings.Join(ts, " ")+" - "+p)
	}
	slices.Sort(out)
	return out
}

// updateData fills prompts/update.tmpl.
type updateData struct {
	Predicates, Entities []string
	Triplets             []Triplet
	Action, Observation  string
	Feedback             []string
}

// UpdatePrompt renders the update prompt (seed 003 Sec. IV-B step 2).
func UpdatePrompt(g *Graph, relevant []Triplet, action, observation string, feedback []string) (string, error) {
	var ents []string
	for _, e := range g.Entities() {
		ents = append(ents, e.Name)
	}
	return render("update.tmpl", updateData{Predicates: predicateLines(g.dom), Entities: ents, Triplets: relevant,
		Action: action, Observation: strings.TrimSpace(observation), Feedback: feedback})
}

// GoalPrompt renders the :goal prompt (seed 003 Sec. IV-C step 3).
func GoalPrompt(g *Graph, task, plannerErr string) (string, error) {
	var objs []string
	for _, e := range g.Entities() {
		objs = append(objs, ToPDDL(e.Name)+" - "+e.Type)
	}
	return render("goal.tmpl", struct {
		Types, Predicates, Objects []string
		Task, Error                string
	}{typeLines(g.dom), predicateLines(g.dom), objs, task, plannerErr})
}

// EntitiesPrompt renders the entity selection prompt (seed 003 Sec. IV-A).
func EntitiesPrompt(g *Graph, task string) (string, error) {
	var ents []string
	for _, e := range g.Entities() {
		ents = append(ents, e.Name)
	}
	return render("entities.tmpl", struct {
		Entities []string
		Task     string
	}{ents, task})
}

// ParseUpdate reads an update reply: a JSON object with REMOVE and ADD lists
// (keys in any case) whose items are "s -> r -> o" strings or [s, r, o]
// arrays, possibly inside a code fence or surrounded by prose.
func ParseUpdate(reply string) (Update, error) {
	reply, _, _ = replyfmt.Strip(reply) // never an update of the reasoning
	i, j := strings.IndexByte(reply, '{'), strings.LastIndexByte(reply, '}')
	if i < 0 || j < i {
		return Update{}, fmt.Errorf("%w: no JSON object", ErrReply)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(reply[i:j+1]), &raw); err != nil {
		return Update{}, fmt.Errorf("%w: %w", ErrReply, err)
	}
	var u Update
	found := false
	for k, v := range raw {
		var dst *[]Triplet
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "remove", "delete", "removed":
			dst = &u.Remove
		case "add", "added":
			dst = &u.Add
		default:
			continue
		}
		found = true
		ts, err := parseTriplets(v)
		if err != nil {
			return Update{}, fmt.Errorf("%w: %s: %w", ErrReply, k, err)
		}
		*dst = append(*dst, ts...)
	}
	if !found {
		return Update{}, fmt.Errorf("%w: no REMOVE or ADD key", ErrReply)
	}
	return u, nil
}

func parseTriplets(v json.RawMessage) ([]Triplet, error) {
	var items []json.RawMessage
	if string(bytes.TrimSpace(v)) == "null" {
		return nil, nil
	}
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, err
	}
	var out []Triplet
	for _, it := range items {
		var s string
		var parts []string
		if json.Unmarshal(it, &s) == nil {
			parts = strings.Split(s, "->")
		} else if json.Unmarshal(it, &parts) != nil {
			return nil, fmt.Errorf("item %s is neither a string nor a list of strings", it)
		}
		if len(parts) != 3 {
			return nil, fmt.Errorf("item %s has %d parts, want 3", it, len(parts))
		}
		t := Triplet{clean(parts[0]), clean(parts[1]), clean(parts[2])}
		out = append(out, t)
	}
	return out, nil
}

// clean normalises a name from a reply: trimmed, lower case, underscores
// between a class and its number read as the game's space.
func clean(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Trim(s, "\"'`")
	if _, ok := kindOf(FromPDDL(s)); ok {
		s = FromPDDL(s)
	}
	return s
}

// ParseGoal reads a :goal reply: "(:goal F)" anywhere in the text, or a bare
// formula F, where F is a conjunction of literals possibly under one exists.
func ParseGoal(reply string) (pddl.Condition, error) {
	s, _, _ := replyfmt.Strip(reply) // never a goal of the reasoning
	if i := fold.Index(s, "(:goal"); i >= 0 {
		s = s[i:]
		end := matchParen(s)
		if end < 0 {
			return pddl.Condition{}, fmt.Errorf("%w: unbalanced (:goal", ErrReply)
		}
		s = s[:end+1]
	} else {
		i := strings.IndexByte(s, '(')
		if i < 0 {
			return pddl.Condition{}, fmt.Errorf("%w: no formula", ErrReply)
		}
		end := matchParen(s[i:])
		if end < 0 {
			return pddl.Condition{}, fmt.Errorf("%w: unbalanced formula", ErrReply)
		}
		s = "(:goal " + s[i:i+end+1] + ")"
	}
	p, err := pddl.ParseProblem("(define (problem reply) "+s+")", nil)
	if err != nil {
		return pddl.Condition{}, fmt.Errorf("%w: %w", ErrReply, err)
	}
	return p.Goal, nil
}

// matchParen returns the index of the parenthesis closing s[0], or -1.
func matchParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// ParseEntities reads an entity-selection reply (a JSON list, or names
// separated by commas or lines) and keeps the names that are in known.
func ParseEntities(reply string, known []string) []string {
	reply, _, _ = replyfmt.Strip(reply) // never names of the reasoning
	var names []string
	if i, j := strings.IndexByte(reply, '['), strings.LastIndexByte(reply, ']'); i >= 0 && j > i {
		_ = json.Unmarshal([]byte(reply[i:j+1]), &names)
	}
	if names == nil {
		names = strings.FieldsFunc(reply, func(r rune) bool { return r == ',' || r == '\n' })
	}
	var out []string
	for _, n := range names {
		n = clean(strings.TrimPrefix(strings.TrimSpace(n), "- "))
		if slices.Contains(known, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// request is one of the episode's model calls, at the method's temperature.
func (e *episode) request(purpose, prompt string, schema *llm.Schema) llm.Request {
	return llm.Request{Purpose: purpose, Messages: []llm.Message{{Role: "user", Content: prompt}}, Schema: schema, Temperature: e.m.cfg.Temperature}
}

// ParseGoalAnswer reads a goal answer: the JSON's "goal" when the server was
// asked for the schema and answered with it, else the text (ParseGoal).
func ParseGoalAnswer(a replyfmt.Answer) (c pddl.Condition, repaired bool, err error) {
	var v struct {
		Goal string `json:"goal"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		c, err = ParseGoal(v.Goal)
		return c, false, err
	}
	c, err = ParseGoal(a.Text)
	_, repaired = replyfmt.Clean(a.Text)
	return c, repaired, err
}

// ParseEntitiesAnswer reads an entity selection: the JSON's "entities"
// when the server was asked for the schema and answered with it, else the
// text (ParseEntities); only names in known are kept.
func ParseEntitiesAnswer(a replyfmt.Answer, known []string) (out []string, repaired bool) {
	var v struct {
		Entities []string `json:"entities"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		b, _ := json.Marshal(v.Entities)
		return ParseEntities(string(b), known), false
	}
	_, repaired = replyfmt.Clean(a.Text)
	return ParseEntities(a.Text, known), repaired
}

// llmUpdate asks the model for the update, verifies it, and re-prompts with
// the violations up to UpdateAttempts (seed 003 Sec. IV-B steps 1-4). A
// reply cut off or empty once its reasoning is out costs an attempt too,
// and is asked again (internal/reply's Again). After the last attempt the
// graph stays as it was.
func (e *episode) llmUpdate(ctx context.Context, text string) error {
	seeds := []string{Agent}
	lower := strings.ToLower(text)
	for _, ent := range e.g.Entities() {
		if strings.Contains(lower, ent.Name) {
			seeds = append(seeds, ent.Name)
		}
	}
	relevant := e.g.Retrieve(seeds, e.m.cfg.Depth)
	action := ""
	if e.last != nil {
		action = e.render(*e.last, nil)
	}
	var feedback []string
	var cutOff error // the last reply was unusable whatever its content
	for attempt := range e.m.cfg.UpdateAttempts {
		last := attempt == e.m.cfg.UpdateAttempts-1
		// What the reader does with a reply it cannot use: ask again with
		// the complaint, or, on the last attempt, leave the graph as it was.
		then := llm.AskedAgain
		if last {
			then = llm.Skipped
		}
		prompt, err := UpdatePrompt(e.g, relevant, action, text, feedback)
		if err != nil {
			return err
		}
		req := e.request("kgplan.update", prompt, UpdateSchema)
		if cutOff != nil {
			req = replyfmt.Again(req, attempt, cutOff)
		}
		ans, err := replyfmt.Get(ctx, e.m.deps.Chat, req)
		cutOff = nil
		if errors.Is(err, replyfmt.ErrCutOff) || errors.Is(err, replyfmt.ErrEmpty) {
			llm.NoteUnusable(ctx, "kgplan.update", then)
			cutOff = err
			continue
		}
		if err != nil {
			return fmt.Errorf("kgplan.update: %w", err)
		}
		u, err := ParseUpdate(ans.Text)
		if err != nil {
			llm.NoteUnusable(ctx, "kgplan.update", then)
			feedback = []string{err.Error()}
			continue
		}
		err = e.g.Apply(u, e.step, "llm")
		var ve *VerifyError
		if errors.As(err, &ve) {
			llm.NoteUnusable(ctx, "kgplan.update", then)
			feedback = ve.Violations
			e.count(func(s *Stats) { s.Rejected++ })
			continue
		}
		if err != nil {
			return err
		}
		_, repaired := replyfmt.Clean(ans.Text)
		llm.NoteParsed(ctx, "kgplan.update", repaired)
		e.count(func(s *Stats) { s.Updates++ })
		return nil
	}
	return nil // every attempt failed: the graph stays as it was
}

// writeGoal produces the :goal: by the LLM when set, else by Deps.Text. A
// goal the model does not give within internal/reply's budget is an
// ErrReply error (skipped): the caller plans without it (it explores, or
// re-prompts with the planner's error).
func (e *episode) writeGoal(ctx context.Context, task, plannerErr string) (pddl.Condition, error) {
	if e.m.deps.Chat == nil {
		return e.m.deps.Text.Goal(e.m.dom, task)
	}
	if i := strings.Index(task, taskPrefix); i >= 0 {
		task = strings.TrimSpace(task[i+len(taskPrefix):])
	}
	prompt, err := GoalPrompt(e.g, task, plannerErr)
	if err != nil {
		return pddl.Condition{}, err
	}
	var c pddl.Condition
	_, err = replyfmt.Ask(ctx, e.m.deps.Chat, e.request("kgplan.goal", prompt, GoalSchema), 0, llm.Skipped, func(a replyfmt.Answer) (repaired bool, err error) {
		c, repaired, err = ParseGoalAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return pddl.Condition{}, fmt.Errorf("%w: %w", ErrReply, err)
	}
	if err != nil {
		return pddl.Condition{}, fmt.Errorf("kgplan.goal: %w", err)
	}
	return c, nil
}

// relevant selects the retrieval seeds for a planning query: by the LLM
// when set (plus the goal's named entities), else by RelevantEntities.
// Without a usable selection within internal/reply's budget the rule's
// seeds are the selection (fell back).
func (e *episode) relevant(ctx context.Context, goal pddl.Condition) ([]string, error) {
	rule := RelevantEntities(e.g, goal)
	if e.m.deps.Chat == nil {
		return rule, nil
	}
	prompt, err := EntitiesPrompt(e.g, e.task.Goal)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, ent := range e.g.Entities() {
		known = append(known, ent.Name)
	}
	var out []string
	_, err = replyfmt.Ask(ctx, e.m.deps.Chat, e.request("kgplan.entities", prompt, EntitiesSchema), 0, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		if out, repaired = ParseEntitiesAnswer(a, known); len(out) == 0 {
			return repaired, fmt.Errorf("%w: no known entity", ErrReply)
		}
		return repaired, nil
	})
	if err != nil && !errors.Is(err, replyfmt.ErrUnusable) {
		return nil, fmt.Errorf("kgplan.entities: %w", err)
	}
	// The goal's quantified types are always seeds: the model picks among
	// names, but an existential goal is about every entity of the type.
	for _, n := range rule {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}
