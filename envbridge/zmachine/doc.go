// Package zmachine plays Z-machine story files (.z1 to .z8: Jericho's classic
// games, TextWorld games) through Debian's dfrotz as a child process over
// pipes, started without a shell:
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
// Limits of Debian's dfrotz 2.54: it drops bold text in version 5 and 8 story
// files, so Inform's own banners ("*** You have died ***") and room headers
// never reach the driver. TextWorld prints its verdicts as plain text ("***
// The End ***", "*** You lost! ***") and they are read; a classic Inform game
// that ends shows only its final score and restart prompt, and its episode
// ends Done without Won or Lost.
//
// There is no admissible list: the agent acts free-form. ActionVocabulary is
// the vocabulary the Jericho agent prompt of seed 002 (Fig. 15) gives the LLM
// roles. Its "check valid actions" has no counterpart in a plain interpreter
// (Jericho computes valid actions by search); games answer it as an unknown
// verb.
package zmachine

// ActionVocabulary lists the actions the Jericho prompt (seed 002 Fig. 15)
// names, as command patterns for the LLM roles' prompts.
var ActionVocabulary = []string{
	"examine <place/obj>", "take <obj>", "put down <obj>", "drop <obj>",
	"north", "south", "east", "west", "up", "down",
	"look", "inventory", "open <obj>", "close <obj>", "put <obj> in/on <obj>",
}
