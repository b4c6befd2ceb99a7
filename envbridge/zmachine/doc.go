// Package zmachine plays Z-machine story files (.z1 to .z8: Jericho's classic
// games, TextWorld games) as trainer environments.
//
// # In-process (the default)
//
// Games run in-process on the Go interpreter envbridge/zmachine/zvm: no child
// process, no Debian package, no wall-clock timeout. The driver (vm.go,
// vmenv.go) works on the machine itself. What it knows about particular
// games is one data table, bindings.json (see Binding): general rules come
// first, and the table holds only what the rules cannot tell (for the 57
// story files of the Jericho suite: Jericho's seeds and intro commands,
// the texts of endings that are no banner, the maximum of a game without a
// score of its own, the few exceptions below).
//
//   - Text: everything the game prints to the lower window reaches the
//     observation, whatever its style (bold room headers and banners
//     included); the upper window (the status line) is kept apart
//     (Env.StatusLine).
//   - Score, maximum and moves are what the game itself says when asked
//     (the score command), never read by spending a move. The general rules,
//     in order (scoreSource): a version 3 game that is no time game (the
//     header's flag, byte 1 bit 1 of the story file, which Inform also sets
//     for "Statusline time") reads its status-line globals; a game that
//     answers the score command with numbers globals hold reads those
//     globals, found once per game by marking candidate globals and asking
//     (Inform's score and turns, a time game's score); a game whose status
//     line shows a score and that is no time game reads its status line; a
//     game that answers otherwise is asked after every turn, on the machine
//     and undone. The answer is read in every wording of "out of a possible
//     N" the suite's games use (ParseAnswer). The maximum is the game's own
//     ("out of a possible 0" is no score); a game without one (905, moonlit,
//     weapon, huntdark, partyfoul) counts Jericho's 1 for its win. Step 0's
//     score and maximum are Env.Score.
//   - The end of a game is known from the machine and its text: quit
//     executed (the machine halts); the final question in any wording
//     (ParseEnding: the closing lines name RESTART with RESTORE, QUIT or
//     UNDO); an end banner ("*** You have died ***"). Won or lost: the
//     banner's words, the binding's texts (Jericho's victory texts), or an
//     ending at the maximum score (Infocom endings print no banner). A death
//     is lost, as Jericho reports it, also in zork1, which lets the player
//     go on; a game whose deaths are part of play (inhumane; ballyhoo's
//     survived fall) says so in its binding (deaths_go_on), and a death
//     ends it only with the final question.
//   - Key waits: at the opening (and during the intro commands) the driver
//     answers key waits and lines that ask only for RETURN ("[Press RETURN
//     or ENTER to begin.]") by itself, so that the first observation is the
//     game (Jericho's intros press return for the same games). After that a
//     key wait is the agent's: the observation shows the text (with the
//     upper window when it holds a menu) and a note, and the next action is
//     typed as keys, a key name (return, space, escape, up, down ...) being
//     one key and other text its characters, one per key the game reads;
//     what is left when the game asks for a line is dropped. That is how
//     Jericho's and dfrotz's terminals give a game keys, and how the suite's
//     walkthroughs were recorded. A key that changes nothing, not even the
//     menu, is answered at once ("[The game did not answer that key.]").
//     A game that runs its instruction budget (Config.Budget) without asking
//     for input ends its episode with ErrRunaway.
//   - Room descriptions are never empty: the binding's intro (by default
//     "verbose") is sent once after the opening, its output dropped.
//   - In the Infocom games whose interpreters dropped a typed "?" (Frotz
//     does the same for them; the binding's question_mark), "look?" is
//     "look".
//   - Seeds: every value is a seed, 0 included; a game whose binding names a
//     seed (the Jericho games: their walkthroughs are recorded at it) plays
//     with it unless Config.ForceSeed.
//   - Env.Save and Env.Restore write and read Quetzal files in the Env's
//     private directory; valid actions use in-memory snapshots.
//   - Env.ValidActions is Jericho's get_valid_actions (valid.go): templates
//     (the game's verb grammar from the JerichoFile beside it, else a
//     general list) filled with the objects in view, each named with a
//     word the parser knows it by (names.go: Inform's "name" property,
//     Infocom's SYNONYM), and, where the game keeps the Inform library's
//     attribute order, only with things of the kind the verb needs
//     (attrs.go: "wear" clothing, "put in" a container); besides the
//     grammar: "take all from" a holder, "push X north", "<character>,
//     follow me", "ask <character> about X"; the first two things the
//     last text names are tried with the core verbs before anything is
//     taken or dropped. Each is played from a
//     snapshot and kept when it changes the object tree or the score, within
//     an instruction budget (Config.ValidBudget); a candidate an earlier
//     search of the episode played to no change (its object as it is now,
//     or the same room; an uncommon one-word command anywhere) is tried
//     after the others (taking and dropping right after the other takes
//     and drops), so the list depends on
//     the episode's path as well as on the state (one list per state within
//     it; a new episode starts afresh). With Config.ValidActions it
//     fills every observation's Admissible list. With GOMAXPROCS above 1
//     the candidates are tried concurrently on the machine and up to three
//     clones of it (zvm.Machine.Clone, made once per game); the list equals
//     the sequential one.
//   - Env.World returns the object tree (names, parents, attributes), the
//     player (found by watching which object moves when the player does)
//     and the room, for tests and evaluation.
//   - Replay plays a script (a walkthrough) and checks, after every step,
//     the reported score, maximum and moves against the game's own answer,
//     and the valid actions' recall; cmd/zcheck prints it per game for any
//     folder of games (Jericho's suite.json beside them gives the
//     walkthroughs).
//
// What an unknown game may lack: a game outside the table gets every
// general rule, so its score, maximum and moves are right wherever it
// answers the score command or shows them on its status line, and its end
// is seen wherever it halts, asks the final question or prints a banner.
// It may lack: a win that is neither a banner with "won"/"win"/"the end" in
// it nor an ending at the maximum (a custom victory text is a binding's);
// a maximum when the game names none (then 0); the moves, when neither the
// status line nor the score answer gives them; intro commands a puzzle or a
// name prompt needs before play (hollywood, seastalker); and valid actions
// from its own grammar (without a JerichoFile entry the general templates
// are tried).
//
// Step limits: an episode's limit is Task.MaxSteps (Config.MaxSteps, else
// seed 000's per-game limits, else DefaultMaxSteps, 100). Seed 002 evaluates
// Jericho on AgentBoard's task set without a limit of its own; AgentBoard's
// evaluation configuration (eval_configs/main_results_all_tasks.yaml,
// max_num_steps) runs every task 30 steps; -max-steps 30 gives that.
// cmd/play -commands and -walkthrough play the whole script unless
// -max-steps is given.
//
// # dfrotz (Config.Interpreter "dfrotz")
//
// Debian's dfrotz as a child process over pipes, started without a shell, is
// kept as the test oracle (TestDifferentialDfrotz compares the two turn by
// turn) and as a reference for comparison, not for training:
//
//	dfrotz -m -p -q -Z 0 -R <private dir> -s <seed> <story file>
//
// A turn ends at the prompt the interpreter prints before it waits for input
// (a last line ">", "> " or "[Room]> ", or a question ending "? " or ": "),
// with a quiet-time fall-back for games whose prompt is not recognised.
// After each action the score verb (which costs no move) reads the score in
// its Infocom ("Your score is 0 (total of 350 points), in 1 move.") or
// Inform/TextWorld form ("You have so far scored 10 out of a possible 360, in
// 2 turns."); the reward is the change in score. End banners, the final
// score and the restart prompt end the episode. An action is sent as one
// line of at most 190 bytes (dfrotz's buffer holds 200: a longer line is
// read as two), its backslashes doubled (a backslash starts dfrotz's own
// commands); "again" repeats the agent's last action, not the score verb;
// the game's own "save", "restore" and "script" prompts are answered with
// agent.qzl and agent.scr in the private directory, apart from Env.Save's
// name.sav.
//
// Limits of Debian's dfrotz 2.54: it drops bold text in version 5 and 8
// story files (Inform's banners "*** You have won ***" and room headers never
// reach the driver, so wins on Inform games are not seen); the score verb
// after each action can answer a game's own question or be eaten by a key
// wait, and it takes a turn in the games whose score command does; an
// Infocom game that ends its process after the last move is an interpreter
// error there. The differential test allows, per turn, the words dfrotz
// drops (at most 16).
//
// The agent acts free-form unless valid actions are asked for.
// ActionVocabulary is the vocabulary the Jericho agent prompt of seed 002
// (Fig. 15) gives the LLM roles.
package zmachine

// ActionVocabulary lists the actions the Jericho prompt (seed 002 Fig. 15)
// names, as command patterns for the LLM roles' prompts.
var ActionVocabulary = []string{
	"examine <place/obj>", "take <obj>", "put down <obj>", "drop <obj>",
	"north", "south", "east", "west", "up", "down",
	"look", "inventory", "open <obj>", "close <obj>", "put <obj> in/on <obj>",
}
