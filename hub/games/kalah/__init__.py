"""Kalah: pure rules, a sans-IO wire protocol, an alpha-beta AI, a TCP server and clients."""
