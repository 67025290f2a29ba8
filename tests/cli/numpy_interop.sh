#!/usr/bin/env bash
# Interoperability with NumPy both ways (skipped when Debian's python3-numpy is absent):
# NumPy reads our streams with repeated np.load; we read what repeated np.save wrote.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" -c 'import numpy' 2>/dev/null || { echo "python3-numpy not installed: skipped"; exit 77; }

# Ours -> NumPy: an attention output and its weights, then a text-converted id record.
tfm-posenc -n 5 -d 8 | tfm-attend --heads 2 --weights-out > ours.npy
printf '# shape: 4\n3 1 4 1\n' | tfm-cat >> ours.npy
if "$PY" - ours.npy <<'PY'
import sys
import numpy as np
with open(sys.argv[1], "rb") as f:
    y = np.load(f)
    w = np.load(f)
    ids = np.load(f)
    assert f.read() == b"", "trailing bytes"
assert y.shape == (5, 8) and y.dtype == np.float32, (y.shape, y.dtype)
assert w.shape == (2, 5, 5) and np.allclose(w.sum(-1), 1, atol=1e-6)
assert ids.dtype == np.int64 and ids.tolist() == [3, 1, 4, 1]
# Without projections, attention over PE rows: recompute it in NumPy.
pos = np.arange(5)[:, None]
i = np.arange(4)[None, :]
pe = np.zeros((5, 8))
pe[:, 0::2] = np.sin(pos / 10000 ** (2 * i / 8))
pe[:, 1::2] = np.cos(pos / 10000 ** (2 * i / 8))
for h in range(2):
    x = pe[:, 4 * h: 4 * h + 4]
    s = x @ x.T / 2.0
    p = np.exp(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    assert np.allclose(w[h], p, atol=1e-6), h
    assert np.allclose(y[:, 4 * h: 4 * h + 4], p @ x, atol=1e-6), h
PY
then ok; else fail "NumPy could not read our stream"; fi

# NumPy -> ours: float64, int32, Fortran order, big-endian, rank 3, empty, via repeated np.save.
"$PY" - theirs.npy expected.txt <<'PY'
import sys
import numpy as np
arrays = [
    np.arange(12, dtype=np.float64).reshape(3, 4) / 8,
    np.array([7, -1, 42], dtype=np.int32),
    np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
    np.arange(4, dtype=">f4"),
    np.arange(24, dtype=np.float32).reshape(2, 3, 4),
    np.zeros((0, 5), dtype=np.float32),
    np.array(2.5, dtype=np.float32),
]
with open(sys.argv[1], "wb") as f:
    for a in arrays:
        np.save(f, a)
with open(sys.argv[2], "w") as f:
    for a in arrays:
        a = np.require(a, requirements="C")
        if a.ndim != 2 or a.size == 0:
            f.write("# shape:" + "".join(" %d" % d for d in a.shape) + "\n")
        flat = a.reshape(-1, a.shape[-1]) if a.ndim else a.reshape(1, 1)
        for row in flat:
            f.write(" ".join(repr(int(v)) if a.dtype.kind == "i" else repr(float(np.float32(v))).removesuffix(".0") for v in row) + "\n")
        f.write("\n")
PY
expect_status 0 "read NumPy's stream" -- tfm-cat -t theirs.npy
diff out expected.txt > diff.txt && ok || fail "NumPy's arrays read back differently: $(head -20 diff.txt)"
finish
