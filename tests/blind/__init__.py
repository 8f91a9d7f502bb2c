"""Tests of fairdeal.blind: the group, the proofs, ElGamal, the shuffle proof."""
