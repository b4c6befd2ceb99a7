// Package zvm is an in-process Z-machine interpreter (Z-Machine Standard
// 1.1) for story files of versions 3, 4, 5, 7 and 8, in pure Go: no cgo, no
// child process, no wall clock. Versions 1, 2 and 6 are refused by Load
// with an error naming the version.
//
// # Use
//
//	m, err := zvm.Load(story, zvm.Options{Seed: 0})
//	w, err := m.Run()         // to the first prompt: WaitLine, WaitKey or Halted
//	out := m.Output()         // out.Main: the lower window's text; out.Status: the upper window
//	err = m.Input("take lamp") // answer WaitLine (Key answers WaitKey), then Run again
//
// Snapshot/Restore copy dynamic memory, the stacks and the small rest of
// the state; WorldHash hashes the object tree (entries and property
// tables) and the globals; Object, Dictionary, Global, StatusV3, PeekByte
// and ReadWord read the machine for bindings and tests. PeekByte stands
// for a ReadByte(addr int) byte: go vet rejects a ReadByte method whose
// signature is not io.ByteReader's.
//
// # What is implemented
//
// All opcodes of versions 3, 4, 5, 7 and 8 (§14, §15), decoded in the long,
// short, variable and extended forms, with the version's store and branch
// conventions. Each opcode is one row of the table in opcodes.go: its name
// as the Standard gives it, operand count (0OP, 1OP, 2OP, VAR, EXT) and
// number, whether a store byte, branch data or a string follows, the
// versions zvm executes it in, the fewest operands it takes, the fast kind
// the instruction cache runs inline (or none) and its handler
// (handlers.go). The decoder, the instruction cache, the generic path and
// Disassemble all read that table. Exceptions and choices:
//
//   - save, restore (0OP in v3/v4, EXT:0/1 in v5+): one in-memory slot per
//     machine, like a file: save succeeds (branch taken in v3, 1 in v4+),
//     restore returns to it (the save answers "restored": branch taken, 2)
//     or fails (branch not taken, 0) when nothing was saved. The slot is not
//     part of a Snapshot. EXT save/restore of a table (auxiliary files)
//     fail with 0.
//   - save_undo, restore_undo: one undo slot, part of the state (a Snapshot
//     carries the slot of its moment).
//   - restart reloads dynamic memory, keeps the transcript and fixed-pitch
//     bits of Flags 2, reseeds the generator with Options.Seed.
//   - verify sums the story file as loaded; piracy says genuine.
//   - read (sread/aread): the line is lower-cased, characters with no ZSCII
//     code are dropped, it is cut to the buffer's size and tokenised with
//     the game's dictionary (§13); the terminator returned in v5+ is 13.
//     Timed input (time and routine operands of read and read_char) is
//     answered as if no time passes: the routine is never called.
//   - tokenise with a game-supplied dictionary (sorted or not) and the
//     "skip unknown words" flag; encode_text; the v5 alphabet table and
//     the Unicode translation table of the header extension.
//   - random: Frotz's generator, so a seed gives the same numbers as
//     dfrotz -s SEED (the suite's walkthroughs were recorded that way):
//     a linear congruential generator seeded with Options.Seed (any value,
//     0 included); random(-n) reseeds with n, or counts 1..n for n < 1000
//     (§2.4.2); random(0) reseeds with Options.Seed, since there is no
//     clock.
//   - Output streams 1 and 3 (memory tables, nested 16 deep); stream 2
//     (transcript) only sets and clears the header bit; stream 4 and
//     input_stream are ignored (input comes from Input and Key).
//   - Windows: the lower window's text goes to Output.Main whatever its
//     style (set_text_style and buffer_mode change nothing in the text);
//     erase_window 0 does not take back text already printed. The upper
//     window is a character grid (split_window, set_window, set_cursor,
//     erase_window, erase_line, print_table, get_cursor): Output.Status is
//     its lines, right-trimmed; text outside it is clipped. In version 3 the
//     status line is drawn from the globals (§8.2) before each read and on
//     show_status: " Location ... Score: s  Moves: m" or "Time: h:mm AM".
//     get_cursor in the lower window answers line 1, column 1.
//   - set_colour, set_true_colour, sound_effect: ignored (the header says
//     there are no colours and no sound). set_font accepts fonts 1 and 4.
//   - Version 6 opcodes (EXT:5-8, EXT:16-29) and opcodes a version lacks
//     are errors naming the opcode and the PC ("illegal opcode 2OP:25
//     (call_2s, versions 4-8) in version 3").
//   - Where zvm is more lenient than §14's version columns it says so in
//     the table: the VAR opcodes of the screen model (erase_window,
//     set_cursor, ...) and read_char, scan_table run in every version;
//     show_status is a no-op after version 3 (Inform pads with it).
//   - call_2s and call_2n in variable form with more than two operands
//     pass every operand after the routine as an argument, as Frotz does.
//
// The header tells the game (§11): interpreter 6 ('Z'), Standard 1.1,
// screen 255 lines (no [MORE]) by Options.Width columns (80), bold,
// italic and fixed-pitch available, no colours, pictures, sound, mouse,
// menus or timed input, undo available; in version 3 a status line and
// screen splitting are available.
//
// The number of objects is not stored in a story file; NumObjects counts
// entries up to the lowest property table, the usual layout.
//
// # Errors and limits
//
// Load checks the header (version, file size, static memory base, the
// addresses of the object table, globals, dictionary, abbreviations,
// alphabet and extension tables) and returns an error naming what is
// wrong. At run time every memory access, variable, object, property and
// stack operation is checked: an error names the PC and the opcode there
// ("zvm: pc 0x1000, 2OP:23 (div): division by zero"), and the machine stays
// unusable (Run returns the error again) until Restore. A panic would be a
// bug: Run recovers one as a last resort and reports it as an "internal
// error" with the PC, and the fuzz targets fail on that. One Run executes
// at most Options.Budget instructions (ErrBudget); at most 8 MiB of text
// may wait in the output buffer (Output empties it), and one string decodes
// at most 65,536 words (abbreviations included): beyond, a run-time error.
//
// # Speed
//
// Run executes instructions of static and high memory from a pre-decoded
// cache (icache.go: each instruction decoded once, the hot opcodes run
// inline, safe because the game can write dynamic memory only, §1.1.1;
// calls and returns, the indirect-variable opcodes and the property walk
// take their common case inline and anything unusual through the checked
// functions); code in dynamic memory is decoded afresh each time. Inform
// games take save_undo every turn: after a Restore it writes into a slot
// the machine owns and reuses, not into a new one. Calls to two
// routines Inform puts in every game (the veneer's Unsigned__Compare and
// Inform 7's word read) are answered natively, matched on their whole code
// (accel.go), with the value and instruction count the routine gives.
// Every other opcode goes from the cache to the generic path, which
// dispatches through the opcode table. TestCacheMatchesStep plays every
// walkthrough and CZECH both ways and requires the same transcript,
// instruction count and world; FuzzOpcodePaths runs single instructions
// (seeded with every row of the table) on random frames, locals, stacks and
// globals both ways and requires the same memory, stack, frames, PC,
// output and error.
//
// What a step costs is the game's own code: an Inform 7 turn of a
// TextWorld game runs tens of thousands to over a hundred thousand
// instructions, an Infocom turn about a thousand. BenchmarkEngines plays
// the same script on zvm and through one dfrotz process (its engine alone:
// the CPU time of the script less that of the opening) and counts zvm's
// instructions; `go run ./cmd/bench -only zmachine` reports it. Measure
// CPU time, not wall-clock rates, on a shared machine. The measured rates,
// and why no interpreter reaches 50,000 TextWorld steps per second:
// docs/results/2026-11-24-performance.md.
//
// # Reading code
//
// Disassemble decodes the instruction at an address and names it by the
// table: `0x58a jl G00 #0x03e8 ?~0x5ec` (operands: #constants, sp, Lnn
// locals, Gxx globals; -> the store variable; ? the branch, ~ when taken on
// false). It changes nothing in the machine.
//
// # Quetzal
//
// SaveQuetzal writes FORM IFZS with IFhd, CMem (XOR with the story, runs of
// zeros) and Stks, while the machine waits for input; the PC in IFhd is the
// waiting read or read_char instruction, which RestoreQuetzal executes again
// so that the machine waits as it did. RestoreQuetzal reads CMem or UMem,
// checks that IFhd matches the story, and leaves the machine unchanged on
// any error. Files whose PC points after a save instruction (written by
// other interpreters' in-game save) are refused.
//
// # Differences from dfrotz
//
// TestDifferentialDfrotz compares the in-process transcripts of every
// walkthrough in ../shared/games word by word with Debian's dfrotz 2.54.
// They agree except for what dfrotz changes: it drops bold and italic text
// in versions 4+ (room names, "*** You have won ***", detective's "help"),
// wraps lines at 80 columns (also after a hyphen), prints a warning for
// @insert_obj into object 0 (both ignore the move), and moves some blank
// lines (CZECH's print tests show one more after print_ret and one fewer
// before the summary). A piped dfrotz answers a key wait with the next
// script line; the tests' replay does the same. Header identity differs
// by design (dfrotz: interpreter 1 'F', 80x24, timed input).
package zvm
