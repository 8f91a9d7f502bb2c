"""Dealer-blind dealing's cryptography (SPEC 15, protocol version 3, not used by any table
yet): the ristretto255 group (``group``, with the ``sodium`` and ``ristretto_pure`` backends),
proofs of knowledge and of equal logarithms (``proofs``), and ElGamal over a round's joint key
with card points and decryption shares (``elgamal``). Import the modules; this package's
namespace stays empty so that importing it loads nothing."""
