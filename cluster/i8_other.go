//go:build !amd64

package cluster

const useAVX2 = false

// dotsI8 writes q·x_r into out for the len(out) rows of x.
func dotsI8(q, x []int8, out []int32) { dotsI8Go(q, x, out) }

func prefetch(p *byte, n int) {}

// dotsU4 writes Σ q_i·u_i of each row of x into out (len(out) rows).
func dotsU4(q []int8, x []byte, out []int32) { dotsU4Go(q, x, out) }

// dotsU2 writes Σ q_i·u_i of each row of x into out (len(out) rows).
func dotsU2(q []int8, x []byte, out []int32) { dotsU2Go(q, x, out) }
