"""Game plug-ins shipped with hub. Each lives in its own sub-package (see docs/architecture.md)."""
