// Package zmachine plays Z-machine story files (.z1 to .z8: Jericho's classic
// games, TextWorld games) as trainer environments.
//
// # In-process (the default)
//
// Games run in-process on the Go interpreter envbridge/zmachine/zvm: no child
// process, no Debian package, no wall-clock timeout. The driver (vm.go,
// vmenv.go) works on the machine itself:
//
//   - Text: everything the game prints to the lower window reaches the
//     observation, whatever its style (bold room headers and banners
//     included); the upper window (the status line) is kept apart
//     (Env.StatusLine).
//   - Score and moves are read without sending any command: version 3's
//     status-line globals; later versions the status line the game draws
//     ("Score: 5  Moves: 3", Inform 7's "5/3"), a global, or the game's own
//     wording, as the game's binding says (bindings.go, bindings.json: a
//     small table keyed by release/serial/checksum with the seed, intro
//     commands, score source, max score and win/death texts of the seven
//     Jericho games of ../shared/games, and one entry for TextWorld games).
//     The game's final report ("In that game you scored 4 out of a possible
//     4") is preferred to a status line the ended game no longer redraws.
//   - The end of a game is known from the machine: quit executed (the
//     machine halts: an Infocom game that quits after its last move ends
//     Done with its final text and score), the final question ("Would you
//     like to RESTART, RESTORE ... or QUIT?"), an end banner ("*** You have
//     died ***"). Won or lost is decided by the banner's words or the
//     binding's texts; a death is lost, as Jericho reports it, also in zork1,
//     which lets the player go on.
//   - Key waits: the driver answers a key wait by itself (press a key,
//     [MORE]: space, and if keys bring nothing return, q, escape). A menu
//     (an upper window of several lines that is not the status line shown at
//     commands) is shown to the agent, with a note that the game waits for a
//     single key; the agent's next action is sent as a key (its first
//     character, or return, space, escape, up, down). A key the game ignores
//     is answered at once ("[The game did not answer that key.]"). A game
//     that runs its instruction budget (Config.Budget) without asking for
//     input ends its episode with ErrRunaway.
//   - Room descriptions are never empty: the binding's intro (by default
//     "verbose") is sent once after the opening, its output dropped.
//   - Seeds: every value is a seed, 0 included; a game whose binding names a
//     seed (the Jericho games: their walkthroughs are recorded at it) plays
//     with it unless Config.ForceSeed.
//   - Env.Save and Env.Restore write and read Quetzal files in the Env's
//     private directory; valid actions use in-memory snapshots.
//   - Env.ValidActions is Jericho's get_valid_actions (valid.go); with
//     Config.ValidActions it fills every observation's Admissible list.
//     With GOMAXPROCS above 1 the candidates are tried concurrently on
//     the machine and up to three clones of it (zvm.Machine.Clone, made
//     once per game); the list equals the sequential one.
//   - Env.World returns the object tree (names, parents, attributes), the
//     player and the room, for tests and evaluation.
//
// # dfrotz (Config.Interpreter "dfrotz")
//
// Debian's dfrotz as a child process over pipes, started without a shell, is
// kept as the test oracle (TestDifferentialDfrotz compares the two turn by
// turn) and for comparison:
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
// score and the restart prompt end the episode.
//
// Limits of Debian's dfrotz 2.54, which is why it is no longer the default:
// it drops bold text in version 5 and 8 story files (Inform's banners "***
// You have won ***" and room headers never reach the driver, so wins on
// Inform games are not seen); the score verb after each action can answer
// a game's own question or be eaten by a key wait; an Infocom game that
// ends its process after the last move is an interpreter error there. The
// differential test allows, per turn, the words dfrotz drops (at most 16).
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
