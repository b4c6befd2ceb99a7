package reply

import "strings"

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
