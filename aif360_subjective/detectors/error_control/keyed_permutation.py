"""Keyed permutations: the image of each row under permutation ``b`` from ``(seed, b, row)`` alone.

A permutation test over a table split into partitions cannot draw its permutations the usual way (a shuffle
moves rows across partitions). For a binary or categorical outcome it does not need to move rows: a
permutation of the rows' classes is fixed by the class counts and a permutation ``pi_b`` of the positions
``[0, N)``. With the classes in a canonical order and ``off_c`` the rows of the classes before ``c``, the row
at position ``i`` takes class ``c`` exactly when ``pi_b(i)`` falls in ``[off_c, off_c + n_c)``. For a ``pi_b``
drawn uniformly from the permutations of ``[0, N)``, this labelling is drawn uniformly from the arrangements of
the class counts over the rows: the permutation distribution of the classes, exactly.

:func:`keyed_permutation` evaluates a **keyed pseudorandom bijection** of ``[0, N)`` at any positions without
touching the others, so each partition computes its own rows' permuted classes (:func:`permuted_classes`)
and the permuted counts of a subgroup are sums over partitions, like the observed ones:

* a Feistel network on ``k = ceil(log2 N)`` bits, halves of ``floor(k/2)`` and ``ceil(k/2)`` bits (the
  maximally balanced split: the walk below then leaves the domain less than half of the time), alternately
  adding a keyed round function of one half into the other by exclusive or; each round is invertible, so the
  network is a permutation of ``[0, 2^k)`` whatever the round functions are (Luby and Rackoff);
* **cycle-walking** (Black and Rogaway): a position whose image lands at or above ``N`` is encrypted again
  until it lands below ``N``; on a permutation of ``[0, 2^k)`` this gives a permutation of ``[0, N)``;
* round ``r`` of permutation ``b`` is keyed by a SplitMix64 hash of ``(seed, b, r)``, and its round function is
  a finaliser with full avalanche (Wellons' ``lowbias32`` on 32-bit words up to 2^32 rows, SplitMix64's above)
  of the half xor the key, cut to the other half's width;
* small domains get more rounds (:func:`rounds_for`): on 3 bits 24, where 6 left some permutations of 5 rows
  eight times as frequent as others.

The bijection is exact (every ``pi_b`` is a permutation of ``[0, N)``, whatever the keys; tested for N from 1
to 4,097, odd, powers of two and one more). Its randomness is pseudorandom, as a seeded generator's shuffle is:
the keyed networks are a tiny subset of the ``N!`` permutations. The tests check the laws a permutation test
relies on by chi-square: every permutation of 3 to 6 rows equally frequent, each image uniform, pairs of
images uniform, and the class counts of a block of rows hypergeometric
(``tests/detectors/test_keyed_permutation.py``). A permutation test using them is exact in the sense a
seeded shuffle's is.

References:
    M. Luby and C. Rackoff, "How to construct pseudorandom permutations from pseudorandom functions", SIAM
    Journal on Computing 17(2), 1988.
    J. Black and P. Rogaway, "Ciphers with arbitrary finite domains", CT-RSA 2002, LNCS 2271 (cycle-walking).
    M. Bellare, P. Rogaway and T. Spies, "The FFX mode of operation for format-preserving encryption", 2010
    (maximally balanced Feistel on a bit string of any length).
    G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014
    (SplitMix64).
    C. Wellons, "Hash Prospector" (2018, github.com/skeeto/hash-prospector): the ``lowbias32`` integer hash.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["ROUNDS", "derive_seed", "keyed_permutation", "mix64", "permuted_classes", "rounds_for", "seed_of"]

#: Feistel rounds on domains of 9 bits or more (:func:`rounds_for`). Four make a strong pseudorandom permutation
#: from pseudorandom round functions (Luby and Rackoff); four more because ours are a fixed hash, keyed.
ROUNDS = 8
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
#: Row x permutation entries evaluated at a time: small enough that the network's arrays (about 6 of 4 or 8 bytes
#: each) can stay in the processor's cache between its three dozen passes over them, large enough that a Python
#: call per pass stays cheap. Measured in CPU seconds (``benchmarks/spark_scale.py --profile-partition``), 2**17
#: and the former 2**20 were within the noise of each other; the images are the same at any chunk.
_CHUNK = 2**17
_U64 = 2**64


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output function of ``x + gamma`` (a bijection of 64-bit words with full avalanche; Steele,
    Lea and Flood, OOPSLA 2014): the hash behind the keyed permutations and the Dask row keys."""
    with np.errstate(over="ignore"):
        z = x + _GAMMA
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        out: np.ndarray = z ^ (z >> np.uint64(31))
        return out


def _check_seed(seed: Any, name: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"{name} must be an int in [0, 2**64), got {type(seed).__name__} {seed!r}")
    if not 0 <= int(seed) < _U64:
        raise ValueError(f"{name} must be an int in [0, 2**64), got {seed}")
    return int(seed)


def derive_seed(seed: int, *labels: int) -> int:
    """A seed for an independent stream labelled ``labels`` under ``seed`` (e.g. one per permutation scheme).

    Raises:
        TypeError, ValueError: ``seed`` or a label is not an int in [0, 2**64).
    """
    h = np.array([_check_seed(seed)], dtype=np.uint64)
    for j, lab in enumerate(labels):
        h = mix64(mix64(h ^ np.uint64(_check_seed(lab, f"labels[{j}]"))) + np.uint64(j + 1))
    return int(h[0])


def seed_of(random_state: Any) -> int:
    """The 64-bit key of a ``random_state``: an int as it is, a numpy Generator's next 64 bits, None fresh entropy.

    Raises:
        TypeError: anything else.
    """
    if random_state is None or isinstance(random_state, np.random.Generator):
        rng = np.random.default_rng(random_state)
        return int(rng.integers(0, _U64, dtype=np.uint64))
    return _check_seed(random_state, "random_state")


def _round_keys(seed: int, b: np.ndarray, rounds: int) -> np.ndarray:
    """(rounds, len(b)) uint64 keys of the rounds of permutations ``b`` under ``seed``."""
    base = mix64(np.array([seed], dtype=np.uint64))
    kb = mix64(base ^ np.asarray(b, dtype=np.uint64))
    return np.stack([mix64(kb ^ mix64(np.array([r], dtype=np.uint64))) for r in range(rounds)])


def rounds_for(n: int) -> int:
    """Feistel rounds for the domain ``[0, n)``: :data:`ROUNDS` (8), more for small domains (``ceil(72 / k)`` on
    ``k`` bits; 24 on 3 bits), whose round functions map a few bits to a few bits and mix less per round.

    On 3 bits (n = 5 to 8) 24 rounds bring the frequencies of all ``n!`` permutations to uniform (chi-square,
    ``tests/detectors/test_keyed_permutation.py``); 6 rounds left some permutations 8 times as frequent as others.
    """
    k = max(1, int(n - 1).bit_length())
    return max(ROUNDS, -(-72 // k))


class _Feistel:
    """The maximally balanced Feistel network on ``k`` bits with cycle-walking down to ``[0, n)``.

    Up to 32 bits (4.29 billion rows) the halves and the round function are 32-bit words (Wellons' ``lowbias32``
    finaliser, a bijection with full avalanche; half the memory traffic of 64-bit words, twice the speed), above
    that 64-bit words and SplitMix64's finaliser.
    """

    def __init__(self, n: int, rounds: int):
        self.n = n
        self.k = max(0, int(n - 1).bit_length())  # 2^k >= n
        self.a = self.k // 2  # left (high) half
        self.c = self.k - self.a  # right (low) half
        self.rounds = rounds
        self.word = np.uint32 if self.k <= 32 else np.uint64

    def keys(self, keys64: np.ndarray) -> np.ndarray:
        """The round keys in the network's word (the top 32 bits of the 64-bit keys for 32-bit words)."""
        return (keys64 >> np.uint64(32)).astype(np.uint32) if self.word is np.uint32 else keys64

    def _hash(self, z: np.ndarray, w: np.ndarray, width: int) -> None:
        """``z`` replaced, in place, by the finaliser of the network's word (``w``: scratch), of which only the top
        ``width`` bits are read."""
        if self.word is np.uint32:
            for shift, mult in ((16, 0x7FEB352D), (15, 0x846CA68B)):
                np.right_shift(z, np.uint32(shift), out=w)
                z ^= w
                z *= np.uint32(mult)
            if width > 16:  # lowbias32's last step, z ^ (z >> 16), leaves the top 16 bits as they are
                np.right_shift(z, np.uint32(16), out=w)
                z ^= w
            return
        z += _GAMMA
        for shift64, mult64 in ((30, _M1), (27, _M2)):
            np.right_shift(z, np.uint64(shift64), out=w)
            z ^= w
            z *= mult64
        np.right_shift(z, np.uint64(31), out=w)
        z ^= w

    def _encrypt(self, x: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """``x`` (the network's word, any shape) under the round ``keys`` (rounds, ...) broadcast against ``x``; in
        place, with two scratch arrays (a pass over the entries per operation, no other temporaries)."""
        word = self.word
        bits = 32 if word is np.uint32 else 64
        c = word(self.c)
        left = x >> c
        right = x & word((1 << self.c) - 1)
        z = np.empty_like(x)
        w = np.empty_like(x)
        with np.errstate(over="ignore"):
            for r in range(self.rounds):
                # even rounds: the left half takes a function of the right; odd rounds the converse. Each round
                # adds (xor) into one half a function of the other, so doing it again undoes it: a bijection.
                src, dst, width = (right, left, self.a) if r % 2 == 0 else (left, right, self.c)
                if width == 0:
                    continue
                np.bitwise_xor(src, keys[r], out=z)
                self._hash(z, w, width)
                z >>= word(bits - width)  # the finaliser's top ``width`` bits
                dst ^= z
        left <<= c
        left |= right
        return left

    def __call__(self, x: np.ndarray, keys64: np.ndarray) -> np.ndarray:
        """Images of the (rows, b) positions ``x`` under the permutations keyed by ``keys64`` (rounds, b)."""
        if self.n <= 1:
            return np.zeros(x.shape, dtype=self.word)
        keys = self.keys(keys64)
        y = self._encrypt(x.astype(self.word), keys[:, None, :])
        n = self.word(self.n) if self.n < 2**32 or self.word is np.uint64 else None
        rows, cols = np.nonzero(y >= n) if n is not None else (np.zeros(0, np.intp), np.zeros(0, np.intp))
        while len(rows):  # cycle-walking: each step leaves [0, n) with probability < 1/2
            z = self._encrypt(y[rows, cols], keys[:, cols])
            y[rows, cols] = z
            back = z < n
            rows, cols = rows[~back], cols[~back]
        return y


def _check_positions(positions: Any, n: int) -> np.ndarray:
    pos = np.asarray(positions)
    if pos.ndim != 1:
        raise ValueError(f"positions must be one-dimensional, got shape {pos.shape}")
    if pos.size and not np.issubdtype(pos.dtype, np.integer):
        raise TypeError(f"positions must be integers, got dtype {pos.dtype}")
    if pos.size and (pos.min() < 0 or pos.max() >= n):
        bad = pos[(pos < 0) | (pos >= n)][0]
        raise ValueError(f"positions must lie in [0, {n}), got {int(bad)}")
    return pos.astype(np.uint64)


def _b_range(b_start: Any, b_stop: Any) -> np.ndarray:
    for name, v in (("b_start", b_start), ("b_stop", b_stop)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise TypeError(f"{name} must be an int, got {type(v).__name__} {v!r}")
    if not 0 <= int(b_start) <= int(b_stop):
        raise ValueError(f"need 0 <= b_start <= b_stop, got b_start={b_start}, b_stop={b_stop}")
    return np.arange(int(b_start), int(b_stop), dtype=np.uint64)


def keyed_permutation(seed: int, b_start: int, b_stop: int, positions: Any, n: int,
                      rounds: int | None = None) -> np.ndarray:
    """``pi_b(i)`` for every position ``i`` of ``positions`` and permutation ``b`` in ``[b_start, b_stop)``.

    Each ``pi_b`` is a bijection of ``[0, n)`` that depends on ``(seed, b)`` only: the images of some positions
    are computed without the others (each partition of a table its own rows).

    Args:
        seed: the key, an int in [0, 2**64).
        b_start, b_stop: the permutations, ``b_start <= b < b_stop``.
        positions: (rows,) integer positions in ``[0, n)``.
        n: the domain size (>= 1).
        rounds: Feistel rounds (default :func:`rounds_for` ``n``).

    Returns:
        numpy.ndarray: (rows, b_stop - b_start) int64 images.

    Raises:
        TypeError, ValueError: a seed, range, size or position out of its domain.

    References:
        J. Black and P. Rogaway, "Ciphers with arbitrary finite domains", CT-RSA 2002.
    """
    seed = _check_seed(seed)
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    pos = _check_positions(positions, int(n))
    bs = _b_range(b_start, b_stop)
    out = np.empty((len(pos), len(bs)), dtype=np.int64)
    for s0, s1, y in _images(seed, bs, pos, int(n), rounds):
        out[s0:s1] = y
    return out


def _images(seed: int, bs: np.ndarray, pos: np.ndarray, n: int,
            rounds: int | None) -> Iterator[tuple[int, int, np.ndarray]]:
    """``(s0, s1, images)``: the images of ``pos[s0:s1]`` under permutations ``bs``, chunk by chunk of rows (the
    temporaries stay near :data:`_CHUNK` entries)."""
    if len(pos) == 0 or len(bs) == 0:
        return
    rounds = rounds_for(n) if rounds is None else int(rounds)
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    net = _Feistel(n, rounds)
    keys = _round_keys(seed, bs, rounds)
    step = max(1, _CHUNK // len(bs))
    for s0 in range(0, len(pos), step):
        s1 = min(len(pos), s0 + step)
        x = np.repeat(pos[s0:s1, None], len(bs), axis=1)
        yield s0, s1, net(x, keys)


def permuted_classes(seed: int, b_start: int, b_stop: int, positions: Any, class_counts: Any,
                     rounds: int | None = None) -> np.ndarray:
    """The classes of the rows at ``positions`` under permutations ``b_start`` to ``b_stop - 1`` of the rows' classes.

    The row at position ``i`` takes class ``c`` under permutation ``b`` when ``pi_b(i)``
    (:func:`keyed_permutation` on ``[0, N)``, ``N = sum(class_counts)``) falls in class ``c``'s range
    ``[off_c, off_c + n_c)``, the classes in the order of ``class_counts``. Every permutation then gives class
    ``c`` to exactly ``n_c`` of the ``N`` rows, and for a uniform ``pi_b`` every arrangement of the classes is
    equally likely: the permutation distribution. Which class a row had does not enter, only the counts.

    Args:
        seed: the key, an int in [0, 2**64) (:func:`derive_seed` for several independent schemes).
        b_start, b_stop: the permutations.
        positions: (rows,) the rows' global positions in ``[0, N)`` (a partition's rows: its offset plus
            ``0`` to ``len - 1``).
        class_counts: (classes,) non-negative integer counts of every class over all ``N`` rows.
        rounds: Feistel rounds (default :func:`rounds_for` ``N``).

    Returns:
        numpy.ndarray: (rows, b_stop - b_start) class codes (uint8 for up to 256 classes, else int64).

    Raises:
        TypeError, ValueError: counts that are not non-negative integers, no rows, positions out of range.
    """
    counts = np.asarray(class_counts)
    if counts.ndim != 1 or counts.size == 0:
        raise ValueError(f"class_counts must be a non-empty 1-d array of counts, got shape {counts.shape}")
    if not np.issubdtype(counts.dtype, np.integer):
        if not np.all(np.isfinite(counts)) or not np.all(counts == np.round(counts)):
            raise TypeError(f"class_counts must be integer counts, got {counts!r}")
        counts = counts.astype(np.int64)
    if (counts < 0).any():
        raise ValueError(f"class_counts must be non-negative, got {counts.tolist()}")
    n = int(counts.sum())
    if n < 1:
        raise ValueError("class_counts must count at least one row")
    seed = _check_seed(seed)
    pos = _check_positions(positions, n)
    bs = _b_range(b_start, b_stop)
    edges = np.cumsum(counts)[:-1].astype(np.uint64)
    out = np.empty((len(pos), len(bs)), dtype=np.uint8 if len(counts) <= 256 else np.int64)
    for s0, s1, y in _images(seed, bs, pos, n, rounds):
        if len(edges) == 1:  # two classes (the usual case): one comparison instead of a binary search
            out[s0:s1] = y >= edges[0]
        else:
            out[s0:s1] = np.searchsorted(edges, y, side="right")
    return out
