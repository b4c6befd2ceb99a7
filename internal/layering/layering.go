// Package layering holds the test that keeps the method cores apart from
// one another and from the rules that stand in for a model: which packages
// of this module each memory method's core may import, directly or not.
//
// A method's core (package samem, clin, arigraph, memstream, kgplan, expel, awm or
// baseline, and SAMem's role packages summarize, thought and forget) holds
// the paper's algorithm and its model roles. It may use the shared
// contracts and tools (agent, envbridge, llm, checkpoints, the registry of
// prompt templates internal/promptset, ...) and the
// environment-neutral helpers (actions, ariadne), never the household
// world's text parser (envbridge/household, belief), never a package
// offline (the rule-based stand-ins for the model, which live in
// <method>/offline and may read household text), and never another method.
// Its offline roles reach it through its Deps, from the application.
package layering
