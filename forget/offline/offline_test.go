package offline

import (
	"context"
	"testing"

	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

func TestOfflineChecker(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		state, thought string
		want           bool
	}{
		{sumoff.FacingClosed, thoughtoff.OpenHere, true},
		{sumoff.Searching, thoughtoff.OpenHere, false},
		{sumoff.TargetHere, thoughtoff.TakeHere, true},
		{sumoff.Searching, thoughtoff.TakeHere, false},
		{sumoff.AtDestination, thoughtoff.PlaceHere, true},
		{sumoff.ReadyToPlace, thoughtoff.PlaceHere, false},
		// The state of -task-progress (the first of two objects at the
		// destination) is read too: placing is valid there, heading for an
		// appliance is not.
		{sumoff.FirstOfMore, thoughtoff.PlaceHere, true},
		{sumoff.FirstOfMore, thoughtoff.ToAppliance, false},
		{sumoff.Searching, thoughtoff.ToDest, false},
		{sumoff.ReadyToPlace, thoughtoff.ToDest, true},
		{sumoff.FacingClosed, thoughtoff.CloseHere, false},
		{sumoff.Searching, thoughtoff.Inventory, true},
		{"a state the rules cannot read", thoughtoff.OpenHere, true},
		{sumoff.Searching, "a thought the rules do not know", true},
	} {
		got, err := Checker{}.Check(ctx, tc.state, tc.thought)
		if err != nil || got != tc.want {
			t.Errorf("Check(%q, %q) = %v, %v; want %v", tc.state, tc.thought, got, err, tc.want)
		}
	}
}
