// Package fidelity holds the test that keeps docs/FIDELITY.md true: every
// code location the page names exists.
package fidelity
