#!/usr/bin/env python3
"""Seals text to an actiond intake public key with pyhpke, an HPKE implementation (RFC 9180)
independent of actiond's: the test vector in docs/events.md and Tests/actiondTests/IntakeVectorTests.swift.

    pip install pyhpke==0.6.2
    python3 Scripts/intake-test-vector.py PUBLIC_KEY_BASE64URL USER_ID EVENT_ID FIELD TEXT

Prints the value of FIELD_sealed: hpke1.<kid>.<enc>.<ciphertext>, each part base64url without
padding, kid the first 8 bytes of SHA-256 of the raw public key, in hex.
"""
import base64
import hashlib
import sys

from pyhpke import AEADId, CipherSuite, KDFId, KEMId


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main() -> None:
    public_key, user_id, event_id, field, text = sys.argv[1:6]
    raw = unb64url(public_key)
    suite = CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.CHACHA20_POLY1305)
    recipient = suite.kem.deserialize_public_key(raw)
    enc, sender = suite.create_sender_context(recipient, info=b"actiond intake v1")
    aad = "\0".join([user_id, event_id, field]).encode()
    ciphertext = sender.seal(text.encode(), aad=aad)
    kid = hashlib.sha256(raw).digest()[:8].hex()
    print(f"hpke1.{kid}.{b64url(enc)}.{b64url(ciphertext)}")


if __name__ == "__main__":
    main()
