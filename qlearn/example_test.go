package qlearn_test

import (
	"fmt"

	"github.com/samem/trainer/qlearn"
)

func Example() {
	t, err := qlearn.New(qlearn.Params{Alpha: 0.5, Gamma: 0.9})
	if err != nil {
		panic(err)
	}
	// State 2 reached the goal with thought 7: reward 1, terminal.
	q, _ := t.Update(2, 7, 1, 3, true, 1)
	fmt.Printf("Q(2,7) = %.3f\n", q)
	// State 1 led to state 2 with thought 4: no reward, bootstraps 0.9*0.5.
	q, _ = t.Update(1, 4, 0, 2, false, 2)
	fmt.Printf("Q(1,4) = %.3f\n", q)
	th, q, ok := t.Best(1)
	fmt.Println(th, q, ok)
	fmt.Printf("epsilon at episode 15 of 45: %.3f\n", qlearn.Epsilon(qlearn.Eps0, qlearn.Beta, 15, 45))
	// Output:
	// Q(2,7) = 0.500
	// Q(1,4) = 0.225
	// 4 0.225 true
	// epsilon at episode 15 of 45: 0.129
}
