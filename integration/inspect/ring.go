package inspect

// ring keeps the newest max values pushed, oldest first.
type ring[T any] struct {
	buf   []T
	start int // index of the oldest value once buf is full
	max   int
}

func newRing[T any](max int) ring[T] { return ring[T]{max: max} }

// push appends v, dropping the oldest value when the ring is full; it
// reports the dropped value.
func (r *ring[T]) push(v T) (dropped T, full bool) {
	if len(r.buf) < r.max {
		r.buf = append(r.buf, v)
		return dropped, false
	}
	dropped = r.buf[r.start]
	r.buf[r.start] = v
	r.start = (r.start + 1) % r.max
	return dropped, true
}

func (r *ring[T]) len() int { return len(r.buf) }

// at is the i-th oldest value.
func (r *ring[T]) at(i int) *T { return &r.buf[(r.start+i)%len(r.buf)] }

// slice copies the values, oldest first.
func (r *ring[T]) slice() []T {
	out := make([]T, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}
