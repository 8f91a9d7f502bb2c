"""The independent check: fairdeal's shuffle proof reproduces numbers worked by hand elsewhere.

Source: the CHVote protocol proof of concept (République et canton de Genève,
github.com/republique-et-canton-de-geneve/chvote-protocol-poc), which implements the same
authors' algorithms (CHVote specification, Haenni et al.). Its test document
``src/test/groovy/ch/ge/ve/protopoc/service/algorithm/MixingAuthorityTests.md`` works
genShuffle, genPermutationCommitment, genCommitmentChain, genShuffleProof and
checkShuffleProof by hand in Z_11^* (q = 5, g = 3, h = 4), with every random draw picked by
hand; ``MixingAuthorityAlgorithmsTest.groovy`` (commit 07f3423, 2016-12-13) asserts the same
numbers against its Java code, and adds genPermutation's and genReEncryption's tables.

What is stubbed, as there: the generators (h = 4, h_1..h_3 = 4, 3, 5), the challenges
(u = 2, 4, 3 and c = 4) and every random draw (fed in the order fairdeal draws them, which is
the paper's and the worked document's order). Nothing else: every group operation and every
response below is fairdeal's own computation. CHVote's hashing (RecHash) is not reproduced:
fairdeal hashes by SPEC 15.11.3 instead, which test_shuffle_vectors.py pins.

Two slips of the document, read against the groovy test of 07f3423: its genShuffle narrative
starts from psy = (0, 1, 2), but its result, used below, is that of psy = (1, 0, 2); and its
checkShuffleProof input swaps b'_1 and b'_2 (([4, 4], [1, 3]) for ([4, 3], [1, 4])), which its
own arithmetic cannot see because s'_1 = s'_2 there (with hashed challenges it would).
"""

import re
from collections.abc import Sequence

import pytest

from fairdeal.blind import shuffle as tw
from tests.blind.zp_group import TINY

KEY = 3  # pk
E = ((5, 1), (3, 4), (5, 9))  # bold_e
E_PRIME = ((1, 5), (4, 3), (1, 4))  # bold_e'
PSI = (1, 0, 2)  # psy, 0-based as there
R_PRIME = (1, 4, 2)  # bold_r', by input


class Script:
    """A random source that returns the values worked by hand, in order."""

    def __init__(self, values: Sequence[int]) -> None:
        self.values = list(values)

    def below(self, bound: int) -> int:
        value = self.values.pop(0)
        assert 0 <= value < bound
        return value


class HandOracle:
    """The document's "simulated calls": GetGenerators, GetChallenges, GetNIZKPChallenge."""

    def generators(self, group: object, n: int) -> tuple[int, tuple[int, ...]]:
        assert n == 3
        return 4, (4, 3, 5)

    def permutation_challenges(
        self, statement: tw.Statement[int], c: Sequence[int]
    ) -> tuple[int, ...]:
        assert statement.inputs == E and tuple(c) == (9, 3, 3)
        return 2, 4, 3

    def challenge(
        self,
        statement: tw.Statement[int],
        c: Sequence[int],
        c_hat: Sequence[int],
        t: tw.Commitments[int],
    ) -> int:
        return 4


STATEMENT = tw.Statement(TINY, KEY, E, E_PRIME, b"")


@pytest.mark.parametrize(
    ("n", "draws", "psi"),
    [
        (1, [0], (0,)),
        (2, [1, 1], (1, 0)),
        (3, [1, 1, 2], (1, 0, 2)),
        (4, [0, 3, 2, 3], (0, 3, 2, 1)),
    ],
    ids=["one", "two", "three", "four"],
)
def test_gen_permutation_follows_knuth_as_chvote(n: int, draws: list[int], psi: tuple) -> None:
    # CHVote draws k in [i, N-1]; fairdeal's source draws k - i below N - i.
    assert tw.gen_permutation(n, Script([k - i for i, k in enumerate(draws)])) == psi


@pytest.mark.parametrize(
    ("ciphertext", "r", "expected"),
    [((5, 9), 6, (4, 5)), ((3, 1), 4, (1, 4))],
)
def test_gen_re_encryption(ciphertext: tuple, r: int, expected: tuple) -> None:
    assert tw.re_encrypt(TINY, KEY, ciphertext, r) == expected


def test_gen_shuffle() -> None:
    # psy from k = 1, 1, 2; then r' = 1, 4, 2 (one per input, in input order)
    outputs, witness = tw.shuffle(TINY, KEY, E, Script([1, 0, 0, 1, 4, 2]))
    assert outputs == E_PRIME
    assert witness == tw.ShuffleWitness(PSI, R_PRIME)


def test_gen_permutation_commitment() -> None:
    # drawn in the order of i: r_1 = 2 (j_0 = 1), r_0 = 1, r_2 = 3
    c, r = tw.permutation_commitment(TINY, PSI, (4, 3, 5), Script([2, 1, 3]))
    assert (c, r) == ((9, 3, 3), (1, 2, 3))


@pytest.mark.parametrize(
    ("u_prime", "draws", "chain"),
    [
        ((4, 2, 3), (4, 0, 1), (1, 1, 3)),  # MixingAuthorityTests.md
        ((0, 2, 3), (4, 0, 1), (4, 5, 1)),  # MixingAuthorityAlgorithmsTest.groovy, HEAD
    ],
)
def test_gen_commitment_chain(u_prime: tuple, draws: tuple, chain: tuple) -> None:
    c_hat, r_hat = tw.commitment_chain(TINY, 4, u_prime, Script(draws))
    assert (c_hat, r_hat) == (chain, draws)


HAND_PROOF = tw.ShuffleProof(
    c=(9, 3, 3),
    c_hat=(1, 1, 3),
    t=tw.Commitments(t1=3, t2=9, t3=5, t41=3, t42=4, t_hat=(4, 4, 3)),
    s1=0,
    s2=2,
    s3=4,
    s4=0,
    s_hat=(3, 4, 0),
    s_prime=(4, 3, 3),
)


def test_gen_shuffle_proof_reproduces_every_value() -> None:
    draws = [
        *(2, 1, 3),  # permutation commitment: r_1, r_0, r_2
        *(4, 0, 1),  # commitment chain: r̂_1, r̂_2, r̂_3
        *(1, 2, 3, 4),  # ω_1 … ω_4
        *(2, 3, 4, 0, 1, 1),  # (ω̂_i, ω'_i) for i = 1, 2, 3
    ]
    script = Script(draws)
    proof = tw.prove(STATEMENT, tw.ShuffleWitness(PSI, R_PRIME), script, HandOracle())
    assert proof == HAND_PROOF
    assert script.values == []


def test_check_shuffle_proof_accepts_the_hand_worked_proof() -> None:
    tw.verify(STATEMENT, HAND_PROOF, HandOracle())


@pytest.mark.parametrize(
    ("change", "fails_at"),
    [
        ({"s1": 1}, "t1"),
        ({"s2": 3}, "t2"),
        ({"s3": 0}, "t3"),
        ({"s4": 1}, "t41"),
        ({"s_hat": (3, 4, 1)}, "t_hat[2]"),
    ],
)
def test_check_shuffle_proof_names_the_first_equation_that_fails(
    change: dict, fails_at: str
) -> None:
    proof = tw.ShuffleProof(**{**HAND_PROOF.__dict__, **change})
    with pytest.raises(tw.InvalidShuffleProofError, match=re.escape(f"proof's {fails_at} ")):
        tw.verify(STATEMENT, proof, HandOracle())
