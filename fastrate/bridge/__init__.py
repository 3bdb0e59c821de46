"""Duplicate bridge: contract scoring and board comparisons (SPEC §3)."""
