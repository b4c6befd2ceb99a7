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

// Clip cuts s to at most n bytes: at the last space before the bound when
// there is one, else at the last rune boundary, so that the result stays
// valid UTF-8 when s is.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut])
}

// Short is s cut to n bytes with "..." added, for quoting a reply in an
// error message.
func Short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
