"""Reference values for internal/stats tests, computed from the definitions
with nothing but the Python standard library (no R on the build machine).

Exact signed-rank values enumerate all 2^n sign vectors; the normal
approximation scans every Walsh-average step of R's wilcox.test statistic
(R finds the same points with uniroot to 1e-4); binomial values sum exact
probabilities. Run: python3 reference.py
"""
import itertools, math
from fractions import Fraction
from statistics import NormalDist

def walsh(x):
    n = len(x)
    return sorted((x[i] + x[j]) / 2 for i in range(n) for j in range(i, n))

def null_dist(n):
    counts = {}
    for signs in itertools.product([0, 1], repeat=n):
        v = sum(r + 1 for r, s in enumerate(signs) if s)
        counts[v] = counts.get(v, 0) + 1
    return counts

def psignrank(q, n, c):
    return Fraction(sum(k for v, k in c.items() if v <= q), 2 ** n)

def exact_ci(x, conf):
    n = len(x); c = null_dist(n); alpha = 1 - conf
    qu = 0
    while psignrank(qu, n, c) < Fraction(alpha / 2).limit_denominator(10**12):
        qu += 1
    if qu == 0: qu = 1
    w = walsh(x); N = len(w)
    achieved = 1 - 2 * psignrank(qu - 1, n, c)
    return w[qu - 1], w[N - qu], float(achieved)

def exact_p(x, mu):
    d = [v - mu for v in x]; n = len(d); c = null_dist(n)
    order = sorted(range(n), key=lambda i: abs(d[i]))
    r = [0] * n
    for rank, i in enumerate(order): r[i] = rank + 1
    v = sum(r[i] for i in range(n) if d[i] > 0)
    lower = psignrank(v, n, c); upper = 1 - psignrank(v - 1, n, c)
    return v, float(min(1, 2 * min(lower, upper)))

def avg_ranks(a):
    idx = sorted(range(len(a)), key=lambda i: abs(a[i]))
    r = [0.0] * len(a); ties = 0.0; i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and abs(a[idx[j + 1]]) == abs(a[idx[i]]): j += 1
        for k in range(i, j + 1): r[idx[k]] = (i + j) / 2 + 1
        t = j - i + 1; ties += t ** 3 - t; i = j + 1
    return r, ties

def z_of(x, d):
    xd = [v - d for v in x if v - d != 0]; n = len(xd)
    r, ties = avg_ranks(xd)
    zd = sum(r[i] for i in range(n) if xd[i] > 0) - n * (n + 1) / 4
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - ties / 48)
    s = (zd > 0) - (zd < 0)
    return (zd - s * 0.5) / sigma

def normal_ci(x, conf):
    zq = NormalDist().inv_cdf(1 - (1 - conf) / 2)
    w = sorted(set(walsh(x)))
    def right(k):
        return z_of(x, (w[k] + w[k + 1]) / 2) if k + 1 < len(w) else z_of(x, w[k] + max(1, abs(w[k])))
    lo = next((w[k] for k in range(len(w)) if right(k) <= zq), w[-1])
    hi = next((w[k] for k in range(len(w)) if right(k) < -zq), w[-1])
    return lo, hi

def normal_p(x, mu):
    z = z_of(x, mu)
    return min(1, 2 * min(NormalDist().cdf(z), 1 - NormalDist().cdf(z)))

def dbinom(x, n, p):
    return math.comb(n, x) * p ** x * (1 - p) ** (n - x)

def binom_test(x, n, p):
    d = dbinom(x, n, p); m = n * p; rel = 1 + 1e-7
    if x == m: return 1.0
    if x < m:
        y = sum(1 for i in range(math.ceil(m), n + 1) if dbinom(i, n, p) <= d * rel)
        return min(1, sum(dbinom(i, n, p) for i in range(0, x + 1)) + sum(dbinom(i, n, p) for i in range(n - y + 1, n + 1)))
    y = sum(1 for i in range(0, math.floor(m) + 1) if dbinom(i, n, p) <= d * rel)
    return min(1, sum(dbinom(i, n, p) for i in range(0, y)) + sum(dbinom(i, n, p) for i in range(x, n + 1)))

def hl(x):
    w = walsh(x); N = len(w)
    return w[N // 2] if N % 2 else (w[N // 2 - 1] + w[N // 2]) / 2

if __name__ == "__main__":
    # Hollander & Wolfe (1973) p. 29, the depression data of R's ?wilcox.test.
    x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    d = [a - b for a, b in zip(x, y)]
    print("depression d", d)
    print("  V, p two-sided", exact_p(d, 0))
    print("  exact 95% CI", exact_ci(d, 0.95), "HL", hl(d))
    print("  exact 90% CI", exact_ci(d, 0.90))
    six = [0.1, -0.25, 0.4, 0.55, 0.7, 0.82]
    print("six 95%", exact_ci(six, 0.95), "p", exact_p(six, 0))
    four = [-0.05, 0.08, -0.65, -0.3]
    print("four 95%", exact_ci(four, 0.95))
    ties = [0.0, 0.0, -0.28768207245178085, 0.4, -0.28768207245178085, -0.5, -0.1, -0.2, 0.3, -0.6, -0.7, -0.28768207245178085]
    print("ties normal 95%", normal_ci(ties, 0.95), "p", normal_p(ties, 0), "HL", hl(ties))
    big = [math.sin(i * 1.7) * 0.4 - 0.2 + (i % 7) * 0.013 for i in range(60)]
    print("big normal 95%", normal_ci(big, 0.95), "p mu=-0.1", normal_p(big, -0.1), "HL", hl(big))
    print("binom 682/925 p=3/4", binom_test(682, 925, 0.75))
    print("mcnemar b=1 c=9", binom_test(1, 10, 0.5))
    print("mcnemar b=7 c=2", binom_test(7, 9, 0.5))
    print("binom 3/20 p=0.3", binom_test(3, 20, 0.3))
    # 60 tool-call scenarios at a 20% threshold, 22 of them exactly on it
    # (5 → 4, 10 → 8): R's wilcox.test(x, mu = log(0.8)) drops them as
    # zeros when x - mu is exactly 0.
    def pairs60():
        out = []
        for i in range(60):
            k = i % 6
            if k == 0: b, t = 5, 4
            elif k == 1: b, t = 10, 8
            elif k == 2: b, t = 4, 4
            elif k == 3: b, t = 5, 3
            elif k == 4: b, t = 6, 5 + (i % 4) // 2
            else: b, t = 3 + (i % 3), 2 + (i % 5)
            out.append((b, t))
        return out
    e60 = [0.0 if Fraction(t) * 100 == Fraction(b) * 80 else math.log(t * 100) - math.log(b * 80) for b, t in pairs60()]
    print("on-threshold 60: zeros", e60.count(0.0), "p", normal_p(e60, 0))
