package pddl

import (
	"fmt"
	"strings"
)

// node is one s-expression: an atom (Atom != "") or a list.
type node struct {
	Atom string
	List []*node
	Line int // 1-based line where the node starts, for error messages
}

func (n *node) isList() bool { return n.Atom == "" }

// head returns the lower-cased first atom of a list, or "".
func (n *node) head() string {
	if !n.isList() || len(n.List) == 0 || n.List[0].isList() {
		return ""
	}
	return n.List[0].Atom
}

func (n *node) String() string {
	if !n.isList() {
		return n.Atom
	}
	parts := make([]string, len(n.List))
	for i, c := range n.List {
		parts[i] = c.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// maxDepth bounds list nesting so that hostile input cannot exhaust the stack.
const maxDepth = 64

// parseSexpr reads exactly one top-level s-expression from src. Atoms are
// lower-cased (PDDL is case-insensitive); ';' starts a comment to end of line.
func parseSexpr(src string) (*node, error) {
	p := &sexprParser{src: src, line: 1}
	p.skipSpace()
	if p.pos >= len(p.src) {
		return nil, fmt.Errorf("%w: empty input", ErrSyntax)
	}
	n, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("%w: line %d: text after the closing parenthesis", ErrSyntax, p.line)
	}
	if !n.isList() {
		return nil, fmt.Errorf("%w: line %d: expected '('", ErrSyntax, n.Line)
	}
	return n, nil
}

type sexprParser struct {
	src  string
	pos  int
	line int
}

func (p *sexprParser) skipSpace() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			p.pos++
		case c == ';':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *sexprParser) parse(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: line %d: nesting deeper than %d", ErrSyntax, p.line, maxDepth)
	}
	p.skipSpace()
	if p.pos >= len(p.src) {
		return nil, fmt.Errorf("%w: unexpected end of input", ErrSyntax)
	}
	start := p.line
	switch p.src[p.pos] {
	case ')':
		return nil, fmt.Errorf("%w: line %d: unexpected ')'", ErrSyntax, p.line)
	case '(':
		p.pos++
		n := &node{Line: start, List: []*node{}}
		for {
			p.skipSpace()
			if p.pos >= len(p.src) {
				return nil, fmt.Errorf("%w: line %d: unclosed '('", ErrSyntax, start)
			}
			if p.src[p.pos] == ')' {
				p.pos++
				return n, nil
			}
			c, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			n.List = append(n.List, c)
		}
	}
	begin := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '(' || c == ')' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			break
		}
		p.pos++
	}
	return &node{Atom: strings.ToLower(p.src[begin:p.pos]), Line: start}, nil
}
