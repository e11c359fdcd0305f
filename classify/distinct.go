package classify

import (
	"hash/maphash"
	"math"
	"math/bits"
)

// exactLimit is how many distinct values a distinct counter keeps exactly
// (a 64-bit hash each) before it switches to an estimate of fixed size.
const exactLimit = 1 << 16

// hllPrecision gives 2^14 registers: 16 KiB, about 0.8% standard error.
const hllPrecision = 14

var hashSeed = maphash.MakeSeed()

// distinct counts distinct strings (bodies, --key values) in bounded
// memory: exactly up to exactLimit values, then by HyperLogLog estimate.
type distinct struct {
	n     int
	exact map[uint64]struct{}
	regs  []uint8 // HyperLogLog registers once past exactLimit
}

func (d *distinct) add(s string) { d.addHash(maphash.String(hashSeed, s)) }

func (d *distinct) addBytes(b []byte) { d.addHash(maphash.Bytes(hashSeed, b)) }

func (d *distinct) addHash(h uint64) {
	d.n++
	if d.regs != nil {
		d.hll(h)
		return
	}
	if d.exact == nil {
		d.exact = make(map[uint64]struct{})
	}
	d.exact[h] = struct{}{}
	if len(d.exact) > exactLimit {
		d.regs = make([]uint8, 1<<hllPrecision)
		for k := range d.exact {
			d.hll(k)
		}
		d.exact = nil
	}
}

func (d *distinct) hll(h uint64) {
	idx := h >> (64 - hllPrecision)
	rank := uint8(bits.LeadingZeros64(h<<hllPrecision|1<<(hllPrecision-1)) + 1)
	if rank > d.regs[idx] {
		d.regs[idx] = rank
	}
}

// count returns the number of distinct values and whether it is exact.
func (d *distinct) count() (n int, exact bool) {
	if d.regs == nil {
		return len(d.exact), true
	}
	m := float64(len(d.regs))
	sum, zeros := 0.0, 0
	for _, r := range d.regs {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	est := 0.7213 / (1 + 1.079/m) * m * m / sum
	if est <= 2.5*m && zeros > 0 {
		est = m * math.Log(m/float64(zeros))
	}
	return min(int(est+0.5), d.n), false
}
