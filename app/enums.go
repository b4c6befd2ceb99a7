package app

import (
	"fmt"
	"slices"
	"strings"
)

// The enumerated settings are string types with their values as typed
// constants. Each is a flag.Value whose Set refuses an unknown value, so a
// mistyped value fails when the flags (or an experiment file) are parsed;
// Validate checks them again for configurations read from JSON. They encode
// as plain strings, so config.json files keep their shape.

// setEnum stores v in *p when it is one of known (after the aliases).
func setEnum[T ~string](p *T, v, what string, known []T, alias map[string]T) error {
	if a, ok := alias[v]; ok {
		*p = a
		return nil
	}
	if slices.Contains(known, T(v)) {
		*p = T(v)
		return nil
	}
	return fmt.Errorf("unknown %s %q (known: %s)", what, v, joinEnum(known))
}

// joinEnum lists the values of an enumeration as "a, b or c".
func joinEnum[T ~string](known []T) string {
	s := make([]string, 0, len(known))
	for _, k := range known {
		if k != "" {
			s = append(s, string(k))
		}
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// EnvKind is the environment driver (-env).
type EnvKind string

// Environment drivers.
const (
	EnvHousehold EnvKind = "household" // the built-in ALFWorld-style world
	EnvZMachine  EnvKind = "zmachine"  // Z-machine story files, in-process
	EnvJSONL     EnvKind = "jsonl"     // a JSON-lines child process
	EnvAgentGym  EnvKind = "agentgym"  // an AgentGym-style HTTP server
)

// EnvKinds lists the environment drivers.
var EnvKinds = []EnvKind{EnvHousehold, EnvZMachine, EnvJSONL, EnvAgentGym}

func (k EnvKind) String() string      { return string(k) }
func (k *EnvKind) Set(v string) error { return setEnum(k, v, "environment", EnvKinds, nil) }

// Grammar is the household world's action grammar (-grammar).
type Grammar string

// Household action grammars; "" is Grammar03.
const (
	Grammar03 Grammar = "0.3" // ALFWorld 0.3: "put X in/on Y"
	Grammar04 Grammar = "0.4" // ALFWorld 0.4: "move X to Y"
)

// Grammars lists the household action grammars.
var Grammars = []Grammar{Grammar03, Grammar04}

func (g Grammar) String() string      { return string(g) }
func (g *Grammar) Set(v string) error { return setEnum(g, v, "grammar", Grammars, nil) }
func (g Grammar) valid() bool         { return g == "" || slices.Contains(Grammars, g) }

// Interpreter runs Z-machine games (-interpreter); "" is InterpreterZVM.
type Interpreter string

// Z-machine interpreters.
const (
	InterpreterZVM    Interpreter = "zvm"    // in-process, envbridge/zmachine/zvm
	InterpreterDfrotz Interpreter = "dfrotz" // Debian's dfrotz as a child process
)

// Interpreters lists the Z-machine interpreters.
var Interpreters = []Interpreter{InterpreterZVM, InterpreterDfrotz}

func (i Interpreter) String() string      { return string(i) }
func (i *Interpreter) Set(v string) error { return setEnum(i, v, "interpreter", Interpreters, nil) }
func (i Interpreter) valid() bool         { return i == "" || slices.Contains(Interpreters, i) }

// GymKind is the kind of an AgentGym server's environment (-agentgym-kind);
// "" is GymALFWorld.
type GymKind string

// AgentGym environment kinds.
const (
	GymALFWorld     GymKind = "alfworld"
	GymScienceWorld GymKind = "sciworld"
)

// GymKinds lists the AgentGym environment kinds.
var GymKinds = []GymKind{GymALFWorld, GymScienceWorld}

func (k GymKind) String() string { return string(k) }
func (k *GymKind) Set(v string) error {
	return setEnum(k, v, "AgentGym kind", GymKinds, map[string]GymKind{"scienceworld": GymScienceWorld})
}
func (k GymKind) valid() bool { return k == "" || k == "scienceworld" || slices.Contains(GymKinds, k) }

// LLMBackend is a model backend (-llm, and -embed for embeddings).
type LLMBackend string

// Model backends.
const (
	// BackendOffline: rule-based roles and the hashing embedder; no server.
	BackendOffline LLMBackend = "offline"
	// BackendOpenAI: any OpenAI-compatible server.
	BackendOpenAI LLMBackend = "openai"
	// BackendLocal: TinyLlama chat and USE embeddings run on this machine by
	// llm/local; no key.
	BackendLocal LLMBackend = "local"
	// BackendReplay answers every request from the response cache of an
	// earlier run; no server. Chat only: its embeddings come from the cache
	// too.
	BackendReplay LLMBackend = "replay"
)

// Backends lists the chat backends (-llm); EmbedBackends the embedding ones (-embed).
var (
	Backends      = []LLMBackend{BackendOffline, BackendOpenAI, BackendLocal, BackendReplay}
	EmbedBackends = []LLMBackend{BackendOffline, BackendOpenAI, BackendLocal}
)

func (b LLMBackend) String() string      { return string(b) }
func (b *LLMBackend) Set(v string) error { return setEnum(b, v, "backend", Backends, nil) }

// embedValue is the -embed flag: an LLMBackend that cannot be replay.
type embedValue LLMBackend

func (b embedValue) String() string { return string(b) }
func (b *embedValue) Set(v string) error {
	return setEnum((*LLMBackend)(b), v, "embedding backend", EmbedBackends, map[string]LLMBackend{"": ""})
}

// Ablation is one of seed 002 Table 2's ablations of SAMem (-ablation); ""
// is none. Resolved turns it into the matching samem.Config switch.
type Ablation string

// SAMem's Table 2 ablations.
const (
	AblationNone        Ablation = ""
	AblationNoQ         Ablation = "no-q"         // samem.Config.NoQ
	AblationNoSituation Ablation = "no-situation" // samem.Config.NoClustering
	AblationNoDecay     Ablation = "no-decay"     // samem.Config.NoDecay
)

// Ablations lists SAMem's -ablation values.
var AblationKinds = []Ablation{AblationNoQ, AblationNoSituation, AblationNoDecay}

func (a Ablation) String() string { return string(a) }
func (a *Ablation) Set(v string) error {
	return setEnum(a, v, "ablation", AblationKinds, map[string]Ablation{"": AblationNone, "none": AblationNone})
}
func (a Ablation) valid() bool { return a == AblationNone || slices.Contains(AblationKinds, a) }

// TaskOrder is the order of the training tasks in an iteration (-task-order).
type TaskOrder string

// Orders of the training tasks in an iteration.
const (
	// TaskOrderShuffled: an order drawn with the run seed, the same in every
	// iteration (the default). The household suite lists its tasks in
	// blocks of one type, and SAMem's clustered states are shared by task
	// types, so in the suite's order every iteration ended with a block of
	// one type (137 two-object tasks of 600) whose updates the shared values
	// then tracked. Seed 002's Algorithm 1 loops over the training tasks
	// without saying in which order.
	TaskOrderShuffled TaskOrder = "shuffled"
	// TaskOrderSuite keeps the suite's order (also what a config.json
	// without task_order means: it was written before there was a choice).
	TaskOrderSuite TaskOrder = "suite"
)

// TaskOrders lists the orders of training tasks.
var TaskOrders = []TaskOrder{TaskOrderShuffled, TaskOrderSuite}

func (o TaskOrder) String() string      { return string(o) }
func (o *TaskOrder) Set(v string) error { return setEnum(o, v, "task order", TaskOrders, nil) }
func (o TaskOrder) valid() bool         { return o == "" || slices.Contains(TaskOrders, o) }

// Structured says when roles send their JSON schema as response_format
// (-structured); "" is StructuredAuto.
type Structured string

// Structured-output modes.
const (
	// StructuredAuto (the default): schemas are sent to a server until it
	// answers 400 about response_format; it is then read as text.
	StructuredAuto Structured = ""
	// StructuredOn: every role that parses its reply sends its schema; a
	// server that refuses them is an error.
	StructuredOn Structured = "on"
	// StructuredOff: no schema is sent.
	StructuredOff Structured = "off"
)

// structuredNames are the values -structured accepts.
var structuredNames = []Structured{"auto", StructuredOn, StructuredOff}

func (s Structured) String() string {
	if s == StructuredAuto {
		return "auto"
	}
	return string(s)
}
func (s *Structured) Set(v string) error {
	return setEnum(s, v, "structured-output mode", structuredNames, map[string]Structured{"auto": StructuredAuto})
}

// UnmarshalText reads a config.json or experiment-file value as Set does,
// so that "auto" is stored as "" there too.
func (s *Structured) UnmarshalText(b []byte) error { return s.Set(string(b)) }

func (s Structured) valid() bool {
	return s == StructuredAuto || s == StructuredOn || s == StructuredOff
}
