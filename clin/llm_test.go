package clin

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, msgs []llm.Message) {
	t.Helper()
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("[" + m.Role + "]\n" + m.Content + "\n")
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if b.String() != string(want) {
		t.Errorf("%s prompt differs from %s:\n%s", name, path, b.String())
	}
}

var goldenMemory = []Abstraction{
	{Kind: Necessary, Modifier: ModShould, X: "opening a closed receptacle", Y: "finding the target object"},
	{Kind: NotContribute, Modifier: ModMay, X: "checking the inventory", Y: "completing the task"},
}

var goldenTrace = []Step{
	{Goal: "going to an unvisited receptacle", Action: "go to cabinet 2", Observation: "You arrive at cabinet 2. The cabinet 2 is closed."},
	{Goal: "opening a closed receptacle", Action: "open cabinet 2", Observation: "You open the cabinet 2. The cabinet 2 is open. In it, you see a apple 1."},
}

var scienceTask = envbridge.Task{Type: "boil", Goal: "Your task is to boil water. First, focus on the substance."}

const scienceRoom = "This room is called the kitchen. In it, you see: a stove, which is turned off. a pot (containing nothing)."

// On ScienceWorld the controller is given what seed 004 Fig. 6 gives it:
// the objects in view and the action templates (the driver's, else
// ScienceWorld's own list, the one SAMem's thinker shows), how to answer an
// ambiguous request, and the TASK_COMPLETE, FOCUS ON and wait rules; the
// household and fiction prompts have none of it.
func TestControllerScienceContent(t *testing.T) {
	text := func(msgs []llm.Message) string {
		var b strings.Builder
		for _, m := range msgs {
			b.WriteString(m.Content + "\n")
		}
		return b.String()
	}
	driver, err := ControllerMessages(ControllerInput{Task: scienceTask, Style: envbridge.StyleScience, Obs: envbridge.Observation{
		Text: scienceRoom, Objects: []string{"stove", "pot"}, Templates: []string{"activate OBJ", "focus on OBJ"}}})
	if err != nil {
		t.Fatal(err)
	}
	style, err := ControllerMessages(ControllerInput{Task: scienceTask, Style: envbridge.StyleScience, Obs: envbridge.Observation{Text: scienceRoom}})
	if err != nil {
		t.Fatal(err)
	}
	rules := []string{"TASK_COMPLETE", "FOCUS ON <OBJ>", "write wait as the next action", "Ambiguous request", "Possible objects"}
	for _, want := range append(rules, "- stove\n", "- pot\n", "- activate OBJ\n", "- focus on OBJ\n") {
		if !strings.Contains(text(driver), want) {
			t.Errorf("science prompt with the driver's objects and templates lacks %q:\n%s", want, text(driver))
		}
	}
	for _, tpl := range envbridge.ScienceActions {
		if !strings.Contains(text(style), "- "+tpl.Form+"\n") {
			t.Errorf("science prompt without the driver's templates lacks ScienceWorld's %q", tpl.Form)
		}
	}
	for _, p := range []string{text(driver), text(style)} {
		if strings.Contains(p, "go north") || strings.Contains(p, "take lamp") {
			t.Errorf("science prompt shows text-game verbs:\n%s", p)
		}
	}
	house, err := ControllerMessages(ControllerInput{Task: fakeworld.HeatApple, Style: envbridge.StyleHousehold,
		Obs: envbridge.Observation{Text: "You are in the kitchen.", Admissible: []string{"look"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range rules {
		if strings.Contains(text(house), rule) {
			t.Errorf("household prompt has the ScienceWorld rule %q", rule)
		}
	}
}

func TestPromptsGolden(t *testing.T) {
	c, err := ControllerMessages(ControllerInput{
		Task: fakeworld.HeatApple, Style: envbridge.StyleHousehold, Memory: goldenMemory, Trace: goldenTrace,
		Obs:      envbridge.Observation{Text: goldenTrace[1].Observation, Admissible: []string{"take apple 1 from cabinet 2", "close cabinet 2", "inventory"}},
		Rejected: []string{"grab the apple"},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "controller", c)
	free, err := ControllerMessages(ControllerInput{Task: envbridge.Task{Goal: "find the treasure"}, Style: envbridge.StyleFiction, Obs: envbridge.Observation{Text: "West of House"}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "controller_fiction", free)
	sci, err := ControllerMessages(ControllerInput{Task: scienceTask, Style: envbridge.StyleScience, Obs: envbridge.Observation{
		Text: scienceRoom, Objects: []string{"agent", "air", "stove", "pot", "door to hallway"}, Templates: []string{"activate OBJ", "focus on OBJ", "look around", "move OBJ to OBJ"}}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "controller_science", sci)
	sciStyle, err := ControllerMessages(ControllerInput{Task: scienceTask, Style: envbridge.StyleScience, Obs: envbridge.Observation{Text: scienceRoom}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "controller_science_style", sciStyle)
	a, err := AdaptMessages(AdaptInput{
		Task: fakeworld.HeatApple, Trial: 1, Trace: goldenTrace, Reward: 0,
		Previous: []Memory{{Trial: -1}, {Trial: 0, Reward: 0, Items: goldenMemory}},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "adapt", a)
	m, err := MetaMessages(MetaInput{Task: fakeworld.HeatEgg, Style: envbridge.StyleHousehold, Archive: []Archived{
		{Task: fakeworld.HeatApple, Reward: 1, Items: goldenMemory}, {Task: fakeworld.HeatMug, Reward: 0},
	}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "meta", m)
}

const (
	adaptReply = "Summary of learning as a numbered list:\n" +
		"1. Opening the cabinet SHOULD BE NECESSARY to find the apple.\n" +
		"2. Heating the apple with the microwave SHOULD BE NECESSARY to complete the task.\n" +
		"3. Checking the inventory DOES NOT CONTRIBUTE to the task."
	metaReply = "1. Heating the object with the microwave SHOULD BE NECESSARY to complete a heat task.\n" +
		"2. Opening closed receptacles MAY BE NECESSARY to find the object."
)

// TestLLMPath runs CLIN's LLM-backed roles against a local OpenAI-protocol
// server through the real client: controller with a retry after a
// non-admissible candidate, memory generator after the trial, and the
// meta-memory of the next task of the same type.
func TestLLMPath(t *testing.T) {
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if c.Chat == nil {
			return llmtest.Reply{} // deterministic embeddings
		}
		p := c.Chat.Prompt()
		switch {
		case strings.Contains(p, "CURRENT TRACE"):
			return llmtest.Reply{Text: adaptReply}
		case strings.Contains(p, "collection of learning lists"):
			return llmtest.Reply{Text: metaReply}
		case strings.Contains(c.Chat.System(), "AI agent helping execute"):
			step := strings.Count(p, "\nAction: ")
			if step == 0 && !strings.Contains(p, "FEEDBACK:") {
				return llmtest.Reply{Text: "I used learning id(s): $$$ I will improvise. ### fly to the moon"}
			}
			if step >= len(fakeworld.HeatApplePlan) {
				return llmtest.Reply{Text: "I used learning id(s): $$$ done ### look"}
			}
			return llmtest.Reply{Text: "I used learning id(s): 1 $$$ Follow the plan. ### " + fakeworld.HeatApplePlan[step]}
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	})
	client, err := openai.New(openai.Config{
		ChatModel: "test-chat", ChatBaseURLs: []string{srv.URL},
		EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim, Timeout: 10 * time.Second, Retries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{}, Deps{Chat: client, Embed: client})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ep, err := runner.Run(ctx, &fakeworld.World{}, m, agent.Start{Task: fakeworld.HeatApple, Mode: agent.Train, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if !ep.Outcome.Won || ep.Outcome.Steps != len(fakeworld.HeatApplePlan) {
		t.Fatalf("outcome %+v, want won in %d steps", ep.Outcome, len(fakeworld.HeatApplePlan))
	}
	if got := ep.Transitions[0].Decision.Action; got != fakeworld.HeatApplePlan[0] {
		t.Errorf("first action %q after retry, want %q", got, fakeworld.HeatApplePlan[0])
	}
	want := ParseMemory(adaptReply)
	for i := range want {
		want[i].Trial, want[i].Reward = 0, 1
	}
	if got := m.Memory(fakeworld.HeatApple.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("memory after trial 0 = %+v, want %+v", got, want)
	}

	// A new training task of the same type starts with an empty memory
	// (ADAPT, seed 004 Sec. 5A); a held-out task in evaluation starts from a
	// meta-memory of the trained ones (GEN-ENV, Eq. 3).
	first, err := m.Start(ctx, agent.Start{Task: fakeworld.HeatMug, Mode: agent.Train, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(3, 4))})
	if err != nil {
		t.Fatal(err)
	}
	if mem := first.(*episode).memory; len(mem) != 0 {
		t.Errorf("first training trial of %s starts from %d items, want an empty memory", fakeworld.HeatMug.ID, len(mem))
	}
	held, err := m.Start(ctx, agent.Start{Task: fakeworld.HeatEgg, Mode: agent.Eval, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(3, 4))})
	if err != nil {
		t.Fatal(err)
	}
	meta := held.(*episode).memory
	if len(meta) != 2 || meta[0].Trial != -1 || meta[0].Reward != 1 || meta[0].Modifier != ModShould {
		t.Errorf("meta-memory of %s = %+v, want the 2 parsed items with trial -1, reward 1", fakeworld.HeatEgg.ID, meta)
	}
	var sawFeedback, sawNewTask bool
	for _, c := range srv.Calls() {
		if c.Chat == nil {
			continue
		}
		p := c.Chat.Prompt()
		sawFeedback = sawFeedback || strings.Contains(p, `FEEDBACK: The action "fly to the moon" is not executable`)
		sawNewTask = sawNewTask || strings.Contains(p, "NEW TASK: "+fakeworld.HeatEgg.Goal)
	}
	if !sawFeedback || !sawNewTask {
		t.Errorf("retry feedback seen %v, meta prompt for the new task seen %v; want both", sawFeedback, sawNewTask)
	}
}
