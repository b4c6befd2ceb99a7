package hhtext_test

import (
	"fmt"

	"github.com/samem/trainer/envbridge/household/hhtext"
)

func ExampleParseObservation() {
	ev := hhtext.ParseObservation("You open the fridge 1. The fridge 1 is open. In it, you see a egg 1, and a tomato 2.")
	fmt.Println(ev.Kind, ev.Target, ev.Items)
	kind, n, _ := hhtext.SplitName(ev.Items[1])
	fmt.Println(kind, n)
	g, _ := hhtext.ParseGoal("Your task is to: heat some egg and put it in countertop.")
	fmt.Println(g.Type, g.Object, g.Receptacle)
	// Output:
	// open fridge 1 [egg 1 tomato 2]
	// tomato 2
	// pick_heat_then_place_in_recep egg countertop
}
