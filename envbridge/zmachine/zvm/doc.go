// Package zvm is an in-process Z-machine interpreter (Z-Machine Standard
// 1.1) for story-file versions 3, 4, 5, 7 and 8, in pure Go, with no child
// process and no wall clock. Work in progress.
package zvm
