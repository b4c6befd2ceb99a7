package household

import "github.com/samem/trainer/envbridge/household/hhtext"

// Scene is a task's full start state as plain data: what an agent would know
// with full observation. It is for tests and for planners run with a
// test-only full-observation switch (L3M+P); agents in normal play
// must not see it. Every call returns fresh slices.
type Scene struct {
	TaskID      string
	Type        string      // task type (hhtext.PickAndPlace, ...)
	Goal        hhtext.Goal // the goal's parts, as hhtext.ParseGoal reads them
	Room        string      // "kitchen", "livingroom", "bedroom", "bathroom"
	Layout      string      // floor plan name, e.g. "kitchen12"
	Receptacles []SceneReceptacle
	Objects     []SceneObject
}

// SceneReceptacle is one receptacle at the start.
type SceneReceptacle struct {
	Name     string // "cabinet 3"
	Kind     string // "cabinet"
	Openable bool
	Opened   bool // always false at the start: openables start closed
}

// SceneObject is one object at the start.
type SceneObject struct {
	Name      string // "apple 1"
	Kind      string // "apple"
	Location  string // receptacle name: "countertop 2"
	Pickable  bool   // false for lamps
	Light     bool   // a lamp ("use" turns it on)
	Cleanable bool   // a sinkbasin can clean it
	Heatable  bool   // a microwave can heat it
	Coolable  bool   // a fridge can cool it
}

// Scene returns the start state of a task. An unknown id gives
// envbridge.ErrUnknownTask.
func (s *Suite) Scene(taskID string) (Scene, error) {
	sp, err := s.spec(taskID)
	if err != nil {
		return Scene{}, err
	}
	sc := Scene{TaskID: sp.task.ID, Type: sp.task.Type, Goal: sp.goal, Room: sp.lay.room, Layout: sp.lay.name}
	for _, rc := range sp.lay.receps {
		sc.Receptacles = append(sc.Receptacles, SceneReceptacle{Name: rc.name, Kind: rc.kind, Openable: rc.openable})
	}
	for i, o := range sp.objs {
		sc.Objects = append(sc.Objects, SceneObject{
			Name: o.name, Kind: o.kind, Location: sp.lay.receps[sp.start[i]].name,
			Pickable: o.takeable, Light: o.light, Cleanable: o.cleanable, Heatable: o.heatable, Coolable: o.coolable,
		})
	}
	return sc, nil
}
