// Package fidelity holds the test that keeps docs/FIDELITY.md true: every
// row states a verdict and names code that exists, and every test a verdict
// cites as its evidence exists.
package fidelity
