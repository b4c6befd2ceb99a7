// Package agentgymtest is a local stand-in for AgentGym's ALFWorld and
// ScienceWorld environment servers, answering with the replies their code
// defines, for tests of the agentgym driver and of runs on it.
package agentgymtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Server answers as AgentGym's agentenv-alfworld and agentenv-sciworld
// servers do (their server.py and environment wrappers): JSON bodies, ids
// from /create, /reset answers naming the task (ALFWorld: "task_type", the
// game path, and the goal sentence in the observation; ScienceWorld:
// "task_name", "var_num", "task_description"), failures as
// {"error": "..."} with HTTP 200, a refusal to step a finished environment.
// Its tasks are ALFGames or SciGames, by index. ALFWorld's games are won by
// "take apple" then "put apple in fridge"; ScienceWorld's scores rise by 25
// per "heat water" (up to 75), reach 100 on "focus on water" and -100 on
// "eat poison". The ScienceWorld server also answers /action_hint with
// SciTemplates and the objects of the room.
type Server struct {
	kind string
	// Limit is the ALFWorld server's own step limit (done without a win).
	Limit int
	// Status, when non-zero, is the HTTP status of every answer.
	Status int
	// Huge makes every answer a body of over 1 MiB.
	Huge bool
	// NoHints makes the ScienceWorld server answer /action_hint with 404,
	// as a server without the endpoint does.
	NoHints bool
	mu      sync.Mutex
	resets  int
	hints   int
	envs    map[int]*fakeEnv
	next    int
}

// SciTemplates are the ScienceWorld server's action templates (/action_hint).
var SciTemplates = []string{"eat OBJ", "focus on OBJ", "heat OBJ", "look around"}

// Hints is the number of /action_hint answers given.
func (f *Server) Hints() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hints
}

// Resets is the number of /reset answers given.
func (f *Server) Resets() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.resets
}

type fakeEnv struct {
	game, steps int
	score       float64
	holding     bool
	done        bool
	obs         string
	actions     []string
}

// Game is one task index of the fake server, described as the real
// servers describe theirs: ALFWorld by the game path it returns as
// "task_type" (the last two folders of .../json_2.1.1/train/<type-...>/<trial>/game.tw-pddl)
// and the goal sentence of its first observation; ScienceWorld by
// "task_name", "var_num" and "task_description".
type Game struct {
	Path, Goal string // ALFWorld
	Name, Desc string // ScienceWorld
	Variation  int
}

// ALFGames are the ALFWorld server's tasks: three types, as real game paths name them.
var ALFGames = []Game{
	{Path: "pick_and_place_simple-Apple-None-Fridge-10/trial_T20190906_001", Goal: "put an apple in fridge."},
	{Path: "pick_cool_then_place_in_recep-Apple-None-Fridge-10/trial_T20190907_002", Goal: "cool some apple and put it in fridge."},
	{Path: "pick_and_place_simple-Mug-None-Desk-301/trial_T20190908_003", Goal: "put a mug in desk."},
	{Path: "look_at_obj_in_light-Book-None-DeskLamp-302/trial_T20190909_004", Goal: "look at book under the desklamp."},
	{Path: "pick_cool_then_place_in_recep-Mug-None-CoffeeMachine-23/trial_T20190908_143209_571893", Goal: "cool some mug and put it in coffeemachine."},
	{Path: "pick_and_place_simple-Pillow-None-ArmChair-317/trial_T20190918_005", Goal: "put some pillow on armchair."},
}

// SciGames are the ScienceWorld server's tasks: three types (of levels 3, 1 and 2).
var SciGames = []Game{
	{Name: "boil", Variation: 0, Desc: "Your task is to boil water."},
	{Name: "boil", Variation: 1, Desc: "Your task is to boil chocolate."},
	{Name: "boil", Variation: 2, Desc: "Your task is to boil ice cream."},
	{Name: "find-plant", Variation: 0, Desc: "Your task is to find a(n) plant. First, focus on the thing."},
	{Name: "find-plant", Variation: 1, Desc: "Your task is to find a(n) plant. Then move it to the red box."},
	{Name: "chemistry-mix", Variation: 0, Desc: "Your task is to use chemistry to create salt water."},
}

// New starts a server of kind "alfworld" or "sciworld", closed when the test ends.
func New(t testing.TB, kind string) (*Server, *httptest.Server) {
	f := &Server{kind: kind, Limit: 6, envs: map[int]*fakeEnv{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// ServeHTTP answers one request.
func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Status != 0 {
		http.Error(w, "Internal Server Error", f.Status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	if f.Huge {
		w.Write([]byte(`{"id": 0, "pad": "` + strings.Repeat("x", 1<<20) + `"}`))
		return
	}
	var body struct {
		ID      int    `json:"id"`
		Action  string `json:"action"`
		Game    int    `json:"game"`
		DataIdx int    `json:"data_idx"`
		World   string `json:"world_type"`
	}
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, `{"detail":"unprocessable"}`, http.StatusUnprocessableEntity)
			return
		}
	} else {
		body.ID, _ = strconv.Atoi(r.URL.Query().Get("id"))
	}
	fail := func(msg string) { enc.Encode(map[string]string{"error": msg}) }
	env := f.envs[body.ID]
	switch r.URL.Path {
	case "/":
		// AgentGym's servers name themselves at their root.
		enc.Encode("This is environment " + f.kind + " (agentgymtest fake).")
		return
	case "/create":
		f.envs[f.next] = &fakeEnv{}
		enc.Encode(map[string]int{"id": f.next})
		f.next++
		return
	case "/reset", "/step", "/observation", "/available_actions", "/action_hint":
	default:
		http.NotFound(w, r)
		return
	}
	if env == nil {
		fail(fmt.Sprintf("The id %d is not valid.", body.ID))
		return
	}
	switch r.URL.Path {
	case "/reset":
		game := body.Game
		if f.kind == "sciworld" {
			game = body.DataIdx
		} else if body.World != "Text" {
			fail(`world_type must be one of "Text", "Embody" and "Hybrid"`)
			return
		}
		games := ALFGames
		if f.kind == "sciworld" {
			games = SciGames
		}
		if game < 0 || game >= len(games) {
			fail("list index out of range")
			return
		}
		f.resets++
		g := games[game]
		// ALFWorld's server drops the welcome banner and joins the rest
		// with single newlines: the room, then the goal sentence.
		*env = fakeEnv{game: game, obs: fmt.Sprintf("You are in room %d. Looking quickly around you, you see a fridge 1.\nYour task is to: %s", game, g.Goal),
			actions: []string{"look", "put apple in fridge", "take apple"}}
		if f.kind == "alfworld" {
			enc.Encode(map[string]any{"id": body.ID, "observation": env.obs, "available_actions": env.actions, "task_type": g.Path})
		} else {
			enc.Encode(map[string]any{"task_name": g.Name, "var_num": g.Variation, "task_description": g.Desc,
				"observation": "This room is called the kitchen.", "reward": 0, "score": 0, "deleted": false, "done": false})
		}
	case "/step":
		if env.done {
			fail(fmt.Sprintf("The task with environment %d has finished.", body.ID))
			return
		}
		env.steps++
		if f.kind == "alfworld" {
			won := 0.0
			switch body.Action {
			case "take apple":
				env.holding, env.obs = true, "You pick up the apple."
			case "put apple in fridge":
				if env.holding {
					won, env.obs = 1, "You put the apple in the fridge."
				} else {
					env.obs = "Nothing happens."
				}
			default:
				env.obs = "Nothing happens."
			}
			env.done = won == 1 || env.steps >= f.Limit
			enc.Encode(map[string]any{"observation": env.obs, "reward": won, "available_actions": env.actions, "done": env.done})
			return
		}
		switch body.Action {
		case "focus on water":
			env.score = 100
		case "eat poison":
			env.score = -100
		case "heat water":
			env.score = min(env.score+25, 75)
		}
		env.done = env.score >= 100 || env.score < 0
		env.obs = "You did " + body.Action + "."
		enc.Encode(map[string]any{"observation": env.obs, "reward": 0, "score": env.score, "done": env.done})
	case "/observation":
		enc.Encode(env.obs)
	case "/action_hint":
		if f.kind != "sciworld" || f.NoHints {
			http.NotFound(w, r)
			return
		}
		f.hints++
		enc.Encode(map[string]any{"possible_actions": SciTemplates, "possible_objects": []string{"agent", "water", "stove", "poison"}})
	case "/available_actions":
		if f.kind != "alfworld" {
			http.NotFound(w, r)
			return
		}
		enc.Encode(env.actions)
	}
}
