//go:build !amd64

package cluster

const useAVX2 = false

// dotsI8 writes q·x_r into out for the len(out) rows of x.
func dotsI8(q, x []int8, out []int32) { dotsI8Go(q, x, out) }

func prefetch(p *int8, n int) {}
