package kgplan

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/samem/trainer/pddl"
)

//go:embed household.pddl
var householdPDDL string

var (
	domOnce sync.Once
	domVal  *pddl.Domain
	domErr  error
)

// Household returns the parsed household domain (household.pddl). The
// domain is shared and must not be modified.
func Household() (*pddl.Domain, error) {
	domOnce.Do(func() {
		domVal, domErr = pddl.ParseDomain(householdPDDL)
		if domErr != nil {
			domErr = fmt.Errorf("household.pddl: %w", domErr)
		}
	})
	return domVal, domErr
}

// taskPrefix introduces the task in the household world's first
// observation; the goal writer is shown what follows it.
const taskPrefix = "Your task is to: "

// Names of the domain's constants: the agent, and the place it starts at.
const (
	Agent      = "you"
	StartPlace = "middle-of-room"
)
