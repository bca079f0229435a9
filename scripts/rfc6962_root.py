#!/usr/bin/env python3
"""Prints the RFC 6962 Merkle tree root (standard base64) of a ledger export, read on stdin.

It is written from docs/chain.md alone, in another language than the ledger, as an auditor
would: leaf i is the 32 raw bytes of the hash of event i+1; leaf hash SHA-256(0x00 || leaf),
node hash SHA-256(0x01 || left || right); the tree of n leaves splits at the largest power
of two below n. With an argument N it prints the root of the first N events instead.
"""
import base64
import hashlib
import json
import sys


def root(leaves):
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + root(leaves[:k]) + root(leaves[k:])).digest()


def main():
    leaves = [bytes.fromhex(json.loads(line)["hash"]) for line in sys.stdin if line.strip()]
    if len(sys.argv) > 1:
        leaves = leaves[: int(sys.argv[1])]
    print(base64.b64encode(root(leaves)).decode())


if __name__ == "__main__":
    main()
