// Package faults holds fault-injection helpers for the reliability tests:
// an OpenAI-protocol handler that plays SAMem's roles (and one for every
// method's), a fault schedule on top of it, a wrapper that answers
// in every shape reasoning models answer in (Reasoning), a server that
// enforces structured outputs (Structured), a scan of every text of a run
// directory (ScanTexts), a server that goes away and comes back, a
// JSON-lines environment program that crashes, hangs or prints garbage on
// chosen tasks, a method wrapper whose checkpoint writes fail like a full
// disk, and /proc readers that find the child processes of a run and their
// environments. It is imported by tests only.
package faults
