// Package doccheck holds the tests that keep the documentation and the
// code's comments honest: every relative link (and #anchor) in README.md
// and docs/ resolves, and no Go file points at an issue number where it
// should say the reason.
package doccheck
