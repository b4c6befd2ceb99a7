package app

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/samem/trainer/report"
)

// fillTrainTokens sets each method's training tokens from the run's
// training account (train-usage.json, written by the last train command;
// a method it does not hold keeps nil), for seed 002 Fig. 8's comparison.
// A run without the file has no training tokens.
func fillTrainTokens(run string, ms []report.Method) error {
	var acc Account
	if err := readJSON(filepath.Join(run, TrainUsageFile), &acc); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for i := range ms {
		if r, ok := acc.Methods[ms[i].Name]; ok {
			t := r.Total.PromptTokens + r.Total.CompletionTokens + r.Total.CachedTokens
			ms[i].TrainTokens = &t
		}
	}
	return nil
}
