// Package fidelity holds the tests that keep docs/FIDELITY.md and
// docs/ARCHITECTURE.md true: every FIDELITY row states a verdict and names
// code that exists, every test a verdict cites as its evidence exists, and
// every file, `path:Symbol` and test ARCHITECTURE.md names exists.
package fidelity
