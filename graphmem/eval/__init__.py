"""Measurement: evidence recall within a token budget, and the datasets' gold evidence."""
