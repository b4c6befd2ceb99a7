package reply

import (
	"strings"

	"github.com/samem/trainer/internal/fold"
)

// OneLine folds a parsed text to what a role stores as one item: valid
// UTF-8, without markdown emphasis or backticks, white space folded to
// single spaces, surrounding quotes dropped, cut to at most n bytes at a
// word boundary (Clip), trimmed. It is "" when nothing is left.
func OneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.NewReplacer("`", "", "**", "", "__", "").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSpace(strings.Trim(s, `"'“”`))
	return strings.TrimSpace(Clip(s, n))
}

// LabelledLine reads a reply that gives one item after a label such as
// "Reflection:": decoration taken off (Clean), emphasis dropped, the text
// after the label when the label opens the reply (within its first 40
// bytes, any case), else the whole reply, folded by OneLine to at most n
// bytes. It is "" when nothing is left.
func LabelledLine(reply, label string, n int) string {
	s, _ := Clean(reply)
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	if i := fold.Index(s, label); i >= 0 && i < 40 && i+len(label) <= len(s) {
		s = s[i+len(label):]
	}
	return OneLine(s, n)
}
