"""Authenticity: who published the manifest? A signature over the manifest's bytes, checked
offline against trust the user supplies (an ``allowed_signers`` file, a minisign public key,
an OpenPGP keyring). One module per signature format behind :mod:`.interface`, listed in
:mod:`.registry`; the stage's judge is :mod:`verifier.judge.authenticity`.
"""
