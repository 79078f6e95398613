// Package substrings finds which of many strings occur in a text, in one
// pass over the text.
package substrings

import (
	"slices"
	"strings"
)

// Set answers "which of these strings occur in a text" in one pass
// over the text, whatever their number: an Aho-Corasick automaton over the
// strings' bytes. The CLI's report and the identifier ledger ask it about
// thousands of identifiers of a text of megabytes, where one substring
// search per identifier is quadratic.
//
// The trie is stored flat, about 20 bytes a node, as a long transcript's
// identifiers make millions of nodes: the children of node n are
// label[first[n]:first[n+1]] (sorted bytes) leading to next[...], and the
// root's are also in a table, as most steps of a scan start there.
type Set struct {
	root     [256]int32 // the root's child per byte, 0 for none
	first    []int32    // per node, where its children start in label and next; one extra entry ends the last
	label    []byte
	next     []int32
	fail     []int32 // longest proper suffix of the node's path that is a node
	dict     []int32 // nearest node on the fail chain that ends a string, 0 for none
	terminal []bool  // the node ends a string
	endOf    []int32 // per string, the node it ends at
}

// NewSet builds the automaton for strs, which may repeat and be empty.
func NewSet(strs []string) *Set {
	s := &Set{endOf: make([]int32, len(strs))}
	// Inserting in sorted order creates a node's children in byte order and
	// needs no child lookups: a string shares the path of its common prefix
	// with the string before it.
	order := make([]int32, len(strs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(strs[a], strs[b]) })
	parent, byteOf := []int32{0}, []byte{0}
	s.terminal = []bool{false}
	var path []int32 // nodes along the previous string, path[d] at depth d+1
	prev := ""
	for _, i := range order {
		str := strs[i]
		common := 0
		for common < len(str) && common < len(prev) && str[common] == prev[common] {
			common++
		}
		path = path[:common]
		for d := common; d < len(str); d++ {
			p := int32(0)
			if d > 0 {
				p = path[d-1]
			}
			parent, byteOf, s.terminal = append(parent, p), append(byteOf, str[d]), append(s.terminal, false)
			path = append(path, int32(len(parent)-1))
		}
		end := int32(0)
		if len(str) > 0 {
			end = path[len(str)-1]
		}
		s.terminal[end] = true
		s.endOf[i] = end
		prev = str
	}

	nodes := len(parent)
	s.first = make([]int32, nodes+1)
	for n := 1; n < nodes; n++ {
		s.first[parent[n]+1]++
	}
	for n := 1; n <= nodes; n++ {
		s.first[n] += s.first[n-1]
	}
	s.label, s.next = make([]byte, nodes-1), make([]int32, nodes-1)
	fill := slices.Clone(s.first[:nodes])
	for n := 1; n < nodes; n++ {
		p := parent[n]
		s.label[fill[p]], s.next[fill[p]] = byteOf[n], int32(n)
		fill[p]++
		if p == 0 {
			s.root[byteOf[n]] = int32(n)
		}
	}
	s.link(nodes)
	return s
}

// child returns node's child by b, or 0 for none.
func (s *Set) child(node int32, b byte) int32 {
	if node == 0 {
		return s.root[b]
	}
	lo, hi := s.first[node], s.first[node+1]
	for i := lo; i < hi; i++ { // most nodes have one child
		if s.label[i] == b {
			return s.next[i]
		}
	}
	return 0
}

// step moves from node on byte b, following fail links where node has no
// such child.
func (s *Set) step(node int32, b byte) int32 {
	for {
		if c := s.child(node, b); c != 0 {
			return c
		}
		if node == 0 {
			return 0
		}
		node = s.fail[node]
	}
}

// link computes the fail and dictionary links breadth first, so a node's
// links are set before its children's.
func (s *Set) link(nodes int) {
	s.fail, s.dict = make([]int32, nodes), make([]int32, nodes)
	queue := make([]int32, 0, nodes)
	queue = append(queue, s.next[s.first[0]:s.first[1]]...) // depth 1: fail and dict are the root
	for q := 0; q < len(queue); q++ {
		n := queue[q]
		for e := s.first[n]; e < s.first[n+1]; e++ {
			c := s.next[e]
			f := s.step(s.fail[n], s.label[e])
			s.fail[c] = f
			if s.terminal[f] {
				s.dict[c] = f
			} else {
				s.dict[c] = s.dict[f]
			}
			queue = append(queue, c)
		}
	}
}

// Found reports, for each string given to NewSet, whether it occurs
// in text. The empty string occurs in every text.
func (s *Set) Found(text string) []bool {
	seen := make([]bool, len(s.fail)) // nodes whose dictionary chain is marked
	seen[0] = true
	node := int32(0)
	for i := 0; i < len(text); i++ {
		node = s.step(node, text[i])
		// A chain is walked only up to a node already marked, so all the
		// walks together visit each node once: the scan stays linear.
		for n := node; !seen[n]; n = s.dict[n] {
			seen[n] = true
		}
	}
	out := make([]bool, len(s.endOf))
	for i, n := range s.endOf {
		out[i] = seen[n]
	}
	return out
}
