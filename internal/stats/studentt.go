package stats

import "math"

// PT is the cumulative distribution function of Student's t with df
// degrees of freedom (df > 0, not necessarily whole; +Inf is the normal):
// P(T <= t) = 1 − I_x(df/2, 1/2)/2 for t > 0 with x = df/(df + t²), the
// regularised incomplete beta function I computed by its continued
// fraction (Lentz's method).
func PT(t, df float64) float64 {
	switch {
	case math.IsNaN(t) || math.IsNaN(df) || df <= 0:
		return math.NaN()
	case math.IsInf(df, 1):
		return pnorm(t)
	case math.IsInf(t, 1):
		return 1
	case math.IsInf(t, -1):
		return 0
	}
	// P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2); near t = 0 that x is
	// within rounding of 1, so there the complement is computed from
	// t²/(df + t²) instead.
	var tail float64
	if t*t < df {
		tail = 0.5 * (1 - betaInc(0.5, df/2, t*t/(df+t*t)))
	} else {
		tail = 0.5 * betaInc(df/2, 0.5, df/(df+t*t))
	}
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// QT is the quantile of Student's t: the t with PT(t, df) = p, found by
// bisection on PT to machine precision.
func QT(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1 || math.IsNaN(df) || df <= 0:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case math.IsInf(df, 1):
		return qnorm(p)
	}
	lo, hi := -1.0, 1.0
	for PT(lo, df) > p {
		lo *= 2
	}
	for PT(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-13*math.Max(1, math.Abs(lo)); i++ {
		mid := (lo + hi) / 2
		if PT(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// betaInc is the regularised incomplete beta function I_x(a, b).
func betaInc(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	// The continued fraction converges fast for x < (a+1)/(a+b+2); use
	// the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) above it.
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of the incomplete beta
// function by the modified Lentz method.
func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}
